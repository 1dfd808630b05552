"""Delivering notices to Telegram: the outbox's sender.

One batch holds one game's pending notices. They are rendered from a snapshot of the game as it is
now and folded so a move costs few Bot API calls: the mover's message edited, then new group
messages, then the table edited once however many computer moves happened, and last what asks a
player to act — the next player's fresh private message (that is their notification; or, when the
same player goes on, their message edited with the new buttons) and reminders. Last, because the
message ids a batch posts are recorded when its report is written: a worker that dies before that
sends the batch again after the restart, and only the edits and group posts before the notification
come twice then, never the message that pings a player (unless it dies in the moment between that
send and the report).

The sender calls no use case: the outbox hands it a :class:`Plan` (the notices and the game as it
is now, read when they were claimed) and it hands back a :class:`Report` of what it did and learnt,
which the outbox writes with the delivered marks.

Faults: "message is not modified" is success; "message to edit not found" sends a new message and
reports it; a player who blocked the bot or never started it is reported and gets one group message
with a deep link; a migrated group is followed (and reported); a group that removed or muted the bot
is reported, and its game pauses. Anything else (network, a 429 the rate limiter gave up on) raises
:class:`PartialDelivery` with the report so far, and the outbox tries the rest again later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

from telegram import Bot, Message
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter

from shithead_bot.i18n import pick_language
from shithead_bot.service import (
    Actor,
    Announcement,
    GameSnapshot,
    GameStatus,
    MoveLine,
    Notice,
    NoticeKind,
    ReminderPayload,
    SeatSnapshot,
    Tidy,
    TidyPayload,
)
from shithead_bot.service.outbox import PartialDelivery
from shithead_bot.service.report import Plan, PrivateMessage, Report
from shithead_bot.telegram.botapi import BotApi, PlayerUnreachableError, TopicGoneError, is_outage
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.ratelimit import DELIVERING, retry_seconds
from shithead_bot.telegram.render import Page, Rendered, announce, lobby, private, table
from shithead_bot.telegram.render import photo as photos

log = logging.getLogger(__name__)

# A seat's own message.
PRIVATE = (NoticeKind.TURN, NoticeKind.SWAP, NoticeKind.MOVED, NoticeKind.RESULT, NoticeKind.HAND)
# The group hears a notification for a game's start and end, and when it waits on the group (the bot
# is back: Resume); everything else it is told quietly.
LOUD = frozenset(
    {
        Announcement.STARTED,
        Announcement.OVER,
        Announcement.ABORTED,
        Announcement.LOBBY_EXPIRED,
        Announcement.PAUSE_EXPIRED,
        Announcement.BOT_BACK,  # the game waits on someone pressing Resume
    }
)
ORPHAN_WINDOW = 8  # after a crash, how far back a re-sent message looks for an unrecorded copy
NO_PHOTOS = "not enough rights to send photos"
PHOTOS_REFUSED_SECONDS = 86400.0  # a chat that refused a picture gets the text table this long
MUTED = ("not enough rights to send text messages", "chat_write_forbidden", "chat_restricted")
T = TypeVar("T")
__all__ = ["Delivery", "PlayerUnreachableError"]


def passes(exc: BaseException) -> bool:
    """A Bot API failure that passes by itself: an outage (the network, a timeout, a 5xx) or a 429."""
    return isinstance(exc, RetryAfter) or is_outage(exc)


class Stopping(Exception):
    """The worker stops: no step is started after its deadline."""


class Steps:
    """Runs a batch's sending steps, reporting which notices went out."""

    def __init__(self, report: Report, stopping: Callable[[], bool] = lambda: False) -> None:
        self.game_id = report.game_id
        self.report = report
        self.done = report.sent
        self.stopping = stopping

    async def run(self, notices: Sequence[Notice], step: Coroutine[Any, Any, Any]) -> None:
        ids = [n.id for n in notices if n.id is not None]
        if self.stopping():  # the rest goes back to the outbox at once, no try counted
            step.close()
            raise PartialDelivery(self.report, Stopping("the worker stops"), timedelta(0))
        try:
            await step
        except BadRequest as exc:  # Telegram refuses this for good: sending it again would not help
            log.error("game %s: notices %s dropped, Telegram refused them: %s", self.game_id, ids, exc)
        except RetryAfter as exc:  # the send rate is used up for now
            raise PartialDelivery(self.report, exc, timedelta(seconds=retry_seconds(exc))) from exc
        except Exception as exc:  # a network error, a 429 the rate limiter gave up on…
            raise PartialDelivery(self.report, exc, transient=passes(exc)) from exc
        self.done.extend(ids)


