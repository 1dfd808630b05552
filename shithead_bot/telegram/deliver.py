"""Delivering notices to Telegram: the outbox's sender.

One batch holds one game's pending notices. They are rendered from the game's current state and
folded so a move costs few Bot API calls: the next player's fresh private message first (that is
their notification), then the mover's message edited (or, when the same player goes on, edited
with the new buttons), then new group messages, then the table edited once however many computer
moves happened.

Faults: "message is not modified" is success; "message to edit not found" sends a new message and
remembers it; a player who blocked the bot or never started it gets one group message with a deep
link; a migrated group is followed; a group that removed the bot pauses its game. Anything else
(network, a 429 the rate limiter gave up on) raises, and the outbox tries again later.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Coroutine, Sequence
from datetime import datetime, timedelta
from typing import Any, NoReturn

from telegram import Bot, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter

from persistence.models import Move as MoveRow
from persistence.models import Seat, utcnow
from shithead_bot.i18n import pick_language
from shithead_bot.service import Ctx, GameService, Notice, NoticeKind
from shithead_bot.service.outbox import PartialDelivery
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.ratelimit import retry_seconds
from shithead_bot.telegram.render import Rendered, Renderer, fit_lines

log = logging.getLogger(__name__)

NOT_MODIFIED = "message is not modified"
NOT_FOUND = ("message to edit not found", "message can't be edited", "message_id_invalid")
ORPHAN_WINDOW = 8  # after a crash, how far back a re-sent message looks for an unrecorded copy


class Steps:
    """Runs a batch's sending steps, remembering which notices went out."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self.done: list[int] = []

    async def run(self, notices: Sequence[Notice], step: Coroutine[Any, Any, Any]) -> None:
        ids = [n.id for n in notices if n.id is not None]
        try:
            await step
        except BadRequest as exc:  # Telegram refuses this for good: sending it again would not help
            log.error("game %s: notices %s dropped, Telegram refused them: %s", self.game_id, ids, exc)
        except RetryAfter as exc:  # the send rate is used up for now
            raise PartialDelivery(self.done, exc, timedelta(seconds=retry_seconds(exc))) from exc
        except Exception as exc:  # a network error, a 429 the rate limiter gave up on, the database…
            raise PartialDelivery(self.done, exc) from exc
        self.done.extend(ids)


class PlayerUnreachableError(Exception):
    """The bot may not message this player privately (never started, or blocked)."""


