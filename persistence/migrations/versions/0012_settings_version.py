"""a chat's settings version: bumped at each settings change, carried by the /settings keyboard, so
that an outdated keyboard is refused instead of changing what was changed since

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-09 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN, as in 0004: a batch copy of "chat" would take its games with it.
    op.add_column("chat", sa.Column("settings_version", sa.Integer(), server_default=sa.text("0"), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.drop_column("settings_version")
