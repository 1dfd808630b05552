"""What the sender will do, as values: the steps a plan becomes, each a frozen record of one Bot
API action (or a few that belong together) and the notices it delivers.

The planner (``planner.py``) turns a plan into an ordered tuple of steps without I/O; the executor
(``executor.py``) runs them against the Bot API and fills the report. Each step says which parts of
the :class:`~shithead_bot.service.report.Report` it may fill (``fills``), so a reader sees where a
message id or an unreachable player comes from without reading the executor.

A seat's private message is named by its seat, not by a message id: the executor knows which
message the seat shows now (a step before may have posted a new one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar

from shithead_bot.service import TidyPayload
from shithead_bot.service.report import Nudge
from shithead_bot.telegram.render import Rendered


class Retire(StrEnum):
    """What becomes of the seat's previous message when a new one is sent."""

    KEEP = "keep"  # it shows no buttons: left as it is
    DROP_KEYBOARD = "drop_keyboard"  # its buttons go
    DELETE = "delete"  # it goes (the new one tells everything it told)
    TELL = "tell"  # edited to tell what the player did (``done``), without buttons


@dataclass(frozen=True)
class Step:
    """One step of a plan; ``notices``: the ids it delivers (reported sent once it ran)."""

    notices: tuple[int, ...]
    fills: ClassVar[tuple[str, ...]] = ()

    @property
    def seat(self) -> int | None:
        return None

    @property
    def asks(self) -> bool:
        """A new message that asks its player to act (or tells how the game ended): it notifies."""
        return False

    @property
    def group(self) -> bool:
        """A call into the game's chat, paid from the group's send rate."""
        return False


@dataclass(frozen=True)
class SendPrivate(Step):
    """A new message in a seat's private chat; the previous one is retired (``done``: what it is
    edited to when ``retire`` is TELL). ``orphans``: an earlier attempt may have sent a copy
    unrecorded (a retried plan): its buttons go too. ``unless_sent``: a copy asked for again, not
    sent if this plan already gave the seat a new message."""

    number: int = 0
    rendered: Rendered = field(default_factory=lambda: Rendered(""))
    version: int = 0  # the keyboard version its buttons carry (0: none)
    silent: bool = False
    retire: Retire = Retire.DROP_KEYBOARD
    done: Rendered | None = None
    orphans: bool = False
    unless_sent: bool = False
    contact: bool = True  # the player cannot be reached: the group is asked to get them (once a turn)
    # a turn for a player who is looking (they pressed in this chat a moment ago): sent without a
    # notification all the same, and one nudge that notifies at this time if the turn is not taken
    nudge: Nudge | None = None
    digest: bool = False  # its player chose digest mode: it asks all the same, without a notification
    fills: ClassVar[tuple[str, ...]] = ("private", "unreachable", "tidy", "nudges")

    @property
    def muted(self) -> bool:
        """Sent with ``disable_notification``."""
        return self.silent or self.nudge is not None or self.digest

    @property
    def seat(self) -> int | None:
        return self.number

    @property
    def asks(self) -> bool:
        return bool(self.rendered.buttons) and not self.silent


@dataclass(frozen=True)
class EditPrivate(Step):
    """The seat's private message edited in place (what they did, or the same player going on);
    with no message, or one gone, a new one is sent if it has buttons (or ``always``)."""

    number: int = 0
    rendered: Rendered = field(default_factory=lambda: Rendered(""))
    version: int = 0
    always: bool = False
    contact: bool = True
    fills: ClassVar[tuple[str, ...]] = ("private", "unreachable")

    @property
    def seat(self) -> int | None:
        return self.number


@dataclass(frozen=True)
class SendReminder(Step):
    """A reminder (a notification) in the seat's private chat; the previous reminder is deleted."""

    number: int = 0
    rendered: Rendered = field(default_factory=lambda: Rendered(""))
    contact: bool = True
    fills: ClassVar[tuple[str, ...]] = ("reminders", "unreachable", "tidy")

    @property
    def seat(self) -> int | None:
        return self.number

    @property
    def asks(self) -> bool:
        return True


@dataclass(frozen=True)
class DropReminder(Step):
    """The seat's reminder is deleted: the turn it was about is over."""

    number: int = 0
    fills: ClassVar[tuple[str, ...]] = ("reminders", "tidy")

    @property
    def seat(self) -> int | None:
        return self.number


@dataclass(frozen=True)
class EditLobby(Step):
    """The lobby message edited (posted anew while the game is a lobby and it is gone)."""

    rendered: Rendered = field(default_factory=lambda: Rendered(""))
    post_if_gone: bool = True
    fills: ClassVar[tuple[str, ...]] = ("lobby_message_id", "migrated", "silenced", "topic_closed")

    @property
    def group(self) -> bool:
        return True


@dataclass(frozen=True)
class PostGroup(Step):
    """A new message in the game's chat (an announcement). ``loud``: it notifies the group.
    ``wait``: it may wait for the group's send rate; otherwise, when the rate is used up, it is put off
    (reported deferred) so that nothing after it waits."""

    rendered: Rendered = field(default_factory=lambda: Rendered(""))
    loud: bool = False
    wait: bool = True
    fills: ClassVar[tuple[str, ...]] = ("migrated", "silenced", "topic_closed", "deferred")

    @property
    def group(self) -> bool:
        return True


@dataclass(frozen=True)
class EditTable(Step):
    """The group's table edited once, however many moves it tells (``repost``: posted anew at the
    bottom of the chat); put off while the table's throttle or the group's rate says so. ``unpin``: the
    game is over, its table is unpinned."""

    repost: bool = False
    unpin: bool = False
    wait: bool = True
    fills: ClassVar[tuple[str, ...]] = ("table_message_id", "table_is_picture", "deferred", "migrated", "silenced")

    @property
    def group(self) -> bool:
        return True


@dataclass(frozen=True)
class EditInbox(Step):
    """A player's inbox message edited in place (no notification); gone, it is forgotten, not sent
    again. Named by the player: the inbox is theirs, not a seat's."""

    player_id: int = 0
    message_id: int = 0
    rendered: Rendered = field(default_factory=lambda: Rendered(""))
    fills: ClassVar[tuple[str, ...]] = ("inbox_gone", "unreachable")


@dataclass(frozen=True)
class SendInbox(Step):
    """Digest mode: the inbox sent anew, with a notification (at most once an interval, decided by
    the service); the previous one is retired (deleted, else its buttons go)."""

    player_id: int = 0
    previous: int | None = None
    rendered: Rendered = field(default_factory=lambda: Rendered(""))
    fills: ClassVar[tuple[str, ...]] = ("inbox_sent", "unreachable")


@dataclass(frozen=True)
class Skip(Step):
    """Notices that need nothing sent now (a reminder whose turn is over, a table a lobby does not
    have…): delivered as they are."""


@dataclass(frozen=True)
class Tidy(Step):
    """A clean-up that failed before, tried again alone (a TIDY notice)."""

    payload: TidyPayload = field(default_factory=TidyPayload)
    fills: ClassVar[tuple[str, ...]] = ("again",)


PRIVATE_STEPS = (SendPrivate, EditPrivate, SendReminder, DropReminder)
