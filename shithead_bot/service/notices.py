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
    ANNOUNCE = "announce"  # a new group message: game started, someone went out, the end…
    REMINDER = "reminder"  # a private reminder before a deadline (or a nudge, or a grace period)


@dataclass(frozen=True)
class Notice:
    kind: NoticeKind
    game_id: int
    seat: int | None = None
    data: dict[str, Any] = field(default_factory=dict)
    id: int | None = None  # the outbox row, once stored
    attempts: int = 0  # delivery attempts so far, this one included (> 1: an earlier one may have sent it)

    def payload(self) -> dict[str, Any]:
        return {"seat": self.seat, **self.data}

    @classmethod
    def from_row(
        cls, kind: str, game_id: int, payload: dict[str, Any], row_id: int | None, attempts: int = 0
    ) -> Notice:
        data = dict(payload)
        seat = data.pop("seat", None)
        return cls(NoticeKind(kind), game_id, seat, data, row_id, attempts)
