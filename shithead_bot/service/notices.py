"""Notices: what the outside world should be told after a use case, written to the outbox in the
same transaction. They name what changed, not how to say it; the Telegram layer renders them from
the current state of the game when it delivers them (so delivering one twice is harmless, except a
new message, which the deliverer guards with the version it carries)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any


class NoticeKind(StrEnum):
    LOBBY = "lobby"  # the lobby message changed (players, computers, settings)
    TABLE = "table"  # the group's table message changed
    TURN = "turn"  # a seat has a new keyboard: its player gets a fresh private message
    SWAP = "swap"  # a seat's swap-phase keyboard changed
    MOVED = "moved"  # a seat moved: its private message shows what happened, without buttons
    ANNOUNCE = "announce"  # a new group message: someone went out, the end… (see Announcement)
    REMINDER = "reminder"  # a private reminder before a deadline (or a nudge, or a grace period)
    RESULT = "result"  # the game is over: a seat's private message shows how it ended for them
    HAND = "hand"  # a player asked for their private message again: a fresh copy, the old one's buttons off
    TIDY = "tidy"  # a clean-up that failed (a delete, a keyboard taken off, an unpin): tried again alone
    REMOVED = "removed"  # a seat's player was removed after timeouts: told in a message of their own
    INBOX = "inbox"  # what waits on a seat's player changed: their inbox is edited (digest: sent anew, it notifies)


class Announcement(StrEnum):
    """What an ANNOUNCE notice tells the group."""

    STARTED = "started"  # dealt: who plays, where the cards are
    WENT_OUT = "went_out"  # seat, place
    ELIMINATED = "eliminated"  # seat, place (Neighbor: out of lives)
    FORFEITED = "forfeited"  # seat, place
    REMOVED = "removed"  # seat, timeouts: removed after too many timeouts in a row
    TAKEN_OVER = "taken_over"  # seat, timeouts, level: a computer plays the seat for the rest of the game
    AWAY = "away"  # seat, until (ISO time): a stand-in plays for the seat's player until then
    OVER = "over"  # places, winners, loser
    ABORTED = "aborted"  # by
    PAUSED = "paused"
    RESUMED = "resumed"
    LOBBY_CLOSED = "lobby_closed"  # everybody left the lobby
    LOBBY_EXPIRED = "lobby_expired"  # days
    PAUSE_EXPIRED = "pause_expired"  # days
    BOT_BACK = "bot_back"  # the bot is back in the group (re-added, or may post again): the game may go on


class Reminder(StrEnum):
    """Why a REMINDER notice is sent."""

    REMINDER = "reminder"  # before the deadline
    NUDGE = "nudge"  # another player asked (by: their name)
    GRACE = "grace"  # the deadline passed while no worker was running: extra time
    LOOK = "look"  # a turn sent silently (its player was looking) was not taken: one nudge that notifies


@dataclass(frozen=True)
class NoPayload:
    """LOBBY, RESULT, HAND: the kind (and the seat) say it all."""


@dataclass(frozen=True)
class TablePayload:
    """TABLE."""

    repost: bool = False  # post the table anew at the bottom of the chat (the bot is back after a removal)


@dataclass(frozen=True)
class TurnPayload:
    """TURN, SWAP."""

    version: int = 0  # the keyboard version it is about (0: none)


@dataclass(frozen=True)
class MovedPayload:
    """MOVED."""

    seq: int = 0  # the move's sequence number in the log (0: none)
    version: int = 0  # the keyboard version it is about (0: none)
    auto: bool = False  # the bot made the move for the player (it was forced), not a press or a timeout


@dataclass(frozen=True)
class ReminderPayload:
    """REMINDER."""

    what: Reminder = Reminder.REMINDER
    timeouts: int | None = None  # the seat's timeouts in a row when it was written (None: read the seat's)
    by: str | None = None  # NUDGE: the nudger's name


class Tidy(StrEnum):
    """What a TIDY notice does to an old message."""

    DELETE = "delete"
    DROP_KEYBOARD = "drop_keyboard"  # take its buttons off
    UNPIN = "unpin"
    PIN = "pin"  # a new table, pinned quietly (put off like a clean-up when the group's rate is used up)


@dataclass(frozen=True)
class TidyPayload:
    """TIDY: one clean-up of one message, in a chat (a player's private chat or the game's group)."""

    what: Tidy = Tidy.DROP_KEYBOARD
    chat_id: int = 0
    message_id: int = 0


@dataclass(frozen=True)
class InboxPayload:
    """INBOX: the player's inbox is edited in place; ``digest``: sent anew, with a notification (digest
    mode, at most once an interval)."""

    digest: bool = False


@dataclass(frozen=True)
class AnnouncePayload:
    """ANNOUNCE: its subject and the fields that subject uses (see :class:`Announcement`); the others
    stay None."""

    what: Announcement | None  # None: unknown, e.g. written by another version (not rendered)
    place: int | None = None  # WENT_OUT, ELIMINATED, FORFEITED
    seq: int | None = None  # WENT_OUT, ELIMINATED, FORFEITED: the move's sequence number
    timeouts: int | None = None  # REMOVED, TAKEN_OVER
    level: str | None = None  # TAKEN_OVER: the computer's level
    until: datetime | None = None  # AWAY
    by: int | None = None  # ABORTED: who aborted it (user id)
    places: tuple[int, ...] | None = None  # OVER: each seat's place
    winners: tuple[int, ...] | None = None  # OVER
    loser: int | None = None  # OVER (None: no loser)
    looped: bool = False  # OVER: ended by the loop rule (ranked by cards held)
    days: int | None = None  # LOBBY_EXPIRED, PAUSE_EXPIRED


Payload = (
    NoPayload
    | TablePayload
    | TurnPayload
    | MovedPayload
    | ReminderPayload
    | AnnouncePayload
    | TidyPayload
    | InboxPayload
)

PAYLOADS: dict[NoticeKind, type[Payload]] = {
    NoticeKind.LOBBY: NoPayload,
    NoticeKind.TABLE: TablePayload,
    NoticeKind.TURN: TurnPayload,
    NoticeKind.SWAP: TurnPayload,
    NoticeKind.MOVED: MovedPayload,
    NoticeKind.ANNOUNCE: AnnouncePayload,
    NoticeKind.REMINDER: ReminderPayload,
    NoticeKind.RESULT: NoPayload,
    NoticeKind.HAND: NoPayload,
    NoticeKind.TIDY: TidyPayload,
    NoticeKind.REMOVED: AnnouncePayload,  # (REMOVED, timeouts)
    NoticeKind.INBOX: InboxPayload,
}

_DEFAULTS: dict[NoticeKind, Payload] = {  # a kind's payload when none is given (ANNOUNCE needs its subject)
    NoticeKind.TABLE: TablePayload(),
    NoticeKind.TURN: TurnPayload(),
    NoticeKind.SWAP: TurnPayload(),
    NoticeKind.MOVED: MovedPayload(),
    NoticeKind.REMINDER: ReminderPayload(),
    NoticeKind.INBOX: InboxPayload(),
}


@dataclass(frozen=True)
class Notice:
    kind: NoticeKind
    game_id: int
    seat: int | None = None
    payload: Payload = field(default_factory=NoPayload)  # its kind's (NoPayload: that kind's defaults)
    id: int | None = None  # the outbox row, once stored
    attempts: int = 0  # delivery attempts so far, this one included (> 1: an earlier one may have sent it)

    def __post_init__(self) -> None:
        wanted = PAYLOADS[self.kind]
        if isinstance(self.payload, NoPayload) and self.kind in _DEFAULTS:
            object.__setattr__(self, "payload", _DEFAULTS[self.kind])
        if not isinstance(self.payload, wanted):
            raise TypeError(f"a {self.kind} notice carries a {wanted.__name__}, not {type(self.payload).__name__}")

    # Typed views of the payload the sender reads (the renderers read the payload itself).

    @property
    def announcement(self) -> Announcement | None:
        """An ANNOUNCE notice's subject (None for an unknown one, e.g. written by an older version)."""
        return self.payload.what if isinstance(self.payload, AnnouncePayload) else None

    @property
    def version(self) -> int:
        """TURN, SWAP, MOVED: the keyboard version it is about (0: none)."""
        return self.payload.version if isinstance(self.payload, TurnPayload | MovedPayload) else 0

    @property
    def seq(self) -> int:
        """MOVED: the move's sequence number in the log (0: none)."""
        return self.payload.seq if isinstance(self.payload, MovedPayload) else 0

    @property
    def auto(self) -> bool:
        """MOVED: the bot made the move for the player (it was forced), not a press or a timeout."""
        return isinstance(self.payload, MovedPayload) and self.payload.auto

    @property
    def digest(self) -> bool:
        """INBOX: sent anew, with a notification (digest mode)."""
        return isinstance(self.payload, InboxPayload) and self.payload.digest

    @property
    def repost(self) -> bool:
        """TABLE: post the table anew at the bottom of the chat (the bot is back after a removal)."""
        return isinstance(self.payload, TablePayload) and self.payload.repost

    def to_json(self) -> dict[str, Any]:
        """The outbox row's payload."""
        return {"seat": self.seat, **_to_json(self.payload)}

    @classmethod
    def from_row(
        cls, kind: str, game_id: int, payload: dict[str, Any], row_id: int | None, attempts: int = 0
    ) -> Notice:
        notice_kind = NoticeKind(kind)
        seat = payload.get("seat")
        return cls(notice_kind, game_id, seat, _from_json(notice_kind, payload), row_id, attempts)


