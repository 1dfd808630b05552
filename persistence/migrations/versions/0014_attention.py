"""attention: a player's last press or command in the private chat and when turns notify them, and
a seat's nudge after a turn sent silently (the sweep finds it by the game's due_at, indexed)

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-10 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import persistence.types

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN everywhere: nullable, or with a server default for the rows already there.
    when = persistence.types.UTCDateTime(timezone=True)
    op.add_column("player", sa.Column("last_active_at", when, nullable=True))
    text8 = sqlmodel.sql.sqltypes.AutoString(length=8)
    op.add_column("player", sa.Column("notify", text8, server_default=sa.text("'smart'"), nullable=False))
    op.add_column("seat", sa.Column("nudge_at", when, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.drop_column("nudge_at")
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_column("notify")
        batch_op.drop_column("last_active_at")
