"""Every table, in one readable file.

Times are timezone-aware UTC (:class:`UTCDateTime` keeps them so on SQLite too). Telegram ids are
64-bit. The engine's snapshot is stored as JSON; this package never imports the engine.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, Index, UniqueConstraint, text
from sqlalchemy.orm import declared_attr
from sqlmodel import Field, SQLModel

from persistence.types import JSONDoc, UTCDateTime

_UNDELIVERED_SQL = text("delivered_at IS NULL")
_DUE_SQL = text("due_at IS NOT NULL")
# A rating's ordinal, the order of a leaderboard (the same expression in the index and the query).
ORDINAL_SQL = "mu - 3 * sigma"


def utcnow() -> datetime:
    """The current time, timezone-aware UTC (the one clock helper for default values)."""
    return datetime.now(UTC)


# The stored values of the service's GameStatus (shithead_bot.service.status) for a game that is not
# over yet. The schema needs them (the partial unique index of a chat's open game, and the queries
# that rely on it); persistence knows no enum. tests/test_architecture.py checks they cannot drift.
OPEN_STATUSES: tuple[str, ...] = ("lobby", "swapping", "playing", "paused")
# (written out, not bound: SQLite uses a partial index only for a query that repeats its predicate)
OPEN_SQL = text("status IN ({})".format(", ".join(f"'{status}'" for status in OPEN_STATUSES)))


class Chat(SQLModel, table=True):
    """A Telegram chat (group, supergroup or a player's private chat) and its game settings."""

    id: int = Field(sa_type=BigInteger, primary_key=True, description="Telegram chat id")
    kind: str = Field(default="group", max_length=16, description="group, supergroup, private")
    title: str = Field(default="", max_length=255)
    game_kind: str = Field(default="shithead", max_length=16)
    preset: str = Field(default="standard", max_length=32)
    house_rules: dict[str, str] = Field(default_factory=dict, sa_type=JSONDoc)
    turn_seconds: int | None = Field(default=86400, description="None: no time limit")
    reminders: list[str] | None = Field(
        default=None, sa_type=JSONDoc, description='before the deadline: "50%" of the turn time or "1h"; None: default'
    )
    max_timeouts: int = Field(default=3, description="timeouts in a row before removal; 0 = never")
    deadlines_skip_quiet: bool = Field(default=False)
    language: str | None = Field(default=None, max_length=8, description="overrides players' languages")
    table_style: str = Field(
        default="picture",
        max_length=16,
        sa_column_kwargs={"server_default": text("'picture'")},
        description="the group's table message: picture or text",
    )
    timezone: str | None = Field(
        default=None, max_length=64, description="IANA time zone of the deadline on the table picture; None: UTC"
    )
    standin_level: str = Field(
        default="normal",
        max_length=16,
        sa_column_kwargs={"server_default": text("'normal'")},
        description="the computer level that stands in for an away player (and at a deadline, if chosen)",
    )
    on_timeout: str = Field(
        default="minimal",
        max_length=16,
        sa_column_kwargs={"server_default": text("'minimal'")},
        description="at a deadline: minimal (pick up, lead the lowest) or standin (the stand-in's move)",
    )
    after_timeouts: str = Field(
        default="remove",
        max_length=16,
        sa_column_kwargs={"server_default": text("'remove'")},
        description="after max_timeouts in a row: remove the player, or computer (a stand-in keeps the seat)",
    )
    settings_version: int = Field(
        default=0,
        sa_column_kwargs={"server_default": text("0")},
        description="bumped at each settings change: a settings keyboard carries it, an older one is refused",
    )
    bot_present: bool = Field(default=True)
    migrated_to: int | None = Field(default=None, sa_type=BigInteger)
    photos_refused_until: datetime | None = Field(
        default=None,
        sa_type=UTCDateTime,
        description="Telegram refused the bot a picture here: its tables are text until then (or a rights change)",
    )
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class Player(SQLModel, table=True):
    """A Telegram user who has played or joined."""

    id: int = Field(sa_type=BigInteger, primary_key=True, description="Telegram user id")
    first_name: str = Field(default="", max_length=128)
    username: str | None = Field(default=None, max_length=64)
    language: str | None = Field(default=None, max_length=16, description="Telegram language_code")
    can_message: bool = Field(default=False, description="started the bot and has not blocked it")
    quiet_start: int | None = Field(default=None, description="minute of the day quiet hours begin")
    quiet_end: int | None = Field(default=None, description="minute of the day quiet hours end")
    timezone: str | None = Field(default=None, max_length=64)
    autoplay: str = Field(
        default="public",
        max_length=8,
        sa_column_kwargs={"server_default": "public"},
        description="forced moves the bot makes at once: off, public (everybody can see it was forced), all",
    )
    away_until: datetime | None = Field(
        default=None, sa_type=UTCDateTime, description="a stand-in plays this player's turns until then"
    )
    last_active_at: datetime | None = Field(
        default=None, sa_type=UTCDateTime, description="their last press or command in the private chat"
    )
    notify: str = Field(
        default="smart",
        max_length=8,
        sa_column_kwargs={"server_default": "smart"},
        description="when a turn notifies: smart (unless they are looking), every, digest (the inbox only)",
    )
    inbox_message_id: int | None = Field(
        default=None, sa_type=BigInteger, description="their live inbox message (📥 Your games), edited in place"
    )
    digest_seconds: int | None = Field(default=None, description="digest mode's interval (None: the default)")
    digested_at: datetime | None = Field(
        default=None, sa_type=UTCDateTime, description="their last digest: the next an interval later at the earliest"
    )
    reachable_at: datetime | None = Field(
        default=None,
        sa_type=UTCDateTime,
        description="when they last showed the bot may write to them (a /start, an unblock): a delivery that met"
        " their block before it does not mark them unreachable",
    )
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class Game(SQLModel, table=True):
    """One game, from lobby to end. ``version`` is bumped by every change (optimistic locking)."""

    __table_args__ = (
        Index("uq_game_open_per_chat", "chat_id", unique=True, sqlite_where=OPEN_SQL, postgresql_where=OPEN_SQL),
        Index("ix_game_due", "due_at", sqlite_where=_DUE_SQL, postgresql_where=_DUE_SQL),
        Index("ix_game_chat_status", "chat_id", "status"),
        # The open games by status (the vitals count them at every metrics scrape): history stays out.
        Index("ix_game_open_status", "status", sqlite_where=OPEN_SQL, postgresql_where=OPEN_SQL),
    )

    @declared_attr.directive
    def __mapper_args__(cls) -> dict[str, Any]:
        # A flush updates the row only WHERE version = the version loaded, and bumps it: a stale
        # writer gets StaleDataError instead of overwriting a newer game.
        # The service sets the new version itself, once per transaction, so buttons can carry it.
        return {"version_id_col": cls.__table__.c.version, "version_id_generator": False}  # type: ignore[attr-defined]

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(sa_type=BigInteger, foreign_key="chat.id", ondelete="CASCADE")
    kind: str = Field(default="shithead", max_length=16)
    status: str = Field(default="lobby", max_length=16)
    rules: dict[str, Any] = Field(default_factory=dict, sa_type=JSONDoc)
    seed: int = Field(default=0, sa_type=BigInteger)
    dealer: int = Field(default=0)
    # The deal's commitment: published at the start, checked against seed and salt at the end.
    deal_salt: str | None = Field(default=None, max_length=64, description="secret until the game is over")
    deal_commitment: str | None = Field(default=None, max_length=64, description="fingerprint shown at the start")
    snapshot: dict[str, Any] | None = Field(default=None, sa_type=JSONDoc, description="engine to_dict()")
    version: int = Field(default=1)
    move_count: int = Field(default=0, description="moves in the log")
    created_by: int | None = Field(default=None, sa_type=BigInteger)
    rematch_of: int | None = Field(default=None, foreign_key="game.id")
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # Timers: the database is the only source of truth for deadlines.
    turn_seconds: int | None = Field(default=None)
    turn_started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    deadline_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    due_at: datetime | None = Field(default=None, sa_type=UTCDateTime, description="next timer event")
    reminders_sent: int = Field(default=0)
    paused_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    paused_from: str | None = Field(default=None, max_length=16, description="status before the pause")
    last_nudge_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    pause_votes: list[int] = Field(
        default_factory=list,
        sa_type=JSONDoc,
        sa_column_kwargs={"server_default": text("'[]'")},
        description="players voting to pause",
    )
    # Where the game lives: a forum topic (None: the chat itself, or a forum's General topic).
    message_thread_id: int | None = Field(default=None, sa_type=BigInteger)
    # Messages the bot keeps editing.
    lobby_message_id: int | None = Field(default=None, sa_type=BigInteger)
    table_message_id: int | None = Field(default=None, sa_type=BigInteger)
    table_is_picture: bool = Field(
        default=False, sa_column_kwargs={"server_default": text("false")}, description="the table message is a photo"
    )
    table_edited_at: datetime | None = Field(
        default=None, sa_type=UTCDateTime, description="the table message's last edit: the next waits a few seconds"
    )


class Seat(SQLModel, table=True):
    """A seat at a game: a player, or a computer of some level."""

    __table_args__ = (
        UniqueConstraint("game_id", "number"),
        # A player's open seats (ended_at NULL) and those of games ended lately, without their history.
        Index("ix_seat_player_ended", "player_id", "ended_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", ondelete="CASCADE", index=True)
    number: int
    player_id: int | None = Field(default=None, sa_type=BigInteger, foreign_key="player.id", index=True)
    computer_level: str | None = Field(default=None, max_length=16)
    name: str = Field(default="", max_length=128)
    place: int | None = Field(default=None)
    is_loser: bool = Field(default=False)
    forfeited: bool = Field(default=False)
    timeouts_in_row: int = Field(default=0)
    standin: bool = Field(
        default=False,
        sa_column_kwargs={"server_default": text("false")},
        description="a computer took this player's seat for the rest of the game (after timeouts)",
    )
    keyboard_version: int = Field(default=0, description="game version of this seat's live buttons")
    private_message_id: int | None = Field(default=None, sa_type=BigInteger)
    message_version: int = Field(default=0, description="keyboard version shown in the private message")
    reminder_message_id: int | None = Field(default=None, sa_type=BigInteger)
    called_version: int = Field(
        default=0,
        sa_column_kwargs={"server_default": text("0")},
        description="the keyboard version the group was last asked to get this player for (unreachable)",
    )
    nudge_at: datetime | None = Field(
        default=None, sa_type=UTCDateTime, description="a turn sent silently: one notifying nudge then (game.due_at)"
    )
    ended_at: datetime | None = Field(
        default=None, sa_type=UTCDateTime, description="when the game ended (its finished_at); None: it is open"
    )


class Move(SQLModel, table=True):
    """The append-only move log: replaying it from the seed rebuilds the game."""

    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", ondelete="CASCADE")
    seq: int
    seat: int
    move: str = Field(max_length=16)
    actor: str = Field(default="human", max_length=16, description="a value of the service's Actor: who made the move")
    events: list[dict[str, Any]] = Field(default_factory=list, sa_type=JSONDoc)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class Outbox(SQLModel, table=True):
    """Notices still to deliver, written in the same transaction as the change that caused them."""

    __table_args__ = (
        Index("ix_outbox_undelivered", "id", sqlite_where=_UNDELIVERED_SQL, postgresql_where=_UNDELIVERED_SQL),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int | None = Field(default=None, foreign_key="game.id", ondelete="CASCADE", index=True)
    kind: str = Field(max_length=32)
    payload: dict[str, Any] = Field(default_factory=dict, sa_type=JSONDoc)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    delivered_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    claimed_until: datetime | None = Field(default=None, sa_type=UTCDateTime, description="a worker is sending it")
    not_before: datetime | None = Field(default=None, sa_type=UTCDateTime, description="deferred until then")
    attempts: int = Field(default=0)
    last_error: str | None = Field(default=None, max_length=500)


class ProcessedUpdate(SQLModel, table=True):
    """Telegram update ids already taken by a worker: a redelivered webhook (or a re-fetched update
    after a crash) is recognised and not applied twice. Rows older than a day or two are purged."""

    __tablename__ = "processed_update"

    update_id: int = Field(sa_type=BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False})
    taken_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, index=True)


class ForeignMessage(SQLModel, table=True):
    """A message in a player's private chat that is no game's: the player's own, or one the bot posted
    there outside a game's delivery (an answer to a command, a picker, the settings). After a crash the
    sender takes the buttons off the copy a dead worker sent unrecorded, which lies among the chat's
    newest ids: these it leaves alone. Rows older than a day or two are purged."""

    __tablename__ = "foreign_message"

    player_id: int = Field(sa_type=BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False})
    message_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    noted_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, index=True)


