"""Inline buttons: decode, check, delegate to the service, answer the press, then deliver."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.ext import ContextTypes

from engine import parse_rank
from shithead_bot.i18n import pick_language
from shithead_bot.service import NeedsPrivateChatError, NotAPlayerError, ServiceError, StaleVersionError
from shithead_bot.telegram.callback_data import Action, BadCallbackError, Button
from shithead_bot.telegram.context import BotContext, bot_context, is_chat_admin, texts, user_info
from shithead_bot.telegram.deliver import PlayerUnreachableError
from shithead_bot.telegram.render import Renderer
from shithead_bot.telegram.replies import answer, refusal

log = logging.getLogger(__name__)


@dataclass
class Done:
    """What a button did: the toast to show, and the game whose notices to deliver."""

    toast: str | None = None
    game_id: int | None = None


Action_ = Callable[[Update, ContextTypes.DEFAULT_TYPE, BotContext, Button], Awaitable[Done]]


async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Every inline button press."""
    query = update.callback_query
    assert query is not None
    ctx = bot_context(context)
    t = texts(update)
    try:
        pressed = ctx.codec.decode(query.data)
        handler = ACTIONS.get(pressed.action)
        if handler is None:
            raise BadCallbackError(f"no handler for {pressed.action}")
        done = await handler(update, context, ctx, pressed)
    except BadCallbackError as exc:
        log.warning("refused a press by user %s: %s", query.from_user.id, exc)
        await answer(query, refusal(exc, t))
        return
    except NeedsPrivateChatError as exc:  # one tap opens the private chat and finishes the job
        action = "join" if pressed.action == Action.JOIN else "hand"
        await answer(query, url=ctx.codec.deep_link(ctx.bot_username, action, exc.game_id or 0))
        return
    except ServiceError as exc:  # the class only: an engine's reason may describe the presser's hand
        log.info("refused a press by user %s: %s", query.from_user.id, type(exc).__name__)
        await answer(query, refusal(exc, t))
        return
    # The answer goes out first; the next player's message need not wait for Telegram's reply to it.
    answered = asyncio.create_task(answer(query, done.toast))
    try:
        await ctx.deliver(done.game_id)
    finally:
        await answered


# ------------------------------------------------------------------------- the lobby


