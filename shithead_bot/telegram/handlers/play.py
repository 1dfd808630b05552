"""Playing: a move button, the swap phase's card picking, your cards again (/hand and its button,
and the deep link), and leaving the game for good (/forfeit, confirmed)."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ParseMode
from telegram.ext import ContextTypes

from engine import parse_rank
from shithead_bot.service import (
    GameStatus,
    NeedsPrivateChatError,
    NotAPlayerError,
    ServiceError,
    StaleVersionError,
)
from shithead_bot.telegram.callback_data import Action, Button
from shithead_bot.telegram.context import BotContext, bot_context, chat_texts, is_private, texts
from shithead_bot.telegram.handlers.presses import Done, Press, close_confirmation, confirmed, presser
from shithead_bot.telegram.handlers.respond import follow_up, reply, reply_privately
from shithead_bot.telegram.render import keyboards, private, replies
from shithead_bot.telegram.render.away import back_text


async def move(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    pressed = pressed_private(update)
    try:
        result = await ctx.service.play(b.game_id, presser(update), b.argument, b.version, message_id=pressed)
    except StaleVersionError:  # an old button of a player who is away: the press brings them back
        back = await ctx.service.come_back(presser(update))
        if back is None:
            raise
        for game_id in back.game_ids:
            await ctx.deliver(game_id)
        return Done(back_text(True, texts(update)))
    return Done(replies.thinking_toast(texts(update)) if result.thinking else None, b.game_id, thinking=result.thinking)


def pressed_private(update: Update) -> int | None:
    """The id of the message a button was pressed on, if it is in the presser's private chat
    (a forged button in a group must not pass a group's message id off as theirs)."""
    query = update.callback_query
    if query is None or query.message is None or query.message.chat.id != presser(update):
        return None
    return query.message.message_id


async def pick(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """Swap phase: a hand card was tapped; show the face-up cards it can swap with (no game change)."""
    assert update.callback_query is not None
    game = await ctx.service.game_view(b.game_id)
    seat = game.seat_of(presser(update))
    if seat is None:
        raise NotAPlayerError("not a player")
    if seat.keyboard_version != b.version or game.status != GameStatus.SWAPPING:
        raise StaleVersionError("an old swap keyboard")
    picked = parse_rank(b.argument) if b.argument else None
    rendered = private.swap(ctx.delivery.page_for(game, seat), seat, picked)  # as its message was sent
    async with follow_up("the swap keyboard's edit"):
        await update.callback_query.edit_message_text(
            rendered.text, parse_mode=ParseMode.HTML, reply_markup=rendered.markup
        )
    return Done()


async def hand_button(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """Send my private message for this game again."""
    await ctx.send_hand(b.game_id, presser(update))  # NeedsPrivateChatError: one tap opens the chat
    if pressed_private(update) is not None:  # pressed in our private chat: the copy arrives right here
        return Done(replies.sent_below(texts(update)))
    return Done(replies.sent_privately(texts(update)))


async def hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/hand: re-send your private message for your game(s) (in a group: its game)."""
    ctx = bot_context(context)
    user, chat = update.effective_user, update.effective_chat
    if user is None:
        return
    t = await chat_texts(update, ctx)  # posted in the chat
    mine = await ctx.service.games_of(user.id)
    if chat is not None and not is_private(chat):
        mine = [g for g in mine if g.chat.id == chat.id]
    if not mine:  # the asker's: in private
        await reply_privately(update, replies.no_game_going_on(texts(update)))
        return
    for found in mine:
        try:
            await ctx.send_hand(found.game.id, user.id)
        except NeedsPrivateChatError:
            cannot = replies.cannot_message_you(t)
            link = keyboards.open_private_chat(cannot.label, ctx.deep_link("hand", found.game.id))
            await reply(update, cannot.text, link)
            return


async def hand_by_link(update: Update, ctx: BotContext, game_id: int) -> None:
    """/start hand_<game>: the deep link of a player who could not be messaged."""
    assert update.effective_user is not None
    try:
        await ctx.send_hand(game_id, update.effective_user.id)
    except NotAPlayerError:
        await reply(update, replies.not_playing_this_game(texts(update)))
    except ServiceError as exc:  # no such game; or the bot may still not write to them
        await reply(update, replies.command_refusal(exc, texts(update)))


async def forfeit(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/forfeit: asks for confirmation, for this chat's game (or, in private, your latest game)."""
    ctx = bot_context(context)
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    t = await chat_texts(update, ctx)  # posted in the chat: the question and its answer
    mine = await ctx.service.games_of(user.id)
    if not is_private(chat):
        mine = [g for g in mine if g.chat.id == chat.id]
    if not mine:
        await reply_privately(update, replies.not_playing_here(texts(update)))
        return
    game_id = mine[0].game.id  # the most recent
    question = replies.forfeit_question(game_id, t)
    markup = keyboards.confirmation(ctx.codec, Action.FORFEIT, game_id, user.id, question.yes, question.no)
    await reply(update, question.text, markup)


async def forfeit_answer(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """The confirmation's answer: only the player who asked may give it."""
    t = await chat_texts(update, ctx)
    if not confirmed(update, b):
        await close_confirmation(update, replies.forfeit_answered(b.game_id, False, t))
        return Done()
    await ctx.service.forfeit(b.game_id, presser(update))
    await close_confirmation(update, replies.forfeit_answered(b.game_id, True, t))
    return Done(None, b.game_id)


PRESSES: dict[Action, Press] = {
    Action.MOVE: move,
    Action.PICK: pick,
    Action.HAND: hand_button,
    Action.FORFEIT: forfeit_answer,
}