@dataclass
class Batch:
    """The game being delivered, replaced by an updated snapshot as messages are posted, and the
    report of what was done."""

    game: GameSnapshot
    report: Report
    known: dict[int, set[int]]  # player id -> message ids the bot keeps in their private chat

    @classmethod
    def of(cls, game: GameSnapshot, known: dict[int, frozenset[int]] | None = None) -> Batch:
        return cls(game, Report(game.game.id), {p: set(ids) for p, ids in (known or {}).items()})

    def seat(self, number: int) -> SeatSnapshot:
        return self.game.seat(number)

    def private_message(self, number: int, message_id: int, version: int) -> None:
        """A seat's private message (and the keyboard version it shows), to remember."""
        self.game = self.game.with_seat(number, private_message_id=message_id, message_version=version)
        self.report.private[number] = PrivateMessage(message_id, version)
        player_id = self.seat(number).player_id
        if player_id is not None:
            self.known.setdefault(player_id, set()).add(message_id)

    def reminder_message(self, number: int, message_id: int | None) -> None:
        self.game = self.game.with_seat(number, reminder_message_id=message_id)
        self.report.reminders[number] = message_id
        player_id = self.seat(number).player_id
        if player_id is not None and message_id is not None:
            self.known.setdefault(player_id, set()).add(message_id)


