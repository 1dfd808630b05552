"""What the sender decides for every worker is stored, not kept in one process's memory: the turn an
unreachable player was last called for (seat.called_version), a chat that refuses pictures
(chat.photos_refused_until), and the table's last edit, which the next waits after (game.table_edited_at)

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-09 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import persistence.types

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seat") as batch_op:
        batch_op.add_column(sa.Column("called_version", sa.Integer(), server_default=sa.text("0"), nullable=False))
    with op.batch_alter_table("chat") as batch_op:
        batch_op.add_column(
            sa.Column("photos_refused_until", persistence.types.UTCDateTime(timezone=True), nullable=True)
        )
    with op.batch_alter_table("game") as batch_op:
        batch_op.add_column(sa.Column("table_edited_at", persistence.types.UTCDateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game") as batch_op:
        batch_op.drop_column("table_edited_at")
    with op.batch_alter_table("chat") as batch_op:
        batch_op.drop_column("photos_refused_until")
    with op.batch_alter_table("seat") as batch_op:
        batch_op.drop_column("called_version")
