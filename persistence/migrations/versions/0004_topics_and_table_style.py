"""forum topics and the table's style: a game lives in the topic it was created in; a chat chooses
a picture or a text table

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 13:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (SQLite has it): a batch copy of "chat" would drop the old table, and with
    # foreign keys on, its games would go with it.
    op.add_column("game", sa.Column("message_thread_id", sa.BigInteger(), nullable=True))
    op.add_column(
        "chat",
        sa.Column(
            "table_style",
            sqlmodel.sql.sqltypes.AutoString(length=16),
            nullable=False,
            server_default=sa.text("'picture'"),
        ),
    )


def downgrade() -> None:
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.drop_column("table_style")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("message_thread_id")
