"""a chat's time zone: the table picture shows the deadline's clock time there (texts carry
date_time entities, which each reader's app shows in their own zone)

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN, as in 0004: a batch copy of "chat" would take its games with it.
    op.add_column("chat", sa.Column("timezone", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.drop_column("timezone")
