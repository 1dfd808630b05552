"""inbox: a player's live inbox message (📥 Your games, edited in place) and digest mode's interval and
last digest (turns come silently; the inbox notifies at most once an interval)

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-11 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import persistence.types

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN everywhere: nullable, nothing to fill in for the rows already there.
    op.add_column("player", sa.Column("inbox_message_id", sa.BigInteger(), nullable=True))
    op.add_column("player", sa.Column("digest_seconds", sa.Integer(), nullable=True))
    op.add_column("player", sa.Column("digested_at", persistence.types.UTCDateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_column("digested_at")
        batch_op.drop_column("digest_seconds")
        batch_op.drop_column("inbox_message_id")
