"""reachable_at: when a player last showed the bot may write to them, so that a delivery's report of
an older 403 does not undo a newer /start

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import persistence.types

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN everywhere: nullable; a player seen before it has no newer evidence to keep.
    op.add_column("player", sa.Column("reachable_at", persistence.types.UTCDateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_column("reachable_at")
