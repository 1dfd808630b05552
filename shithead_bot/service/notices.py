"""Notices: what the outside world should be told after a use case, written to the outbox in the
same transaction. They name what changed, not how to say it; the Telegram layer renders them from
the current state of the game when it delivers them (so delivering one twice is harmless, except a
new message, which the deliverer guards with the version it carries)."""

from __future__ import annotations

from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class Notice:
    kind: NoticeKind
    game_id: int
    seat: int | None = None
    data: dict[str, Any] = field(default_factory=dict)
    id: int | None = None  # the outbox row, once stored
    attempts: int = 0  # delivery attempts so far, this one included (> 1: an earlier one may have sent it)

    @property
    def announcement(self) -> Announcement | None:
        """An ANNOUNCE notice's subject (None for an unknown one, e.g. written by an older version)."""
        what = str(self.data.get("what"))
        return Announcement(what) if what in Announcement._value2member_map_ else None

    @property
    def reminder(self) -> Reminder:
        what = str(self.data.get("what"))
        return Reminder(what) if what in Reminder._value2member_map_ else Reminder.REMINDER

    # What the sender reads of a private notice's data, typed (the rest is read by the renderers).

    @property
    def version(self) -> int:
        """TURN, SWAP, MOVED: the keyboard version it is about (0: none)."""
        return int(self.data.get("version", 0))

    @property
    def seq(self) -> int:
        """MOVED: the move's sequence number in the log (0: none)."""
        return int(self.data.get("seq", 0))

    @property
    def auto(self) -> bool:
        """MOVED: the bot made the move for the player (it was forced), not a press or a timeout."""
        return bool(self.data.get("auto"))

    @property
    def repost(self) -> bool:
        """TABLE: post the table anew at the bottom of the chat (the bot is back after a removal)."""
        return bool(self.data.get("repost"))

    def payload(self) -> dict[str, Any]:
        return {"seat": self.seat, **self.data}

    @classmethod
    def from_row(
        cls, kind: str, game_id: int, payload: dict[str, Any], row_id: int | None, attempts: int = 0
    ) -> Notice:
        data = dict(payload)
        seat = data.pop("seat", None)
        return cls(NoticeKind(kind), game_id, seat, data, row_id, attempts)
