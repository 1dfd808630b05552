"""foreign_message: the messages in a player's private chat that are no game's (the player's own, the
bot's answers to commands), which the clean-up after a crash leaves alone

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07 00:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import persistence.types

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "foreign_message",
        sa.Column("player_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("message_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("noted_at", persistence.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "message_id"),
    )
    op.create_index(op.f("ix_foreign_message_noted_at"), "foreign_message", ["noted_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_foreign_message_noted_at"), table_name="foreign_message")
    op.drop_table("foreign_message")
