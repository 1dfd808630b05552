"""the deal's commitment: a random salt, kept secret until the game is over, and the fingerprint of
game number, seed and salt that the group is shown at the start

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (nullable: games dealt before this have no commitment).
    op.add_column("game", sa.Column("deal_salt", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))
    op.add_column("game", sa.Column("deal_commitment", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("deal_commitment")
        batch_op.drop_column("deal_salt")