# The one place that converts a payload to and from the outbox row's JSON. The keys are the ones the
# bot has always written (rows already in the outbox when it is upgraded must still load): a field
# is written only when set, as before; reading is lenient (a missing key: the default; an unknown
# subject: None or REMINDER; an unknown key: ignored).


def _to_json(payload: Payload) -> dict[str, Any]:
    match payload:
        case TablePayload(repost=repost):
            return {"repost": True} if repost else {}
        case TurnPayload(version=version):
            return {"version": version}
        case MovedPayload(seq=seq, version=version, auto=auto):
            return {"seq": seq, "version": version, **({"auto": True} if auto else {})}
        case ReminderPayload(what=what, timeouts=timeouts, by=by):
            optional = {"timeouts": timeouts, "by": by}
            return {"what": str(what), **{k: v for k, v in optional.items() if v is not None}}
        case AnnouncePayload():
            return _announce_json(payload)
        case TidyPayload(what=what, chat_id=chat_id, message_id=message_id):
            return {"what": str(what), "chat": chat_id, "message": message_id}
        case InboxPayload(digest=digest):
            return {"digest": True} if digest else {}
    return {}


def _announce_json(payload: AnnouncePayload) -> dict[str, Any]:
    data: dict[str, Any] = {"what": None if payload.what is None else str(payload.what)}
    optional: dict[str, Any] = {
        "place": payload.place,
        "seq": payload.seq,
        "timeouts": payload.timeouts,
        "level": payload.level,
        "until": None if payload.until is None else payload.until.isoformat(),
        "by": payload.by,
        "places": None if payload.places is None else list(payload.places),
        "winners": None if payload.winners is None else list(payload.winners),
    }
    data.update((k, v) for k, v in optional.items() if v is not None)
    if payload.what is Announcement.OVER or payload.loser is not None:  # OVER: "loser" even when nobody
        data["loser"] = payload.loser
    if payload.looped:
        data["looped"] = True
    if payload.days is not None:
        data["days"] = payload.days
    return data


