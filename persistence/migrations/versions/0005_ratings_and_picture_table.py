"""ratings (openskill, per chat and overall, with their history) and whether a game's table
message is a picture

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 14:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import persistence.types

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("game", sa.Column("table_is_picture", sa.Boolean(), nullable=False, server_default=sa.text("false")))
    op.create_table(
        "rating",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("subject", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("updated_at", persistence.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", "subject"),
    )
    op.create_table(
        "rating_change",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("subject", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("created_at", persistence.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "chat_id", "subject"),
    )
    op.create_index("ix_rating_change_subject", "rating_change", ["chat_id", "subject", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_rating_change_subject", table_name="rating_change")
    op.drop_table("rating_change")
    op.drop_table("rating")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("table_is_picture")
