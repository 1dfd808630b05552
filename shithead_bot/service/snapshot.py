"""Frozen read models: all that leaves the service about a game. Nothing here holds a session or
an ORM row, so a renderer can keep a snapshot as long as it likes and change nothing by accident.

A snapshot carries the engine state it was read with; whoever renders it builds each reader's
text from :meth:`GameSnapshot.view` — a seat's view, or the spectator's — never from the state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from engine import (
    AnyRules,
    AnyState,
    GameKind,
    Move,
    NeighborView,
    Phase,
    ShitheadView,
    event_from_dict,
    rules_from_dict,
)
from engine import events as ev
from persistence.models import Chat, Game, Seat
from persistence.models import Move as MoveRow
from shithead_bot.service.autoplay import timeout_moves
from shithead_bot.service.status import Actor, GameStatus

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

ACTIVE = (GameStatus.SWAPPING, GameStatus.PLAYING)
OVER = (GameStatus.FINISHED, GameStatus.ABORTED)
D = TypeVar("D", bound="DataclassInstance")


def from_row(cls: type[D], row: object, **given: Any) -> D:
    """A read model of a row, by keyword: each field from the row's attribute of the same name, but
    those ``given`` (converted, or not the row's)."""
    names = [f.name for f in fields(cls) if f.init and f.name not in given]
    return cls(**{name: getattr(row, name) for name in names}, **given)


@dataclass(frozen=True)
class Revealed:
    """The deal's secrets, shown once the game is over: the seed and the salt behind its fingerprint."""

    seed: int
    salt: str | None  # None: dealt before commitments

    @classmethod
    def of(cls, game: Game) -> Revealed | None:
        """The secrets of a game that is over; None while it is not (they stay in the database)."""
        return cls(game.seed, game.deal_salt) if GameStatus(game.status) in OVER else None


@dataclass(frozen=True)
class SeatSnapshot:
    number: int
    name: str
    player_id: int | None = None
    computer_level: str | None = None
    place: int | None = None
    is_loser: bool = False
    forfeited: bool = False
    timeouts_in_row: int = 0
    keyboard_version: int = 0  # the game version of this seat's live buttons
    private_message_id: int | None = None
    message_version: int = 0  # the keyboard version its private message shows (0: none)
    reminder_message_id: int | None = None
    language: str | None = None  # its player's Telegram language
    away_until: datetime | None = None  # its player is away until then: a stand-in plays for them
    stood_in: bool = False  # a computer plays this human's seat now (away, or for good after timeouts)
    called_version: int = 0  # the keyboard version the group was last asked to get this player for
    last_active_at: datetime | None = None  # its player's last press or command in the private chat
    notify: str = "smart"  # when a turn notifies its player: smart (unless they are looking), every
    nudge_at: datetime | None = None  # a turn sent silently: one notifying nudge then

    @property
    def shown_name(self) -> str:
        """The name at the table: a stood-in seat has the computers' 🤖 beside it."""
        return self.stand_in_name if self.stood_in else self.name

    @property
    def stand_in_name(self) -> str:
        """The name with the computers' 🤖 beside it: a stood-in seat's at the table, and the one a
        stand-in's move is told with (whoever stands in now)."""
        return f"🤖 {self.name}"

    @classmethod
    def of(
        cls,
        seat: Seat,
        language: str | None = None,
        away_until: datetime | None = None,
        stood_in: bool = False,
        *,
        last_active_at: datetime | None = None,
        notify: str = "smart",
    ) -> SeatSnapshot:
        return from_row(
            cls,
            seat,
            language=language,
            away_until=away_until,
            stood_in=stood_in,
            last_active_at=last_active_at,
            notify=notify,
        )


TABLE_STYLES = ("picture", "text")  # a chat's table message: a photo with a caption, or text
TABLE_TEXT = "text"


@dataclass(frozen=True)
class ChatSnapshot:
    id: int
    kind: str = "group"
    title: str = ""
    game_kind: str = GameKind.SHITHEAD
    preset: str = "standard"
    house_rules: dict[str, str] = field(default_factory=dict)
    turn_seconds: int | None = 86400
    reminders: tuple[str, ...] | None = None
    max_timeouts: int = 3
    deadlines_skip_quiet: bool = False
    language: str | None = None
    table_style: str = "picture"
    timezone: str | None = None  # IANA name: the table picture's clock times; None: UTC
    standin_level: str = "normal"  # the level of the computer that stands in for a player
    on_timeout: str = "minimal"  # at a deadline: minimal, or standin (the stand-in's move)
    after_timeouts: str = "remove"  # after max_timeouts in a row: remove, or computer (takes the seat)
    settings_version: int = 0  # bumped at each settings change: what a settings keyboard carries
    photos_refused_until: datetime | None = None  # Telegram refused the bot a picture: text tables until then

    @property
    def zone(self) -> str:
        """The chat's time zone, UTC unless it chose one."""
        return self.timezone or "UTC"

    @property
    def table_is_picture(self) -> bool:
        """Does this chat want its table as a picture (the default) rather than text?"""
        return self.table_style != TABLE_TEXT

    @classmethod
    def of(cls, chat: Chat) -> ChatSnapshot:
        return from_row(
            cls,
            chat,
            house_rules=dict(chat.house_rules),
            reminders=tuple(chat.reminders) if chat.reminders is not None else None,
        )


@dataclass(frozen=True)
class GameInfo:
    """A game's row as read, without the deal's secrets (seed, salt: :class:`Revealed`, once it is
    over, and :class:`GameRecord` for export and verification). ``snapshot`` is never shown."""

    id: int
    chat_id: int
    kind: str
    status: GameStatus
    rules: dict[str, Any]
    version: int
    move_count: int
    dealer: int
    snapshot: dict[str, Any] | None
    created_by: int | None
    rematch_of: int | None
    turn_seconds: int | None
    deadline_at: datetime | None
    due_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    pause_votes: tuple[int, ...]
    lobby_message_id: int | None
    table_message_id: int | None
    message_thread_id: int | None  # the forum topic the game lives in (None: the chat, or General)
    table_is_picture: bool = False  # the table message is a photo (edited with editMessageMedia)
    deal_commitment: str | None = None  # the deal's fingerprint, published at the start (None: an older game)
    table_edited_at: datetime | None = None  # the table message's last edit (its throttle counts from it)

    @classmethod
    def of(cls, game: Game) -> GameInfo:
        return from_row(
            cls,
            game,
            id=game.id or 0,
            status=GameStatus(game.status),
            rules=dict(game.rules),
            pause_votes=tuple(game.pause_votes),
        )


@dataclass(frozen=True)
class MoveLine:
    """One move of the log: who, what, and the public events it caused."""

    seq: int
    seat: int
    move: str
    actor: Actor
    events: tuple[ev.Event, ...]

    @classmethod
    def of(cls, row: MoveRow) -> MoveLine:
        return cls(row.seq, row.seat, row.move, Actor(row.actor), tuple(event_from_dict(e) for e in row.events))


@dataclass(frozen=True)
class GameSnapshot:
    game: GameInfo
    seats: list[SeatSnapshot]  # in seat order (a list, so it compares with one; never changed in place)
    chat: ChatSnapshot
    now: datetime
    state: AnyState | None = None
    moves: tuple[MoveLine, ...] = ()  # the newest moves, oldest first (when asked for)
    revealed: Revealed | None = None  # the deal's seed and salt, once the game is over

    @property
    def rules(self) -> AnyRules:
        return rules_from_dict(self.game.kind, self.game.rules)

    @property
    def status(self) -> GameStatus:
        return self.game.status

    @property
    def is_active(self) -> bool:
        return self.game.status in ACTIVE

    @property
    def is_over(self) -> bool:
        return self.game.status in OVER

    @property
    def in_swap_phase(self) -> bool:
        return self.state is not None and self.state.phase is Phase.SWAP

    def seat(self, number: int) -> SeatSnapshot:
        return self.seats[number]

    def seat_of(self, player_id: int) -> SeatSnapshot | None:
        return next((s for s in self.seats if s.player_id == player_id), None)

    @property
    def names(self) -> list[str]:
        """Each seat's name as the table shows it (🤖 beside a stood-in seat's)."""
        return [s.shown_name for s in self.seats]

    def view(self, seat: int | None) -> ShitheadView | NeighborView:
        """What ``seat`` may know (None: a spectator, i.e. the group)."""
        assert self.state is not None, "a lobby has no cards yet"
        return self.state.view(seat)

    def may_act(self, seat: int) -> bool:
        """Does this seat have live buttons now?"""
        return self.is_active and self.state is not None and seat in self.state.seats_to_act()

    def timeout_plan(self, seat: int) -> Move | None:
        """The first move the bot would make for this seat at its deadline."""
        if self.state is None:
            return None
        moves = timeout_moves(self.state, seat, 0)
        return moves[0] if moves else None

    def with_seat(self, number: int, **changes: Any) -> GameSnapshot:
        """A copy with one seat changed (for a sender that recorded a new message id)."""
        seats = list(self.seats)
        seats[number] = replace(seats[number], **changes)
        return replace(self, seats=seats)

    def with_game(self, **changes: Any) -> GameSnapshot:
        return replace(self, game=replace(self.game, **changes))

    def with_chat(self, **changes: Any) -> GameSnapshot:
        return replace(self, chat=replace(self.chat, **changes))


@dataclass(frozen=True)
class GameRecord:
    """Everything needed to replay a game: its rules, seed, seats and move log (``export``)."""

    id: int
    kind: str
    rules: dict[str, Any]
    seed: int
    dealer: int
    status: GameStatus
    dealt: bool
    names: tuple[str, ...]
    moves: tuple[MoveLine, ...]
    seats: tuple[SeatSnapshot, ...] = ()
    salt: str | None = None  # the deal's salt (None: dealt before commitments)
    commitment: str | None = None  # the fingerprint published at the start


def moves_of(rows: Sequence[MoveRow]) -> tuple[MoveLine, ...]:
    return tuple(MoveLine.of(row) for row in rows)