def _from_json(kind: NoticeKind, data: dict[str, Any]) -> Payload:
    wanted = PAYLOADS[kind]
    if wanted is TablePayload:
        return TablePayload(repost=bool(data.get("repost")))
    if wanted is TurnPayload:
        return TurnPayload(version=int(data.get("version") or 0))
    if wanted is MovedPayload:
        return MovedPayload(
            seq=int(data.get("seq") or 0), version=int(data.get("version") or 0), auto=bool(data.get("auto"))
        )
    if wanted is ReminderPayload:
        what = str(data.get("what"))
        return ReminderPayload(
            what=Reminder(what) if what in Reminder._value2member_map_ else Reminder.REMINDER,
            timeouts=_int(data.get("timeouts")),
            by=None if data.get("by") is None else str(data["by"]),
        )
    if wanted is AnnouncePayload:
        return _announce_from_json(data)
    if wanted is InboxPayload:
        return InboxPayload(digest=bool(data.get("digest")))
    if wanted is TidyPayload:
        what = str(data.get("what"))
        return TidyPayload(
            what=Tidy(what) if what in Tidy._value2member_map_ else Tidy.DROP_KEYBOARD,
            chat_id=int(data.get("chat") or 0),
            message_id=int(data.get("message") or 0),
        )
    return NoPayload()


def _announce_from_json(data: dict[str, Any]) -> AnnouncePayload:
    what = str(data.get("what"))
    return AnnouncePayload(
        what=Announcement(what) if what in Announcement._value2member_map_ else None,
        place=_int(data.get("place")),
        seq=_int(data.get("seq")),
        timeouts=_int(data.get("timeouts")),
        level=None if data.get("level") is None else str(data["level"]),
        until=_time(data.get("until")),
        by=_int(data.get("by")),
        places=None if data.get("places") is None else tuple(int(p) for p in data["places"]),
        winners=None if data.get("winners") is None else tuple(int(w) for w in data["winners"]),
        loser=_int(data.get("loser")),
        looped=bool(data.get("looped")),
        days=_int(data.get("days")),
    )


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _time(value: object) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None
