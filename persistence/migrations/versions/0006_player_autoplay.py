"""player autoplay: which forced moves the bot makes for a player at once (off, public, all)

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04 18:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("autoplay", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False, server_default="public")
        )


def downgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_column("autoplay")
