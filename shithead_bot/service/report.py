"""Plan, then send: what the outbox hands a sender, and what the sender hands back.

A :class:`Plan` is one game's claimed notices with everything needed to render and send them, read
in the session that claimed them: the game as it is now with its newest moves, and the message ids
the bot keeps in its players' private chats. The sender renders and sends, and calls nothing back;
what it learnt on the way — the messages it posted and must be able to edit later, the players it
could not reach, the chat that migrated, the group that removed or muted the bot — and what it
decided for every worker — the turn it asked the group to get an unreachable player, a chat that
refuses pictures, when it last edited the table — comes back in a :class:`Report`, which the outbox
writes in the transaction that marks the notices delivered (also when the sender stopped half-way:
what went out is recorded with its delivered marks). So the next plan, whichever worker claims it,
knows what this one decided.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from shithead_bot.service.inbox import Inbox
from shithead_bot.service.notices import Notice, TidyPayload
from shithead_bot.service.snapshot import GameSnapshot


@dataclass(frozen=True)
class Plan:
    """One game's notices to send now, in order, and what rendering and sending them needs."""

    game: GameSnapshot  # the game, its seats and chat, with its newest moves
    notices: tuple[Notice, ...]
    # player id -> the message ids recorded in their private chat (their open games): what
    # an orphan keyboard of a crashed attempt is told apart from
    known: Mapping[int, frozenset[int]] = field(default_factory=dict)
    # until when (time.monotonic()) a step may start: a margin before the claim's lease ends, after
    # which another worker may claim and send the notices (a copy sent after it must not stand)
    held_until: float = float("inf")
    lease_ends: float = float("inf")
    # the claim's end as the outbox stores it: the report is written only while it is still this
    # (else the lease ran out and another worker claimed the notices: its report is the one that stands)
    claimed_until: datetime | None = None
    # player id -> their inbox as it is now (only for the players of the plan's INBOX notices)
    inboxes: Mapping[int, Inbox] = field(default_factory=dict)

    @property
    def game_id(self) -> int:
        return self.game.game.id

    @property
    def now(self) -> datetime:
        """The plan's time (the outbox's clock when it was claimed): what "the player is looking"
        and a nudge's time are reckoned from, so the planner stays pure."""
        return self.game.now

    @property
    def retried(self) -> bool:
        """An earlier attempt may have sent some of these before it died, unrecorded."""
        return any(n.attempts > 1 for n in self.notices)


@dataclass(frozen=True)
class Nudge:
    """A turn sent silently (its player was looking): one notifying nudge at ``at`` if the seat
    still holds keyboard ``version`` then."""

    at: datetime
    version: int


@dataclass(frozen=True)
class PrivateMessage:
    """A seat's private game message and the keyboard version it shows (0: no buttons)."""

    message_id: int
    version: int


@dataclass
class Report:
    """What a sender did with a plan (or a /hand): filled in as it goes, written by the outbox.

    Message ids are the newest per seat or per game: a batch that posts a seat's message twice
    reports the second. None as a reminder id: the reminder was deleted.
    """

    game_id: int
    sent: list[int] = field(default_factory=list)  # notice ids that went out (or were dropped for good)
    deferred: dict[int, timedelta] = field(default_factory=dict)  # notice id -> how long it waits (the group's rate)
    private: dict[int, PrivateMessage] = field(default_factory=dict)  # seat -> its private message
    reminders: dict[int, int | None] = field(default_factory=dict)  # seat -> its reminder message
    nudges: dict[int, Nudge] = field(default_factory=dict)  # seat -> the nudge after its silent turn
    lobby_message_id: int | None = None  # a new lobby message
    table_message_id: int | None = None  # a new table message…
    table_is_picture: bool | None = None  # …and whether it is a photo
    table_edited_at: datetime | None = None  # the table was edited then: the next edit waits after it
    topic_closed: bool = False  # the game's forum topic is gone: it goes on in General
    unreachable: set[int] = field(default_factory=set)  # player ids that blocked the bot or never started it
    migrated: list[tuple[int, int]] = field(default_factory=list)  # (old chat id, new): a group became a supergroup
    silenced: set[int] = field(default_factory=set)  # chat ids that removed or muted the bot: their game pauses
    called: dict[int, int] = field(default_factory=dict)  # seat -> the keyboard version the group was asked to get it
    photos_refused: dict[int, datetime] = field(default_factory=dict)  # chat id -> text tables until then
    # clean-ups that failed for a while (a delete, a keyboard taken off, an unpin): each is written as a
    # TIDY notice and tried again alone, so that what went out before it is never sent again
    tidy: list[TidyPayload] = field(default_factory=list)
    again: list[int] = field(default_factory=list)  # TIDY notice ids that failed again: later, after a pause
    # player id -> (their new inbox message, the one it replaced): a digest sent the inbox anew
    inbox_sent: dict[int, tuple[int, int | None]] = field(default_factory=dict)
    inbox_gone: dict[int, int] = field(default_factory=dict)  # player id -> their inbox message, deleted: forgotten

    def game_messages(self) -> dict[str, int | bool | datetime | None]:
        """The game row's message columns to change."""
        columns: dict[str, int | bool | datetime | None] = {}
        if self.lobby_message_id is not None:
            columns["lobby_message_id"] = self.lobby_message_id
        if self.table_message_id is not None:
            columns["table_message_id"] = self.table_message_id
        if self.table_is_picture is not None:
            columns["table_is_picture"] = self.table_is_picture
        if self.table_edited_at is not None:
            columns["table_edited_at"] = self.table_edited_at
        if self.topic_closed:
            columns["message_thread_id"] = None
        return columns

    @property
    def empty(self) -> bool:
        """Nothing to write but the notices' marks."""
        return not (
            self.private
            or self.reminders
            or self.nudges
            or self.inbox_sent
            or self.inbox_gone
            or self.game_messages()
            or self.unreachable
            or self.migrated
            or self.silenced
            or self.called
            or self.photos_refused
            or self.tidy
        )


class PartialDelivery(Exception):
    """A sender got some of a plan's notices out before failing: its report says which (those count
    as delivered) and what it learnt meanwhile (written all the same)."""

    def __init__(
        self,
        report: Report,
        cause: BaseException,
        wait: timedelta | None = None,
        *,
        transient: bool = False,
        lapsed: bool = False,
    ) -> None:
        super().__init__(f"{len(report.sent)} sent, then {cause!r}")
        self.report = report
        self.cause = cause
        self.wait = wait  # the send rate is used up: try the rest after this, and it is no failure
        self.transient = transient  # the failure passes (an outage): keep trying for a day
        self.lapsed = lapsed  # the claim ran out: the rest may be another worker's now, left as it is

    @property
    def done(self) -> list[int]:
        return self.report.sent
