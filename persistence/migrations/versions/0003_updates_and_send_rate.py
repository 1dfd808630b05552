"""processed updates and send buckets: each Telegram update applied once, one send rate per fleet

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 11:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import persistence.types

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "processed_update",
        sa.Column("update_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("taken_at", persistence.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("update_id"),
    )
    with op.batch_alter_table("processed_update", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_processed_update_taken_at"), ["taken_at"], unique=False)
    op.create_table(
        "send_bucket",
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column("updated_at", persistence.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    with op.batch_alter_table("send_bucket", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_send_bucket_updated_at"), ["updated_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("send_bucket", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_send_bucket_updated_at"))
    op.drop_table("send_bucket")
    with op.batch_alter_table("processed_update", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_processed_update_taken_at"))
    op.drop_table("processed_update")
