"""The sender: a plan's steps run against the Bot API, in order, and the report of what they did.

:class:`Delivery` serves every game (it holds the Bot API and the table's throttle); each plan is one
:class:`Run`, which takes the planner's steps one by one and keeps the game as it is now (a step may
post the message a later one edits) and the report. It keeps nothing per game or per chat: what it
decides for every worker — the turn an unreachable player was called for, a chat that refuses
pictures, the table's last edit — comes in the plan's snapshot and goes out in the report, so two
workers (or one restarted) decide as one.

Telegram's faults are the executor's: "message is not modified" is success; "message to edit not
found" sends a new message and reports it; a player who blocked the bot or never started it is
reported, their later steps are skipped, and the group gets one message with a deep link a turn; a
migrated group is followed (and reported); a group that removed or muted the bot is reported, and its
game pauses; a clean-up never fails its step (retried alone, later); a group step that may not wait is
put off while the group's rate is used up. A step Telegram refuses for good (400) is logged and
dropped; any other failure (network, a 429 the rate limiter gave up on) stops the run with
:class:`PartialDelivery`, carrying the report so far, and the outbox tries the rest again later.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Coroutine
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, NoReturn

from telegram import Bot, Message
from telegram.error import BadRequest, RetryAfter

from shithead_bot.i18n import pick_language
from shithead_bot.service import GameSnapshot, SeatSnapshot, Tidy, TidyPayload
from shithead_bot.service.report import PartialDelivery, Plan, PrivateMessage, Report
from shithead_bot.telegram.botapi import BotApi, PlayerUnreachableError, is_outage
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.delivery import steps as s
from shithead_bot.telegram.delivery.group import GroupChat
from shithead_bot.telegram.delivery.planner import plan_steps
from shithead_bot.telegram.ratelimit import DELIVERING, PAID, WAIT_AT_MOST, SendRate, retry_seconds
from shithead_bot.telegram.render import Page, Rendered

log = logging.getLogger(__name__)

_now = time.monotonic  # the clock of a claim's hold and of a stop (the tests replace it)
ORPHAN_WINDOW = 8  # after a crash, how far back a re-sent message looks for an unrecorded copy


def passes(exc: BaseException) -> bool:
    """A Bot API failure that passes by itself: an outage (the network, a timeout, a 5xx) or a 429."""
    return isinstance(exc, RetryAfter) or is_outage(exc)


class Stopping(Exception):
    """The worker stops: no step is started after its deadline."""


class Delivery:
    """Sends one game's notices; an instance serves every game."""

    def __init__(self, bot: Bot, codec: Codec, bot_username: str, *, table_seconds: float = 5.0) -> None:
        self.api = BotApi(bot)
        self.codec = codec
        self.bot_username = bot_username
        self.table_seconds = table_seconds  # a game's table is edited at most once in this many seconds
        self._stop_at: float | None = None  # monotonic time after which no step starts

    def stop_at(self, deadline: float) -> None:
        """The worker stops (SIGTERM): steps are started until ``deadline`` (monotonic) only; what is
        left then goes back to the outbox, for the next worker, with no try counted."""
        self._stop_at = deadline

    def stopping(self) -> bool:
        return self._stop_at is not None and _now() >= self._stop_at

    def stops_within(self, wait: timedelta) -> bool:
        return self._stop_at is not None and _now() + wait.total_seconds() >= self._stop_at

    def wait_at_most(self, waits: bool) -> float | None:
        """The longest a step may wait for the send rate (None: the rate's own limit): nothing for a
        group step that must not hold back what follows, and never past the worker's stop."""
        limit = None if waits else 0.0
        if self._stop_at is None:
            return limit
        left = max(0.0, self._stop_at - _now())
        return left if limit is None else min(limit, left)

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

    def table_wait(self, game: GameSnapshot, now: datetime) -> float:
        """Seconds to wait before this game's table may be edited again (0: now), counted from its
        last edit as stored (whichever worker made it). A finished or aborted game's last table edit
        is never put off."""
        last = game.game.table_edited_at
        if game.is_over or game.game.table_message_id is None or last is None:
            return 0.0
        return max(0.0, (last - now).total_seconds() + self.table_seconds)

    async def __call__(self, plan: Plan) -> Report:
        """Send one game's notices, step by step; the report says what went out, what was put off to
        respect the group's rate, and the messages to remember."""
        run = Run(self, plan)
        steps = plan_steps(plan, self.page_for)
        delivering = DELIVERING.set(True)  # what this posts is the game's, recorded with the report
        paid = PAID.set(None)
        try:
            await self._prepay(run, steps)
            for step in steps:
                await run.take(step)
        except PartialDelivery:
            raise
        except Exception as exc:  # outside a step: what was sent is reported all the same
            raise PartialDelivery(run.report, exc, transient=passes(exc)) from exc
        finally:
            PAID.reset(paid)
            DELIVERING.reset(delivering)
        put_off = {*run.report.deferred, *run.report.again}
        run.report.sent = [n.id for n in plan.notices if n.id is not None and n.id not in put_off]
        return run.report

    async def _prepay(self, run: Run, steps: tuple[s.Step, ...]) -> None:
        """The sends the steps will surely make, paid for in one reservation of the fleet's send rate
        when its buckets have the tokens now (else each send asks for itself, as before)."""
        limiter = getattr(self.api.bot, "rate_limiter", None)
        if not isinstance(limiter, SendRate):
            return
        chats: dict[int, int] = {}
        for step in steps:
            chat = self._sends_to(run, step)
            if chat is not None:
                chats[chat] = chats.get(chat, 0) + 1
        try:
            await limiter.prepay(chats)
        except Exception as exc:  # a nicety: each send asks for itself then
            log.warning("game %s: the plan's sends not paid at once (%r)", run.game.game.id, exc)

    def _sends_to(self, run: Run, step: s.Step) -> int | None:
        """The chat a step surely sends or edits in (None: it may not, or it calls nothing limited)."""
        if isinstance(step, s.SendPrivate | s.EditPrivate | s.SendReminder):
            if isinstance(step, s.SendPrivate) and step.unless_sent:
                return None
            return run.seat(step.number).player_id
        table_now = isinstance(step, s.EditTable) and self.table_wait(run.game, run.now()) <= 0
        if isinstance(step, s.PostGroup | s.EditLobby) or table_now:
            return run.game.chat.id
        return None