class Delivery:
    """Sends one game's notices; an instance serves every game."""

    def __init__(self, bot: Bot, codec: Codec, bot_username: str, *, table_seconds: float = 5.0) -> None:
        self.api = BotApi(bot)
        self.codec = codec
        self.bot_username = bot_username
        self.table_seconds = table_seconds
        self._table_edited: dict[int, float] = {}  # game id -> monotonic time of its last table edit
        self._no_photos: dict[int, float] = {}  # chat id -> until when (monotonic) it refuses pictures
        self._called: dict[tuple[int, int], int] = {}  # (game, seat) -> the turn its player was called for
        self._stop_at: float | None = None  # monotonic time after which no step starts

    def stop_at(self, deadline: float) -> None:
        """The worker stops (SIGTERM): steps are started until ``deadline`` (monotonic) only; what is
        left then goes back to the outbox, for the next worker, with no try counted."""
        self._stop_at = deadline

    def _stopping(self) -> bool:
        return self._stop_at is not None and time.monotonic() >= self._stop_at

    async def __call__(self, plan: Plan) -> Report:
        """Send one game's notices; the report says what went out, what was put off to respect the
        group's rate, and the messages to remember.

        Notices go out step by step. A step Telegram refuses for good (a bad request) is logged and
        dropped — sending it again would fail again; a step that fails for a while (network, 429)
        stops the batch with :class:`PartialDelivery`, so what was sent is not sent twice.
        """
        b = Batch.of(plan.game, dict(plan.known))
        notices = list(plan.notices)
        delivering = DELIVERING.set(True)  # what this posts is the game's, recorded with the report
        try:
            b.report.deferred.update(await self._send_all(b, notices, Steps(b.report, self._stopping)))
        except PartialDelivery:
            raise
        except Exception as exc:  # outside a step: what was sent is reported all the same
            raise PartialDelivery(b.report, exc, transient=passes(exc)) from exc
        finally:
            DELIVERING.reset(delivering)
        put_off = {*b.report.deferred, *b.report.again}
        b.report.sent = [n.id for n in notices if n.id is not None and n.id not in put_off]
        return b.report

    async def _send_all(self, b: Batch, notices: list[Notice], steps: Steps) -> dict[int, timedelta]:
        """The notices, step by step, what asks a player to act last; returns the table notices put
        off to respect the group's rate."""
        edits, asks = self._by_seat(notices)
        for number, mine in edits:
            await steps.run(mine, self._seat_notices(b, number, mine))
        lobbies = [n for n in notices if n.kind == NoticeKind.LOBBY]
        if lobbies:
            await steps.run(lobbies, self._lobby(b))
        for notice in notices:
            if notice.kind == NoticeKind.ANNOUNCE:
                await steps.run([notice], self._announce(b, notice))
        deferred = await self._tables(b, [n for n in notices if n.kind == NoticeKind.TABLE], steps)
        for number, mine in asks:
            await steps.run(mine, self._seat_notices(b, number, mine))
        for notice in notices:
            if notice.kind == NoticeKind.REMINDER and notice.seat is not None:
                await steps.run([notice], self._reminder(b, notice.seat, notice))
        for notice in notices:
            if notice.kind == NoticeKind.TIDY:
                await steps.run([notice], self._tidy_again(b, notice))
        return deferred

    async def _tables(self, b: Batch, tables: list[Notice], steps: Steps) -> dict[int, timedelta]:
        """The table, edited once; put off (returned, notice id -> how long) while the group's rate
        is used up, so that it does not hold back the private messages that follow."""
        if not tables or b.game.status == GameStatus.LOBBY:
            return {}
        if not self._in_group(b) and not b.game.is_over:
            return {}  # a private game: the player's turn message is the table, until the end's ranking
        wait = self._table_wait(b.game)
        if wait <= 0:
            try:
                await steps.run(tables, self._table_anew(b) if any(n.repost for n in tables) else self._table(b))
            except PartialDelivery as exc:
                if not isinstance(exc.cause, RetryAfter) or exc.wait is None:
                    raise
                wait = exc.wait.total_seconds()
        if wait > 0:
            return {n.id: timedelta(seconds=wait) for n in tables if n.id is not None}
        if b.game.is_over and b.game.game.table_message_id and self._in_group(b):
            await self._tidy(b, Tidy.UNPIN, b.game.chat.id, b.game.game.table_message_id)  # the game is done
        return {}

    @staticmethod
    def _in_group(b: Batch) -> bool:
        return b.game.chat.kind != "private"

    @staticmethod
    def _by_seat(notices: Sequence[Notice]) -> tuple[list[tuple[int, list[Notice]]], list[tuple[int, list[Notice]]]]:
        """Each seat's turn, swap, result and "you moved" notices: the seats whose own moves are only
        told (an edit of the message they pressed), and the seats sent something new — a new turn
        first (the notification)."""
        by_seat: dict[int, list[Notice]] = {}
        for notice in notices:
            if notice.seat is not None and notice.kind in PRIVATE:
                by_seat.setdefault(notice.seat, []).append(notice)
        told = [item for item in by_seat.items() if all(n.kind == NoticeKind.MOVED and not n.auto for n in item[1])]
        rest = [item for item in by_seat.items() if item not in told]
        return told, sorted(rest, key=lambda item: all(n.kind != NoticeKind.TURN for n in item[1]))

    def _table_wait(self, game: GameSnapshot) -> float:
        """Seconds to wait before this game's table may be edited again (0: now). A finished or
        aborted game's last table edit is never put off."""
        if game.is_over or game.game.table_message_id is None:
            return 0.0
        last = self._table_edited.get(game.game.id)
        return 0.0 if last is None else max(0.0, last + self.table_seconds - time.monotonic())

    # ----------------------------------------------------------------- private messages

    def page_for(self, game: GameSnapshot, seat: SeatSnapshot | None = None) -> Page:
        """A player's private messages come in their own Telegram language, whatever the group's
        setting; the group's in the chat's (English unless set). A game in a player's own private
        chat speaks their language there too, unless they set that chat's."""
        if game.chat.kind == "private":
            own = seat or next((s for s in game.seats if s.player_id is not None), None)
            language = game.chat.language or pick_language(own.language if own is not None else None)
        elif seat is not None:
            language = pick_language(seat.language)
        else:
            language = game.chat.language or "en"
        return Page(game, self.codec, language, self.bot_username)

    async def _seat_notices(self, b: Batch, number: int, notices: list[Notice]) -> None:
        if b.seat(number).player_id is None:
            return
        others = [n for n in notices if n.kind != NoticeKind.HAND]
        try:
            before = b.seat(number).private_message_id
            if others:
                await self._seat(b, number, others)
            if len(others) < len(notices) and b.seat(number).private_message_id == before:
                await self._copy(b, number, retried=any(n.attempts > 1 for n in notices))
            kinds = {n.kind for n in others}
            if NoticeKind.RESULT in kinds or NoticeKind.TURN in kinds or not b.game.may_act(number):
                await self._drop_reminder(b, number)  # the turn it was about is over
        except PlayerUnreachableError:
            if others:  # a copy asked for: the asker is told, in the chat they asked in
                await self._contact(b, number)

    async def _copy(self, b: Batch, number: int, *, retried: bool) -> None:
        """A fresh copy of the seat's message, asked for again (HAND): with its buttons if it may
        act; the old copy loses them. Not sent if the batch gave the player a new message already."""
        seat = b.seat(number)
        page = self.page_for(b.game, seat)
        rendered = private.turn(page, seat) if b.game.state is not None else lobby.lobby(page)
        await self._send_private(b, number, rendered, seat.keyboard_version, retried=retried)

    async def _seat(self, b: Batch, number: int, notices: list[Notice]) -> None:
        """A seat's own messages. What asks the player to act, or tells them how the game ended, is
        a new message (it notifies); what they did is told by editing the message they pressed on;
        a move the bot made for them (it was forced) is told silently."""
        kinds = {n.kind for n in notices}
        version = max(n.version for n in notices)
        retried = any(n.attempts > 1 for n in notices)
        seat = b.seat(number)
        page = self.page_for(b.game, seat)
        moved = [n for n in notices if n.kind == NoticeKind.MOVED]
        acted = any(not n.auto for n in moved)  # on their message: a press, or their time ran out
        wants_keyboard = (NoticeKind.TURN in kinds or NoticeKind.SWAP in kinds) and b.game.may_act(number)
        if wants_keyboard and seat.keyboard_version != version:
            wants_keyboard = False  # an older notice: a newer one will bring the buttons
        if wants_keyboard and seat.message_version >= version and not moved:
            return  # this keyboard was delivered already (a retry after a crash)
        first = min((n.seq for n in moved), default=None)
        done = private.moved(page, seat, self._moves_since(b.game.moves, number, first))
        if NoticeKind.RESULT in kinds:  # the end: the game's last message to this player, a new one
            if acted or (seat.message_version and self._alone(b, number)):  # (a press left as it was)
                await self._edit_private(b, number, done, 0)
            await self._send_private(b, number, private.result(page, seat), 0)
        elif wants_keyboard and acted and self._goes_on(b, number):  # played again: edited in place
            await self._edit_private(b, number, private.turn(page, seat), version)
        elif wants_keyboard:  # a new turn, or the swap phase's first message: a new message, it notifies
            told = done if acted else None
            # The new turn tells what happened since the last one, own moves included: the message the
            # player just pressed (or, in a private game, any older one) goes rather than being edited,
            # so a move against quick computers costs one send in the chat's one a second.
            retire = acted or not self._in_group(b) or self._alone(b, number)
            turn = private.turn(page, seat)
            await self._send_private(b, number, turn, version, retried=retried, done=told, retire=retire)
        elif acted and self._comes_back(b, number):
            return  # the computers think; the next turn (or the end) replaces the message pressed on
        elif acted:
            await self._edit_private(b, number, done, version)
        elif moved:  # only moves the bot made for them: told in a new message that does not notify
            await self._send_private(b, number, done, 0, silent=True)

    @staticmethod
    def _alone(b: Batch, number: int) -> bool:
        """Every other seat is a computer's: this player's messages are the only ones that ask."""
        return all(s.computer_level for s in b.game.seats if s.number != number)

    @classmethod
    def _comes_back(cls, b: Batch, number: int) -> bool:
        """A press against computers only, in play: they move until this seat's next turn or the end,
        whose new message replaces the one pressed on — editing it first would cost a second send of
        the private chat's one a second before the player may act again."""
        seat = b.seat(number)
        return b.game.is_active and not b.game.in_swap_phase and seat.place is None and cls._alone(b, number)

    @staticmethod
    def _goes_on(b: Batch, number: int) -> bool:
        """The seat's own press is the log's last move, in play (a burn, a 10…): the same player goes
        on, on the message they pressed. Not after the swap phase, a timeout or a move made for them."""
        last = b.game.moves[-1] if b.game.moves else None
        swapping = last is not None and (last.move == "r" or last.move.startswith("x:"))
        return last is not None and last.seat == number and last.actor == Actor.HUMAN and not swapping

    @staticmethod
    def _moves_since(moves: Sequence[MoveLine], number: int, first: int | None = None) -> list[MoveLine]:
        """This seat's moves from ``first`` (a seq) on; without it, those of its last turn: everything
        it did since the previous player's move."""
        if first is not None:
            return [m for m in moves if m.seat == number and m.seq >= first]
        mine: list[MoveLine] = []
        for move in reversed(moves):
            if move.seat != number:
                if mine:
                    break
                continue
            mine.append(move)
        return list(reversed(mine))

    @staticmethod
    async def _private(b: Batch, player_id: int, call: Coroutine[Any, Any, Any]) -> Any:
        """A call into a player's private chat; if they blocked the bot, report that and say so."""
        try:
            return await call
        except PlayerUnreachableError:
            b.report.unreachable.add(player_id)
            raise

    async def _send_private(
        self,
        b: Batch,
        number: int,
        rendered: Rendered,
        version: int,
        *,
        retried: bool = False,
        silent: bool = False,
        done: Rendered | None = None,
        retire: bool = False,
    ) -> None:
        """A new private message for the seat. The previous one loses its buttons (``done``: it is
        edited to that instead; ``retire``: it is deleted — a delete does not count against the
        chat's send rate). ``retried``: an earlier attempt may have been sent before a crash,
        unrecorded — its keyboard is taken off too, so only this one stays live."""
        seat = b.seat(number)
        assert seat.player_id is not None
        send = self.api.send(seat.player_id, rendered, private=True, silent=silent)
        message: Message = await self._private(b, seat.player_id, send)
        # Recorded at once: whatever fails after this, the message is never sent again.
        b.private_message(number, message.message_id, version if rendered.buttons else 0)
        previous = seat.private_message_id
        if previous and previous != message.message_id:
            if retire:
                await self._tidy(b, Tidy.DELETE, seat.player_id, previous)
            elif done is not None:
                await self._tell_done(b, seat.player_id, previous, done)
            elif seat.message_version:
                await self._tidy(b, Tidy.DROP_KEYBOARD, seat.player_id, previous)  # it still shows buttons
        if retried and rendered.buttons:
            await self._drop_orphans(b, seat, message.message_id)

    async def _edit_private(
        self, b: Batch, number: int, rendered: Rendered, version: int, *, always: bool = False
    ) -> None:
        """Edit the seat's private message; with no message yet, send one if it has buttons (or
        ``always``)."""
        seat = b.seat(number)
        assert seat.player_id is not None
        if seat.private_message_id is None:
            if rendered.buttons or always:
                await self._send_private(b, number, rendered, version)
            return
        edit = self.api.edit(seat.player_id, seat.private_message_id, rendered, private=True)
        if await self._private(b, seat.player_id, edit) is None:  # gone: send it again
            await self._send_private(b, number, rendered, version)
            return
        shown = version if rendered.buttons else 0
        if shown != seat.message_version:
            b.private_message(number, seat.private_message_id, shown)

    async def _drop_orphans(self, b: Batch, seat: SeatSnapshot, new_id: int) -> None:
        """The bot cannot list a chat's messages, but ids in a private chat count up: an earlier
        attempt's message lies between the seat's previous message and this one. Take the keyboard
        off the bot's unknown messages there (a few at most; messages of other games, known from
        the plan, are kept)."""
        assert seat.player_id is not None
        known = b.known.get(seat.player_id, set())
        floor = max(seat.private_message_id or 0, new_id - ORPHAN_WINDOW)
        for message_id in range(new_id - 1, floor, -1):
            if message_id not in known:
                await self._tidy(b, Tidy.DROP_KEYBOARD, seat.player_id, message_id)

    async def _reminder(self, b: Batch, number: int, notice: Notice) -> None:
        """A new private message (a notification); the previous reminder is deleted, so they do not
        pile up. Only while that seat still has to act."""
        seat = b.seat(number)
        if seat.player_id is None or not b.game.may_act(number) or not isinstance(notice.payload, ReminderPayload):
            return
        rendered = private.reminder(self.page_for(b.game, seat), seat, notice.payload)
        try:
            message = await self._private(b, seat.player_id, self.api.send(seat.player_id, rendered, private=True))
        except PlayerUnreachableError:
            await self._contact(b, number)
            return
        b.reminder_message(number, message.message_id)
        if seat.reminder_message_id:
            await self._tidy(b, Tidy.DELETE, seat.player_id, seat.reminder_message_id)

    async def _drop_reminder(self, b: Batch, number: int) -> None:
        """A reminder whose turn is over is deleted: the newest message is the one that matters."""
        seat = b.seat(number)
        if seat.player_id is None or not seat.reminder_message_id:
            return
        b.reminder_message(number, None)
        await self._tidy(b, Tidy.DELETE, seat.player_id, seat.reminder_message_id)

    # ----------------------------------------------------------------- clean-ups

    async def _tell_done(self, b: Batch, chat_id: int, message_id: int, done: Rendered) -> None:
        """The message a player pressed on shows what they did (no buttons); if Telegram fails for a
        while, its buttons are taken off later, alone."""
        try:
            await self.api.edit(chat_id, message_id, done, private=True)
        except PlayerUnreachableError:
            return
        except Exception as exc:
            if not passes(exc):
                raise
            log.info("game %s: message %s not edited (%r); its buttons go later", b.game.game.id, message_id, exc)
            b.report.tidy.append(TidyPayload(Tidy.DROP_KEYBOARD, chat_id, message_id))

    async def _tidy(self, b: Batch, what: Tidy, chat_id: int, message_id: int) -> None:
        """A clean-up of a message that no longer matters. It never fails the step it belongs to (what
        that step sent must not go out again): a failure that passes makes it a TIDY notice, tried
        again alone later; any other failure drops it."""
        try:
            await self._clean(b, what, chat_id, message_id)
        except Exception as exc:
            if not passes(exc):
                log.warning("game %s: %s of message %s dropped (%r)", b.game.game.id, what, message_id, exc)
                return
            log.info("game %s: %s of message %s put off (%r)", b.game.game.id, what, message_id, exc)
            b.report.tidy.append(TidyPayload(what, chat_id, message_id))
            if what == Tidy.DELETE:  # meanwhile at least its buttons go, if Telegram lets the bot edit
                with contextlib.suppress(Exception):
                    await self._clean(b, Tidy.DROP_KEYBOARD, chat_id, message_id)

    async def _tidy_again(self, b: Batch, notice: Notice) -> None:
        """A clean-up that failed before, tried alone: while Telegram fails, reported to be tried again
        (the outbox gives it up after a few tries: the message then keeps what it shows)."""
        payload = notice.payload
        if not isinstance(payload, TidyPayload) or notice.id is None:
            return
        try:
            await self._clean(b, payload.what, payload.chat_id, payload.message_id)
        except Exception as exc:
            if passes(exc):
                b.report.again.append(notice.id)
            else:
                log.warning(
                    "game %s: %s of message %s given up (%r)", b.game.game.id, payload.what, payload.message_id, exc
                )

    async def _clean(self, b: Batch, what: Tidy, chat_id: int, message_id: int) -> None:
        if chat_id == b.game.chat.id:  # the group's: follows a migration
            await self._in_chat(b, lambda chat: self._clean_in(what, chat, message_id))
        else:
            await self._clean_in(what, chat_id, message_id)

    async def _clean_in(self, what: Tidy, chat_id: int, message_id: int) -> None:
        if what == Tidy.DELETE:
            await self.api.delete(chat_id, message_id)
        elif what == Tidy.UNPIN:
            await self.api.unpin(chat_id, message_id)
        else:
            await self.api.drop_keyboard(chat_id, message_id)

    # ----------------------------------------------------------------- group messages

    async def _lobby(self, b: Batch) -> None:
        rendered = lobby.lobby(self.page_for(b.game))
        game = b.game.game
        if game.lobby_message_id:
            edited = await self._in_chat(b, lambda chat: self.api.edit(chat, game.lobby_message_id or 0, rendered))
            if edited is not None or game.status != GameStatus.LOBBY:
                return
        message = await self._send_group(b, rendered)
        if message is not None:
            b.game = b.game.with_game(lobby_message_id=message.message_id)
            b.report.lobby_message_id = message.message_id

    async def _table_anew(self, b: Batch) -> None:
        """The table as a new message at the bottom of the chat (the bot is back after a removal):
        the old one, far up, is deleted."""
        old = b.game.game.table_message_id
        b.game = b.game.with_game(table_message_id=None)
        await self._table(b)
        if old and b.game.game.table_message_id != old:
            await self._tidy(b, Tidy.DELETE, b.game.chat.id, old)

    async def _table(self, b: Batch) -> None:
        """The group's table, edited in place: a photo with a caption where the chat wants a picture
        (a picture that cannot be drawn or uploaded gives the text table for that edit), else text."""
        self._table_edited[b.game.game.id] = time.monotonic()
        page = self.page_for(b.game)
        if b.game.chat.table_is_picture and not self._photos_refused(b.game.chat.id):
            photo = await self._draw(page)
            if photo is not None and await self._table_photo(b, photo):
                return
        await self._table_text(b, table.table(page))

    async def _draw(self, page: Page) -> photos.Photo | None:
        try:
            return await asyncio.to_thread(photos.table_photo, page)  # a few ms of CPU, off the loop
        except Exception:
            log.exception("game %s: the table picture could not be drawn; the text table instead", page.game_id)
            return None

    async def _table_photo(self, b: Batch, photo: photos.Photo) -> bool:
        """Edit the table photo, or post one (replacing a text table); False if Telegram refused it."""
        game = b.game.game
        png = photo.picture.png
        try:
            editable = game.table_message_id is not None and game.table_is_picture
            edit = lambda chat: self.api.edit_photo(chat, game.table_message_id or 0, png, photo.caption)  # noqa: E731
            if editable and await self._in_chat(b, edit):
                return True
            message = await self._send_group(b, photo.caption, png=png, silent=True)
        except BadRequest as exc:
            log.warning("game %s: the table picture was refused (%s); the text table instead", game.id, exc)
            if NO_PHOTOS in str(exc).lower():  # not this once: until the bot's rights change, or a day
                self._no_photos[b.game.chat.id] = time.monotonic() + PHOTOS_REFUSED_SECONDS
            return False
        if message is not None:
            await self._table_posted(b, message.message_id, picture=True)
        return True

    async def _table_text(self, b: Batch, rendered: Rendered) -> None:
        game, chat = b.game.game, b.game.chat
        message_id = game.table_message_id or 0
        if game.table_message_id and game.table_is_picture and chat.table_is_picture:
            # the picture failed: the photo keeps its picture and shows the text as caption
            edited = await self._in_chat(b, lambda chat_id: self.api.edit_caption(chat_id, message_id, rendered))
        elif game.table_message_id and not game.table_is_picture:
            edited = await self._in_chat(b, lambda chat_id: self.api.edit(chat_id, message_id, rendered))
        else:
            edited = None
        if edited:
            return
        message = await self._send_group(b, rendered, silent=True)
        if message is not None:
            await self._table_posted(b, message.message_id, picture=False)

    async def _table_posted(self, b: Batch, message_id: int, *, picture: bool) -> None:
        """A new table message: remembered first (a failure after this must not post it again); the
        one it replaces (of the other kind) is deleted; pinned, quietly, where the bot may pin."""
        game = b.game.game
        b.report.table_message_id, b.report.table_is_picture = message_id, picture
        b.game = b.game.with_game(table_message_id=message_id, table_is_picture=picture)
        old = game.table_message_id
        if old and old != message_id:
            await self._tidy(b, Tidy.DELETE, b.game.chat.id, old)
        if self._in_group(b) and b.game.is_active:
            await self.api.pin(b.game.chat.id, message_id)

    async def _announce(self, b: Batch, notice: Notice) -> None:
        rendered = announce.announce(self.page_for(b.game), notice)
        if rendered is not None:
            await self._send_group(b, rendered, silent=notice.announcement not in LOUD)

    async def _contact(self, b: Batch, number: int) -> None:
        """The group is asked to get a player the bot cannot write to, by a mention that notifies
        them — once a turn (a keyboard version), however many notices fail for them."""
        key, version = (b.game.game.id, number), b.seat(number).keyboard_version
        if not b.game.may_act(number) or self._called.get(key) == version:
            return
        self._called[key] = version
        await self._send_group(b, private.contact(self.page_for(b.game), b.seat(number)))

    async def _in_chat(self, b: Batch, call: Callable[[int], Awaitable[T]]) -> T:
        """A call into the game's chat; a group that became a supergroup (the service message was
        missed) is followed there, and the call made again (a message of the old group is not in
        the new one: an edit then finds nothing, and the message is posted anew)."""
        try:
            return await call(b.game.chat.id)
        except ChatMigrated as exc:
            self._migrated(b, exc.new_chat_id)
            return await call(exc.new_chat_id)

    @staticmethod
    def _migrated(b: Batch, new_id: int) -> None:
        log.info("game %s: its group became supergroup %s", b.game.game.id, new_id)
        b.report.migrated.append((b.game.chat.id, new_id))
        b.game = b.game.with_chat(id=new_id)

    def _photos_refused(self, chat_id: int) -> bool:
        until = self._no_photos.get(chat_id)
        return until is not None and time.monotonic() < until

    def rights_changed(self, chat_id: int) -> None:
        """The bot's rights in a chat changed: pictures are tried again there."""
        self._no_photos.pop(chat_id, None)

    async def _send_group(
        self, b: Batch, rendered: Rendered, *, png: bytes | None = None, silent: bool = False
    ) -> Message | None:
        """A new message in the game's chat (in its forum topic; a photo with ``rendered`` as its
        caption when ``png`` is given); follows a migration; a topic closed or deleted mid-game
        moves the game to General, once, saying so; None if the bot was removed."""
        try:
            return await self._post(b.game.chat.id, rendered, b.game.game.message_thread_id, png, silent)
        except TopicGoneError as exc:
            log.warning("game %s: its topic is gone (%s); it goes on in General", b.game.game.id, exc)
            b.report.topic_closed = True
            b.game = b.game.with_game(message_thread_id=None)
            await self.api.send(b.game.chat.id, announce.topic_gone(self.page_for(b.game)), silent=True)
            return await self._post(b.game.chat.id, rendered, None, png, silent)
        except ChatMigrated as exc:
            self._migrated(b, exc.new_chat_id)
            return await self._post(exc.new_chat_id, rendered, b.game.game.message_thread_id, png, silent)
        except Forbidden as exc:
            log.warning("chat %s: bot cannot post (%s); pausing its game", b.game.chat.id, exc)
            b.report.silenced.add(b.game.chat.id)
            return None
        except BadRequest as exc:
            if png is not None or not any(reason in str(exc).lower() for reason in MUTED):
                raise
            log.warning("chat %s: the bot may not send there (%s); pausing its game", b.game.chat.id, exc)
            b.report.silenced.add(b.game.chat.id)  # muted is as good as removed
            return None

    async def _post(
        self, chat_id: int, rendered: Rendered, thread_id: int | None, png: bytes | None, silent: bool
    ) -> Message:
        if png is None:
            return await self.api.send(chat_id, rendered, thread_id=thread_id, silent=silent)
        return await self.api.send_photo(chat_id, png, rendered, thread_id=thread_id, silent=silent)
