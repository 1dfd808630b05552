"""What waits on whom, watched as a game changes (just before its transaction commits).

A game's *waiting key* — its status, the people who must act now, the deadline — is taken when the
game is loaded and again before it commits. When it changed, every seat whose player keeps an inbox
message (``📥 Your games``) gets an INBOX notice: the outbox edits that message (the newest state
only). A player in digest mode who must act now, and did not before, gets their seat's ``nudge_at``
armed (at once: the
timer sweep then decides, in :func:`shithead_bot.service.inbox.fire_digests`, whether a digest may
go now or when). Nothing here reads the database: it only looks at the game in memory.

This module must not import :mod:`unit` (which calls it), hence the :class:`Watched` protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from engine import AnyState
from persistence.models import Game, Seat
from persistence.repo import SeatPlayer
from shithead_bot.service.autoplay import Notify
from shithead_bot.service.notices import NoticeKind, Payload
from shithead_bot.service.snapshot import ACTIVE

WaitingKey = tuple[str, frozenset[int], datetime | None]
DIGEST = Notify.DIGEST
DEFAULT_DIGEST = timedelta(hours=4)  # digest mode's interval unless the player chose one (/settings digest)


def digest_seconds(chosen: int | None) -> int:
    """A digest player's interval in seconds: theirs, else the default."""
    return chosen if chosen else int(DEFAULT_DIGEST.total_seconds())


@dataclass
class Waiting:
    """What a game's transaction keeps for this module, read when the game is loaded."""

    inboxes: dict[int, int] = field(default_factory=dict)  # seat number -> its player's inbox message
    digests: dict[int, int] = field(default_factory=dict)  # seat number -> its digest player's interval (s)
    before: WaitingKey | None = None  # the waiting key when loaded (None: a game made in this transaction)


class Watched(Protocol):
    """The parts of a game's transaction (``unit.GameTx``) watched here."""

    game: Game
    seats: list[Seat]
    state: AnyState | None
    now: datetime
    waiting: Waiting

    def stood_in(self, number: int) -> bool: ...

    def notify(self, kind: NoticeKind, seat: int | None = None, payload: Payload | None = None) -> None: ...


def waiting_key(tx: Watched) -> WaitingKey:
    """The game's status, the seats whose people must act themselves now (not a computer's, not one
    a stand-in plays), and its deadline — what a player's inbox shows of this game."""
    game, state = tx.game, tx.state
    if game.status not in ACTIVE or state is None or state.is_over:
        return (game.status, frozenset(), None)
    to_act = frozenset(n for n in state.seats_to_act() if tx.seats[n].player_id is not None and not tx.stood_in(n))
    return (game.status, to_act, game.deadline_at)


def look(tx: Watched, rows: Sequence[SeatPlayer]) -> Waiting:
    """When the game is loaded: its waiting key, its players' inboxes and digest intervals."""
    return Waiting(
        {row.seat.number: row.inbox_message_id for row in rows if row.inbox_message_id is not None},
        {row.seat.number: digest_seconds(row.digest_seconds) for row in rows if row.notify == DIGEST},
        waiting_key(tx),
    )


def watch(tx: Watched) -> None:
    """Before the commit: inboxes to edit, digests to arm."""
    before = tx.waiting.before
    if before is None:  # a game made in this transaction: its deal is watched in the next
        return
    after = waiting_key(tx)
    arm_digests(tx, after[1] - before[1])
    if after == before:
        return
    for seat in tx.seats:
        if seat.number in tx.waiting.inboxes and seat.player_id is not None:
            tx.notify(NoticeKind.INBOX, seat.number)


def arm_digests(tx: Watched, newly: frozenset[int]) -> None:
    """A digest-mode player who must act here now and did not before: the sweep looks at their
    digest at once (their seat's ``nudge_at``, brought by the game's ``due_at``)."""
    for number in sorted(newly):
        seat = tx.seats[number]
        if number in tx.waiting.digests and seat.nudge_at is None:
            seat.nudge_at = tx.now
            due = tx.game.due_at
            tx.game.due_at = tx.now if due is None or due > tx.now else due