class Delivery:
    """Sends one game's notices; an instance serves every game."""

    def __init__(
        self, bot: Bot, service: GameService, codec: Codec, bot_username: str, *, table_seconds: float = 3.0
    ) -> None:
        self.bot = bot
        self.service = service
        self.codec = codec
        self.bot_username = bot_username
        self.table_seconds = table_seconds
        self._table_edited: dict[int, float] = {}  # game id -> monotonic time of its last table edit

    async def __call__(self, batch: list[Notice]) -> dict[int, datetime] | None:
        """Send one game's notices; returns the table notices put off to respect the group's rate.

        Notices go out step by step. A step Telegram refuses for good (a bad request) is logged and
        dropped — sending it again would fail again; a step that fails for a while (network, 429,
        the database) stops the batch with :class:`PartialDelivery`, so what was sent is not sent twice.
        """
        ctx, moves = await self.service.game_and_moves(batch[0].game_id)
        group = Renderer(ctx, self.codec, ctx.chat.language or "en", self.bot_username)
        steps = Steps(ctx.game.id or 0)
        for number, notices in self._by_seat(batch):
            await steps.run(notices, self._seat_notices(ctx, ctx.seat(number), notices, moves))
        for notice in batch:
            if notice.kind == NoticeKind.REMINDER and notice.seat is not None:
                await steps.run([notice], self._reminder(ctx, ctx.seat(notice.seat), notice))
        lobby = [n for n in batch if n.kind == NoticeKind.LOBBY]
        if lobby:
            await steps.run(lobby, self._lobby(ctx, group))
        for notice in batch:
            if notice.kind == NoticeKind.ANNOUNCE:
                await steps.run([notice], self._announce(ctx, group, notice))
        table = [n for n in batch if n.kind == NoticeKind.TABLE]
        if not table or ctx.game.status == "lobby":
            return None
        wait = self._table_wait(ctx)
        if wait > 0:
            until = utcnow() + timedelta(seconds=wait)
            return {n.id: until for n in table if n.id is not None}
        await steps.run(table, self._table(ctx, group, moves))
        return None

    @staticmethod
    def _by_seat(batch: Sequence[Notice]) -> list[tuple[int, list[Notice]]]:
        """Each seat's turn, swap and "you moved" notices; seats with a new turn first (the notification)."""
        by_seat: dict[int, list[Notice]] = {}
        for notice in batch:
            if notice.seat is not None and notice.kind in (NoticeKind.TURN, NoticeKind.SWAP, NoticeKind.MOVED):
                by_seat.setdefault(notice.seat, []).append(notice)
        return sorted(by_seat.items(), key=lambda item: all(n.kind != NoticeKind.TURN for n in item[1]))

    def _table_wait(self, ctx: Ctx) -> float:
        """Seconds to wait before this game's table may be edited again (0: now). A finished or
        aborted game's last table edit is never put off."""
        if ctx.game.status in ("finished", "aborted") or ctx.game.table_message_id is None:
            return 0.0
        last = self._table_edited.get(ctx.game.id or 0)
        return 0.0 if last is None else max(0.0, last + self.table_seconds - time.monotonic())

    # ----------------------------------------------------------------- private messages

    def _renderer_for(self, ctx: Ctx, seat: Seat) -> Renderer:
        """A player's private messages come in their own Telegram language (a chat setting overrides)."""
        language = ctx.chat.language or pick_language(ctx.languages.get(seat.number))
        return Renderer(ctx, self.codec, language, self.bot_username)

    async def _seat_notices(self, ctx: Ctx, seat: Seat, notices: list[Notice], moves: Sequence[MoveRow]) -> None:
        if seat.player_id is None:
            return
        kinds = {n.kind for n in notices}
        version = max(int(n.data.get("version", 0)) for n in notices)
        retried = any(n.attempts > 1 for n in notices)
        try:
            await self._seat(ctx, seat, kinds, version, moves, retried)
        except PlayerUnreachableError:
            await self._contact(ctx, seat)

    async def _seat(
        self, ctx: Ctx, seat: Seat, kinds: set[NoticeKind], version: int, moves: Sequence[MoveRow], retried: bool
    ) -> None:
        render = self._renderer_for(ctx, seat)
        live = (
            ctx.state is not None
            and seat.number in ctx.state.seats_to_act()
            and ctx.game.status in ("swapping", "playing")
        )
        wants_keyboard = (NoticeKind.TURN in kinds or NoticeKind.SWAP in kinds) and live
        if wants_keyboard and seat.keyboard_version != version:
            wants_keyboard = False  # an older notice: a newer one will bring the buttons
        if wants_keyboard and seat.message_version >= version and NoticeKind.MOVED not in kinds:
            return  # this keyboard was delivered already (a retry after a crash)
        mover_lines = render.moved(seat, self._moves_since(moves, seat)).text.splitlines()
        if wants_keyboard and NoticeKind.TURN in kinds and NoticeKind.MOVED not in kinds:
            await self._send_private(ctx, seat, render.turn(seat), version, retried=retried)
        elif wants_keyboard:  # the same player goes on (play again, or swapping): edit in place
            intro = mover_lines[1:] if NoticeKind.MOVED in kinds else []
            await self._edit_private(ctx, seat, render.turn(seat, intro), version)
        elif NoticeKind.MOVED in kinds:
            await self._edit_private(ctx, seat, render.moved(seat, self._moves_since(moves, seat)), version)

    @staticmethod
    def _moves_since(moves: Sequence[MoveRow], seat: Seat) -> list[MoveRow]:
        """This seat's moves of its last turn: everything it did since the previous player's move."""
        mine: list[MoveRow] = []
        for move in reversed(moves):
            if move.seat != seat.number:
                if mine:
                    break
                continue
            mine.append(move)
        return list(reversed(mine))

    async def _send_private(
        self, ctx: Ctx, seat: Seat, rendered: Rendered, version: int, *, retried: bool = False
    ) -> None:
        """A new private message for the seat. ``retried``: an earlier attempt may have been sent
        before a crash, unrecorded — its keyboard is taken off too, so only this one stays live."""
        assert seat.player_id is not None
        message = await self._send(seat.player_id, rendered, private=True)
        if seat.private_message_id and seat.message_version and seat.private_message_id != message.message_id:
            await self._drop_keyboard(seat.player_id, seat.private_message_id)  # it still shows buttons
        if retried and rendered.buttons:
            await self._drop_orphans(seat, message.message_id)
        shown = version if rendered.buttons else 0
        await self.service.record_private_message(ctx.game.id or 0, seat.number, message.message_id, shown)
        seat.private_message_id, seat.message_version = message.message_id, shown

    async def _edit_private(self, ctx: Ctx, seat: Seat, rendered: Rendered, version: int) -> None:
        assert seat.player_id is not None
        if seat.private_message_id is None:
            if rendered.buttons:
                await self._send_private(ctx, seat, rendered, version)
            return
        edited = await self._edit(seat.player_id, seat.private_message_id, rendered, private=True)
        if edited is None:  # gone: send it again
            await self._send_private(ctx, seat, rendered, version)
            return
        shown = version if rendered.buttons else 0
        if shown != seat.message_version:
            await self.service.record_private_message(ctx.game.id or 0, seat.number, seat.private_message_id, shown)
            seat.message_version = shown

    async def _drop_orphans(self, seat: Seat, new_id: int) -> None:
        """The bot cannot list a chat's messages, but ids in a private chat count up: an earlier
        attempt's message lies between the seat's previous message and this one. Take the keyboard
        off the bot's unknown messages there (a few at most; messages of other games are kept)."""
        assert seat.player_id is not None
        known = await self.service.known_private_messages(seat.player_id)
        floor = max(seat.private_message_id or 0, new_id - ORPHAN_WINDOW)
        for message_id in range(new_id - 1, floor, -1):
            if message_id not in known:
                await self._drop_keyboard(seat.player_id, message_id)

    async def _drop_keyboard(self, chat_id: int, message_id: int) -> None:
        try:
            await self.bot.edit_message_reply_markup(chat_id, message_id, reply_markup=None)
        except (BadRequest, Forbidden) as exc:
            log.debug("old private message %s not cleared: %s", message_id, exc)

    async def _reminder(self, ctx: Ctx, seat: Seat, notice: Notice) -> None:
        """A new private message (a notification); the previous reminder is deleted, so they do
        not pile up. Only while that seat still has to act."""
        if seat.player_id is None or ctx.state is None or seat.number not in ctx.state.seats_to_act():
            return
        if ctx.game.status not in ("swapping", "playing"):
            return
        rendered = self._renderer_for(ctx, seat).reminder(seat, dict(notice.data))
        try:
            message = await self._send(seat.player_id, rendered, private=True)
        except PlayerUnreachableError:
            await self._contact(ctx, seat)
            return
        if seat.reminder_message_id:
            try:
                await self.bot.delete_message(seat.player_id, seat.reminder_message_id)
            except (BadRequest, Forbidden) as exc:
                log.debug("old reminder not deleted: %s", exc)
        seat.reminder_message_id = message.message_id
        await self.service.record_reminder_message(ctx.game.id or 0, seat.number, message.message_id)

    async def send_hand(self, ctx: Ctx, seat: Seat) -> None:
        """/hand: a fresh copy of the seat's private message (with its buttons if it may act)."""
        render = self._renderer_for(ctx, seat)
        rendered = render.turn(seat) if ctx.state is not None else render.lobby()
        await self._send_private(ctx, seat, rendered, seat.keyboard_version)

    # ----------------------------------------------------------------- group messages

    async def _lobby(self, ctx: Ctx, render: Renderer) -> None:
        rendered = render.lobby()
        if ctx.game.lobby_message_id:
            edited = await self._edit(ctx.chat.id, ctx.game.lobby_message_id, rendered)
            if edited is not None or ctx.game.status != "lobby":
                return
        message = await self._send_group(ctx, rendered)
        if message is not None:
            await self.service.record_game_messages(ctx.game.id or 0, lobby_message_id=message.message_id)

    async def _table(self, ctx: Ctx, render: Renderer, moves: Sequence[MoveRow]) -> None:
        self._table_edited[ctx.game.id or 0] = time.monotonic()
        rendered = render.table(moves)
        if ctx.game.table_message_id and await self._edit(ctx.chat.id, ctx.game.table_message_id, rendered):
            return
        message = await self._send_group(ctx, rendered)
        if message is not None:
            ctx.game.table_message_id = message.message_id
            await self.service.record_game_messages(ctx.game.id or 0, table_message_id=message.message_id)

    async def _announce(self, ctx: Ctx, render: Renderer, notice: Notice) -> None:
        rendered = render.announce(str(notice.data.get("what")), notice.seat, dict(notice.data))
        if rendered is not None:
            await self._send_group(ctx, rendered)

    async def _contact(self, ctx: Ctx, seat: Seat) -> None:
        await self._send_group(
            ctx, Renderer(ctx, self.codec, ctx.chat.language or "en", self.bot_username).contact(seat)
        )

    async def _send_group(self, ctx: Ctx, rendered: Rendered) -> Message | None:
        """A new message in the game's chat; follows a migration; None if the bot was removed."""
        try:
            return await self._send(ctx.chat.id, rendered)
        except ChatMigrated as exc:
            await self.service.migrate_chat(ctx.chat.id, exc.new_chat_id)
            ctx.chat.id = exc.new_chat_id
            return await self._send(exc.new_chat_id, rendered)
        except Forbidden as exc:
            log.warning("chat %s: bot cannot post (%s); pausing its game", ctx.chat.id, exc)
            await self.service.bot_removed(ctx.chat.id)
            return None

    # ----------------------------------------------------------------- Bot API calls

    async def _unreachable(self, player_id: int, exc: Forbidden) -> NoReturn:
        """The player blocked the bot or never started it: remember that, and say so."""
        await self.service.set_can_message(player_id, False)
        raise PlayerUnreachableError(str(exc)) from exc

    async def _send(self, chat_id: int, rendered: Rendered, *, private: bool = False) -> Message:
        try:
            return await self.bot.send_message(
                chat_id,
                fit_lines(rendered.text.split("\n")),
                parse_mode=ParseMode.HTML,
                reply_markup=rendered.markup,
                disable_web_page_preview=True,
            )
        except Forbidden as exc:
            if not private:
                raise
            await self._unreachable(chat_id, exc)

    async def _edit(self, chat_id: int, message_id: int, rendered: Rendered, *, private: bool = False) -> Any:
        """Edit in place; True if done or unchanged, None if the message is gone."""
        try:
            await self.bot.edit_message_text(
                fit_lines(rendered.text.split("\n")),
                chat_id,
                message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=rendered.markup,
                disable_web_page_preview=True,
            )
        except BadRequest as exc:
            text = str(exc).lower()
            if NOT_MODIFIED in text:
                return True
            if any(reason in text for reason in NOT_FOUND):
                return None
            raise
        except Forbidden as exc:
            if not private:
                raise
            await self._unreachable(chat_id, exc)
        return True