class Run:
    """One plan being sent: the game as it is now (replaced as messages are posted), the report."""

    def __init__(self, delivery: Delivery, plan: Plan) -> None:
        self.delivery = delivery
        self.api = delivery.api
        self.game = plan.game
        self.report = Report(plan.game_id)
        self.known = {p: set(ids) for p, ids in plan.known.items()}
        self.held_until = plan.held_until
        self.lease_ends = plan.lease_ends
        self.renewed: set[int] = set()  # seats sent a new private message in this run
        self.gone: set[int] = set()  # players the bot cannot write to
        self.group = GroupChat(self)

    def seat(self, number: int) -> SeatSnapshot:
        return self.game.seat(number)

    def now(self) -> datetime:
        """The run's time: when its plan was read, on the outbox's clock — the one that reads back
        what the run reports (the table's last edit, a chat's refusal), and puts notices off."""
        return self.game.now

    def _lapsed(self, where: str) -> NoReturn:
        log.warning("game %s: the claim ran out %s", self.game.game.id, where)
        raise PartialDelivery(self.report, Stopping("the claim ran out"), timedelta(0), lapsed=True)

    async def take(self, step: s.Step) -> None:
        """One step; its notices count as sent once it ran (or was refused for good)."""
        if self.delivery.stopping():  # the rest goes back to the outbox at once, no try counted
            raise PartialDelivery(self.report, Stopping("the worker stops"), timedelta(0))
        if _now() > self.held_until:  # the claim runs out: another worker may send these soon
            self._lapsed("mid-plan; the rest goes back to the outbox")
        waits = not (isinstance(step, s.PostGroup | s.EditTable) and not step.wait)
        limit = WAIT_AT_MOST.set(self.delivery.wait_at_most(waits))
        try:
            await self._one(step)
        except BadRequest as exc:  # Telegram refuses this for good: sending it again would not help
            log.error("game %s: notices %s dropped, Telegram refused them: %s", self.game.game.id, step.notices, exc)
        except RetryAfter as exc:  # the send rate is used up for now
            wait = timedelta(seconds=retry_seconds(exc))
            if self.delivery.stops_within(wait):  # the next worker sends it: no try counted
                raise PartialDelivery(self.report, Stopping("the worker stops"), timedelta(0)) from exc
            if not step.group or (isinstance(step, s.PostGroup) and step.wait):
                raise PartialDelivery(self.report, exc, wait) from exc
            self.report.deferred.update(dict.fromkeys(step.notices, wait))  # later: the rest goes now
            return
        except PartialDelivery:
            raise
        except Exception as exc:  # a network error, a 429 the rate limiter gave up on…
            raise PartialDelivery(self.report, exc, transient=passes(exc)) from exc
        finally:
            WAIT_AT_MOST.reset(limit)
        self.report.sent.extend(step.notices)

    async def _one(self, step: s.Step) -> None:
        match step:
            case s.SendPrivate() | s.EditPrivate() | s.SendReminder() | s.DropReminder():
                await self._private_step(step)
            case s.EditLobby():
                await self.group.lobby(step)
            case s.PostGroup():
                await self.group.post(step)
            case s.EditTable():
                await self.group.table(step)
            case s.Tidy():
                await self.tidy_again(step)
            case s.EditInbox() | s.SendInbox():
                await self._inbox_step(step)

    async def _private_step(self, step: s.SendPrivate | s.EditPrivate | s.SendReminder | s.DropReminder) -> None:
        player = self.seat(step.number).player_id
        if player is None or player in self.gone:
            return  # nobody there, or unreachable: reported once, the group told once
        try:
            match step:
                case s.SendPrivate():
                    await self.send_private(step)
                case s.EditPrivate():
                    await self.edit_private(step)
                case s.SendReminder():
                    await self.send_reminder(step)
                case s.DropReminder():
                    await self.drop_reminder(step.number)
        except PlayerUnreachableError:
            self.report.unreachable.add(player)
            self.gone.add(player)
            if not isinstance(step, s.DropReminder) and step.contact:
                await self.group.contact(step.number)

    # ------------------------------------------------------------------- a seat's private messages

    def keep_private(self, number: int, message_id: int, version: int) -> None:
        """A seat's private message (and the keyboard version it shows), to remember."""
        self.game = self.game.with_seat(number, private_message_id=message_id, message_version=version)
        self.report.private[number] = PrivateMessage(message_id, version)
        player_id = self.seat(number).player_id
        if player_id is not None:
            self.known.setdefault(player_id, set()).add(message_id)

    def keep_reminder(self, number: int, message_id: int | None) -> None:
        self.game = self.game.with_seat(number, reminder_message_id=message_id)
        self.report.reminders[number] = message_id
        player_id = self.seat(number).player_id
        if player_id is not None and message_id is not None:
            self.known.setdefault(player_id, set()).add(message_id)

    async def send_private(self, step: s.SendPrivate) -> None:
        """A new private message for the seat, recorded at once (whatever fails after this, it is
        never sent again); then the previous one is retired, and after a crash an unrecorded copy
        loses its buttons."""
        if step.unless_sent and step.number in self.renewed:
            return
        seat = self.seat(step.number)
        assert seat.player_id is not None
        send = self.api.send(seat.player_id, step.rendered, private=True, silent=step.muted)
        message: Message = await send
        if _now() > self.lease_ends:  # another worker may have sent it meanwhile: this copy must not stand
            if step.rendered.buttons:
                await self.tidy(Tidy.DROP_KEYBOARD, seat.player_id, message.message_id)
            self._lapsed(f"while message {message.message_id} was on its way; it is left without buttons")
        self.keep_private(step.number, message.message_id, step.version if step.rendered.buttons else 0)
        if step.nudge is not None:
            self.report.nudges[step.number] = step.nudge
        self.renewed.add(step.number)
        previous = seat.private_message_id
        if previous and previous != message.message_id:
            await self._retire(seat, previous, step)
        if step.orphans:
            await self._drop_orphans(seat, message.message_id)

    async def _retire(self, seat: SeatSnapshot, previous: int, step: s.SendPrivate) -> None:
        assert seat.player_id is not None
        if step.retire == s.Retire.DELETE:
            await self.tidy(Tidy.DELETE, seat.player_id, previous)
        elif step.retire == s.Retire.TELL and step.done is not None:
            await self._tell_done(seat.player_id, previous, step.done)
        elif step.retire != s.Retire.KEEP and seat.message_version:
            await self.tidy(Tidy.DROP_KEYBOARD, seat.player_id, previous)  # it still shows buttons

    async def edit_private(self, step: s.EditPrivate) -> None:
        """Edit the seat's private message; with no message yet, send one if it has buttons (or
        ``always``); gone, send it anew."""
        seat = self.seat(step.number)
        assert seat.player_id is not None
        anew = s.SendPrivate((), number=step.number, rendered=step.rendered, version=step.version)
        if seat.private_message_id is None:  # the copy they pressed was never recorded: its buttons go
            if step.rendered.buttons or step.always:
                await self.send_private(replace(anew, orphans=bool(step.rendered.buttons) and bool(self.known)))
            return
        if await self.api.edit(seat.player_id, seat.private_message_id, step.rendered, private=True) is None:
            await self.send_private(anew)  # gone: sent again
            return
        shown = step.version if step.rendered.buttons else 0
        if shown != seat.message_version:
            self.keep_private(step.number, seat.private_message_id, shown)

    async def _drop_orphans(self, seat: SeatSnapshot, new_id: int) -> None:
        """The bot cannot list a chat's messages, but ids in a private chat count up: an earlier
        attempt's message lies between the seat's previous message and this one. Take the keyboard
        off the unknown messages there (a few at most; the plan's known ids — other games', the
        player's own, the bot's answers — are kept)."""
        assert seat.player_id is not None
        known = self.known.get(seat.player_id, set())
        floor = max(seat.private_message_id or 0, new_id - ORPHAN_WINDOW)
        for message_id in range(new_id - 1, floor, -1):
            if message_id not in known:
                await self.tidy(Tidy.DROP_KEYBOARD, seat.player_id, message_id)

    async def send_reminder(self, step: s.SendReminder) -> None:
        """A new private message (a notification); the previous reminder is deleted, so they do not
        pile up."""
        seat = self.seat(step.number)
        assert seat.player_id is not None
        message = await self.api.send(seat.player_id, step.rendered, private=True)
        self.keep_reminder(step.number, message.message_id)
        if seat.reminder_message_id:
            await self.tidy(Tidy.DELETE, seat.player_id, seat.reminder_message_id)

    async def drop_reminder(self, number: int) -> None:
        """A reminder whose turn is over is deleted: the newest message is the one that matters."""
        seat = self.seat(number)
        if seat.player_id is not None and seat.reminder_message_id:
            self.keep_reminder(number, None)
            await self.tidy(Tidy.DELETE, seat.player_id, seat.reminder_message_id)

    # ------------------------------------------------------------------- a player's inbox

    async def _inbox_step(self, step: s.EditInbox | s.SendInbox) -> None:
        """The inbox edited in place (gone: forgotten, not sent again), or sent anew for a digest,
        notifying, the previous one retired. Never a group step: nothing waits behind the group."""
        player = step.player_id
        if player in self.gone:
            return
        try:
            if isinstance(step, s.EditInbox):
                if await self.api.edit(player, step.message_id, step.rendered, private=True) is None:
                    self.report.inbox_gone[player] = step.message_id
                return
            message: Message = await self.api.send(player, step.rendered, private=True)
            self.report.inbox_sent[player] = (message.message_id, step.previous)
            self.known.setdefault(player, set()).add(message.message_id)
            if step.previous and step.previous != message.message_id:
                await self._retire_inbox(player, step.previous)
        except PlayerUnreachableError:
            self.report.unreachable.add(player)
            self.gone.add(player)

    async def _retire_inbox(self, player: int, message_id: int) -> None:
        """One live inbox: the old one goes, and its buttons with it should Telegram refuse to delete
        it (older than two days)."""
        await self.tidy(Tidy.DELETE, player, message_id)
        await self.tidy(Tidy.DROP_KEYBOARD, player, message_id)

    # ------------------------------------------------------------------- clean-ups

    async def _tell_done(self, chat_id: int, message_id: int, done: Rendered) -> None:
        """The message a player pressed on shows what they did (no buttons); if Telegram fails for a
        while, its buttons are taken off later, alone."""
        try:
            await self.api.edit(chat_id, message_id, done, private=True)
        except PlayerUnreachableError:
            return
        except Exception as exc:
            if not passes(exc):
                raise
            log.info("game %s: message %s not edited (%r); its buttons go later", self.game.game.id, message_id, exc)
            self.report.tidy.append(TidyPayload(Tidy.DROP_KEYBOARD, chat_id, message_id))

    async def tidy(self, what: Tidy, chat_id: int, message_id: int) -> None:
        """A clean-up of a message that no longer matters. It never fails the step it belongs to (what
        that step sent must not go out again): a failure that passes makes it a TIDY notice, tried
        again alone later; any other failure drops it."""
        try:
            await self._clean(what, chat_id, message_id)
        except Exception as exc:
            if not passes(exc):
                log.warning("game %s: %s of message %s dropped (%r)", self.game.game.id, what, message_id, exc)
                return
            log.info("game %s: %s of message %s put off (%r)", self.game.game.id, what, message_id, exc)
            self.report.tidy.append(TidyPayload(what, chat_id, message_id))
            if what == Tidy.DELETE:  # meanwhile at least its buttons go, if Telegram lets the bot edit
                with contextlib.suppress(Exception):
                    await self._clean(Tidy.DROP_KEYBOARD, chat_id, message_id)

    async def tidy_again(self, step: s.Tidy) -> None:
        """A clean-up that failed before, tried alone: while Telegram fails, reported to be tried again
        (the outbox gives it up after a few tries: the message then keeps what it shows)."""
        payload = step.payload
        try:
            await self._clean(payload.what, payload.chat_id, payload.message_id)
        except Exception as exc:
            if passes(exc):
                self.report.again.extend(step.notices)
            else:
                log.warning(
                    "game %s: %s of message %s given up (%r)", self.game.game.id, payload.what, payload.message_id, exc
                )

    async def _clean(self, what: Tidy, chat_id: int, message_id: int) -> None:
        if chat_id == self.game.chat.id:  # the group's: follows a migration
            await self.group.in_chat(lambda chat: self._clean_in(what, chat, message_id))
        else:
            await self._clean_in(what, chat_id, message_id)

    def _clean_in(self, what: Tidy, chat_id: int, message_id: int) -> Coroutine[Any, Any, None]:
        if what == Tidy.DELETE:
            return self.api.delete(chat_id, message_id)
        if what == Tidy.UNPIN:
            return self.api.unpin(chat_id, message_id)
        if what == Tidy.PIN:
            return self.api.pin(chat_id, message_id)
        return self.api.drop_keyboard(chat_id, message_id)
