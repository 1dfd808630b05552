"""Nothing grows with history where it need not: a leaderboard and a player's ratings read by index,
a player's record kept as counters (filled here from the finished games), seats that know when their
game ended (a player's open and recent seats by index), the open games by status by index, and a
send_bucket whose updates touch no index (HOT on PostgreSQL, with room left on its pages)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-08 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import persistence.types

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OPEN = "status IN ('lobby', 'swapping', 'playing', 'paused')"

# The record of every player from the finished games, as the service's /stats counted it before.
RECORDS = """
INSERT INTO player_record (player_id, games, firsts, losers, place_sum, placed, stood_in_moves, stood_in_games)
SELECT s.player_id, count(*),
       sum(CASE WHEN s.place = 1 THEN 1 ELSE 0 END), sum(CASE WHEN s.is_loser THEN 1 ELSE 0 END),
       coalesce(sum(s.place), 0), count(s.place),
       coalesce(sum(m.moves), 0), sum(CASE WHEN m.moves > 0 THEN 1 ELSE 0 END)
FROM seat s
JOIN game g ON g.id = s.game_id
JOIN player p ON p.id = s.player_id
LEFT JOIN (SELECT game_id, seat, count(*) AS moves FROM move WHERE actor = 'standin' GROUP BY game_id, seat) m
       ON m.game_id = s.game_id AND m.seat = s.number
WHERE g.status = 'finished' AND s.player_id IS NOT NULL
GROUP BY s.player_id
"""


def upgrade() -> None:
    op.create_table(
        "player_record",
        sa.Column("player_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("firsts", sa.Integer(), nullable=False),
        sa.Column("losers", sa.Integer(), nullable=False),
        sa.Column("place_sum", sa.Integer(), nullable=False),
        sa.Column("placed", sa.Integer(), nullable=False),
        sa.Column("stood_in_moves", sa.Integer(), nullable=False),
        sa.Column("stood_in_games", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("player_id"),
    )
    op.execute(RECORDS)
    with op.batch_alter_table("seat") as batch_op:
        batch_op.add_column(sa.Column("ended_at", persistence.types.UTCDateTime(timezone=True), nullable=True))
        batch_op.create_index("ix_seat_player_ended", ["player_id", "ended_at"], unique=False)
    op.execute(
        "UPDATE seat SET ended_at = (SELECT coalesce(g.finished_at, g.updated_at) FROM game g "
        f"WHERE g.id = seat.game_id AND NOT (g.{OPEN}))"
    )
    op.create_index(
        "ix_game_open_status", "game", ["status"], sqlite_where=sa.text(OPEN), postgresql_where=sa.text(OPEN)
    )
    op.create_index("ix_rating_ordinal", "rating", ["chat_id", sa.text("(mu - 3 * sigma) DESC"), "subject"])
    op.create_index("ix_rating_subject", "rating", ["subject"])
    with op.batch_alter_table("send_bucket") as batch_op:
        batch_op.drop_index("ix_send_bucket_updated_at")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE send_bucket SET (fillfactor = 50)")  # new pages keep room for their updates


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE send_bucket RESET (fillfactor)")
    with op.batch_alter_table("send_bucket") as batch_op:
        batch_op.create_index("ix_send_bucket_updated_at", ["updated_at"], unique=False)
    op.drop_index("ix_rating_subject", table_name="rating")
    op.drop_index("ix_rating_ordinal", table_name="rating")
    op.drop_index("ix_game_open_status", table_name="game")
    with op.batch_alter_table("seat") as batch_op:
        batch_op.drop_index("ix_seat_player_ended")
        batch_op.drop_column("ended_at")
    op.drop_table("player_record")
