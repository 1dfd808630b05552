"""away: a player's away_until (a stand-in plays their turns until then), a seat taken over by a
computer after timeouts, and the chat's stand-in settings (its level, the move at a deadline, what
follows too many timeouts)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import persistence.types

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN everywhere: nullable, or with a server default for the rows already there.
    op.add_column("player", sa.Column("away_until", persistence.types.UTCDateTime(timezone=True), nullable=True))
    op.add_column("seat", sa.Column("standin", sa.Boolean(), server_default=sa.text("false"), nullable=False))
    text16 = sqlmodel.sql.sqltypes.AutoString(length=16)
    op.add_column("chat", sa.Column("standin_level", text16, server_default=sa.text("'normal'"), nullable=False))
    op.add_column("chat", sa.Column("on_timeout", text16, server_default=sa.text("'minimal'"), nullable=False))
    op.add_column("chat", sa.Column("after_timeouts", text16, server_default=sa.text("'remove'"), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.drop_column("after_timeouts")
        batch_op.drop_column("on_timeout")
        batch_op.drop_column("standin_level")
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.drop_column("standin")
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_column("away_until")