async def join(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    assert update.effective_user is not None
    await ctx.service.join(b.game_id, user_info(update.effective_user))
    return Done(texts(update).gettext("You are in! Your cards will come here in private."), b.game_id)


async def leave(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    assert update.effective_user is not None
    await ctx.service.leave(b.game_id, update.effective_user.id)
    return Done(None, b.game_id)


async def add_computer(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    assert update.effective_user is not None
    level, _, seen = b.argument.partition(".")
    await ctx.service.add_computer(b.game_id, update.effective_user.id, level or "heuristic", seen=_count(seen))
    return Done(None, b.game_id)


def _count(text: str) -> int | None:
    """The number of computers the pressed lobby showed (older buttons carry none)."""
    return int(text) if text.isascii() and text.isdigit() else None


async def remove_computer(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    assert update.effective_user is not None
    await ctx.service.remove_computer(b.game_id, update.effective_user.id, seen=_count(b.argument))
    return Done(None, b.game_id)


async def start(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    assert update.effective_user is not None
    await ctx.service.start(b.game_id, update.effective_user.id)
    return Done(texts(update).gettext("Dealt! Check your private chat with me."), b.game_id)


async def rematch(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    assert update.effective_user is not None
    result = await ctx.service.rematch(b.game_id, update.effective_user.id)
    return Done(None, result.game_id)


# ------------------------------------------------------------------------- playing


async def move(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    assert update.effective_user is not None
    await ctx.service.play(b.game_id, update.effective_user.id, b.argument, b.version)
    return Done(None, b.game_id)


async def pick(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """Swap phase: a hand card was tapped; show the face-up cards it can swap with (no game change)."""
    assert update.effective_user is not None
    assert update.callback_query is not None
    game = await ctx.service.game_view(b.game_id)
    seat = game.seat_of(update.effective_user.id)
    if seat is None:
        raise NotAPlayerError("not a player")
    if seat.keyboard_version != b.version or game.game.status != "swapping":
        raise StaleVersionError("an old swap keyboard")
    picked = parse_rank(b.argument) if b.argument else None
    render = Renderer(game, ctx.codec, texts_language(update), ctx.bot_username)
    rendered = render.swap(seat, picked)
    try:
        await update.callback_query.edit_message_text(
            rendered.text, parse_mode=ParseMode.HTML, reply_markup=rendered.markup
        )
    except BadRequest as exc:
        if "not modified" not in str(exc).lower():
            raise
    return Done()


def texts_language(update: Update) -> str:
    user = update.effective_user
    return pick_language(user.language_code if user else None)


async def hand(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """Send my private message for this game again."""
    assert update.effective_user is not None
    game = await ctx.service.game_view(b.game_id)
    seat = game.seat_of(update.effective_user.id)
    if seat is None:
        raise NotAPlayerError("not a player")
    try:
        await ctx.delivery.send_hand(game, seat)
    except PlayerUnreachableError as exc:
        raise NeedsPrivateChatError(update.effective_user.id, b.game_id) from exc
    return Done(texts(update).gettext("Sent to our private chat."))


def confirmed(update: Update, b: Button) -> bool:
    """A confirmation's answer (``yes.<user>`` / ``no.<user>``); only that user may press it."""
    assert update.effective_user is not None
    answer, _sep, owner = b.argument.partition(".")
    if not owner.isdigit() or int(owner) != update.effective_user.id:
        raise NotAPlayerError("someone else's confirmation")
    return answer == "yes"


async def forfeit(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """``yes.<user>`` forfeits that user's seat (only they may press it)."""
    assert update.effective_user is not None
    _ = texts(update).gettext
    user_id = update.effective_user.id
    if confirmed(update, b):
        await ctx.service.forfeit(b.game_id, user_id)
        await _close_confirmation(update, _("You left game #{id}.").format(id=b.game_id))
        return Done(None, b.game_id)
    await _close_confirmation(update, _("You stay in the game."))
    return Done()


async def abort(update: Update, context: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """``yes.<user>`` aborts the game if that user is its creator or a chat admin."""
    assert update.effective_user is not None
    _ = texts(update).gettext
    user_id = update.effective_user.id
    if not confirmed(update, b):
        await _close_confirmation(update, _("The game goes on."))
        return Done()
    game = await ctx.service.game_view(b.game_id)
    admin = await is_chat_admin(context, game.chat.id, user_id)
    await ctx.service.abort(b.game_id, user_id, is_admin=admin)
    await _close_confirmation(update, _("Game #{id} aborted.").format(id=b.game_id))
    return Done(None, b.game_id)


async def _close_confirmation(update: Update, text: str) -> None:
    query = update.callback_query
    assert query is not None
    try:
        await query.edit_message_text(text)
    except BadRequest as exc:
        log.debug("confirmation not edited: %s", exc)


def confirmation(
    ctx: BotContext, action: Action, game_id: int, user_id: int, yes: str, no: str
) -> InlineKeyboardMarkup:
    encode = ctx.codec.encode
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(yes, callback_data=encode(Button(action, game_id, 0, f"yes.{user_id}"))),
                InlineKeyboardButton(no, callback_data=encode(Button(action, game_id, 0, f"no.{user_id}"))),
            ]
        ]
    )


async def nudge(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """The table's ⏰ Nudge: one extra reminder for whoever must act (once an hour per game)."""
    assert update.effective_user is not None
    await ctx.service.nudge(b.game_id, update.effective_user.id)
    return Done(texts(update).gettext("Nudged!"), b.game_id)


async def pause_vote(update: Update, context: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """The table's ⏸ Pause (a vote, or at once for the creator or an admin) and ▶️ Resume."""
    assert update.effective_user is not None
    user_id = update.effective_user.id
    game = await ctx.service.game_view(b.game_id)
    admin = await is_chat_admin(context, game.chat.id, user_id)
    if b.argument == "resume":
        await ctx.service.resume(b.game_id, user_id, is_admin=admin)
        return Done(None, b.game_id)
    result = await ctx.service.vote_pause(b.game_id, user_id, is_admin=admin)
    _ = texts(update).gettext
    return Done(_("Paused.") if result.status == "paused" else _("Your vote to pause is counted."), b.game_id)


async def setting(update: Update, context: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    from shithead_bot.telegram.handlers.settings import setting_button

    return Done(await setting_button(update, context, ctx, b))


ACTIONS: dict[Action, Action_] = {
    Action.JOIN: join,
    Action.LEAVE: leave,
    Action.ADD_COMPUTER: add_computer,
    Action.REMOVE_COMPUTER: remove_computer,
    Action.START: start,
    Action.REMATCH: rematch,
    Action.MOVE: move,
    Action.PICK: pick,
    Action.HAND: hand,
    Action.FORFEIT: forfeit,
    Action.ABORT: abort,
    Action.NUDGE: nudge,
    Action.PAUSE_VOTE: pause_vote,
    Action.SETTING: setting,
}