class SendBucket(SQLModel, table=True):
    """A token bucket of the fleet's Bot API send rate ("global", "chat:<id>"), shared by every worker
    on PostgreSQL so that N workers together stay within Telegram's limits."""

    __tablename__ = "send_bucket"
    # Updated at every send: no index but the key's, and room on each page, so that an update is HOT
    # (written beside the old row, no index touched); the few rows are read whole by the purge.
    __table_args__ = ({"postgresql_with": {"fillfactor": 50}},)

    key: str = Field(primary_key=True, max_length=40)
    tokens: float = Field(default=0.0)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class Rating(SQLModel, table=True):
    """A skill rating (openskill: mu and sigma) of a player, or of a computer level, in one chat or
    overall (``chat_id`` 0). ``subject`` is ``p:<player id>`` or ``c:<level>``."""

    __table_args__ = (
        Index("ix_rating_ordinal", "chat_id", text(f"({ORDINAL_SQL}) DESC"), "subject"),  # a scope's leaderboard
        Index("ix_rating_subject", "subject"),  # a player's ratings in every scope
    )

    chat_id: int = Field(sa_type=BigInteger, primary_key=True, description="0: across every chat")
    subject: str = Field(primary_key=True, max_length=40)
    mu: float
    sigma: float
    games: int = Field(default=0)
    losses: int = Field(default=0, description="times the loser")
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class RatingChange(SQLModel, table=True):
    """What one finished game did to one rating: the history behind trends and rebuilds."""

    __tablename__ = "rating_change"
    __table_args__ = (
        UniqueConstraint("game_id", "chat_id", "subject"),
        Index("ix_rating_change_subject", "chat_id", "subject", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", ondelete="CASCADE")
    chat_id: int = Field(sa_type=BigInteger)
    subject: str = Field(max_length=40)
    place: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class PlayerRecord(SQLModel, table=True):
    """A player's record over their finished games, counted when each game finishes (a player's
    /stats reads one row, whatever their history): games, wins, times the loser, places (their sum
    and how many seats had one), and the moves a stand-in made for them, in how many games."""

    __tablename__ = "player_record"

    player_id: int = Field(sa_type=BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False})
    games: int = Field(default=0)
    firsts: int = Field(default=0)
    losers: int = Field(default=0)
    place_sum: int = Field(default=0)
    placed: int = Field(default=0, description="seats with a place (the average's divisor)")
    stood_in_moves: int = Field(default=0)
    stood_in_games: int = Field(default=0)
