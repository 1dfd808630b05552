"""Controlling a game: pause (at once for its creator or an admin, else a vote) and resume, the
table's nudge, and /abort (its creator or an admin, confirmed)."""

from __future__ import annotations

from telegram import Update
from telegram.ext import ContextTypes

from shithead_bot.service import GameStatus, ServiceError
from shithead_bot.telegram.callback_data import Action, Button
from shithead_bot.telegram.context import (
    ANONYMOUS,
    BotContext,
    bot_context,
    chat_texts,
    is_chat_admin,
    person,
    speaks_as_admin,
    texts,
)
from shithead_bot.telegram.handlers.presses import Done, Press, close_confirmation, confirmed, presser
from shithead_bot.telegram.handlers.respond import reply, reply_privately
from shithead_bot.telegram.render import keyboards, replies


async def pause(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/pause: at once for the game's creator or a chat admin, else a vote (a majority pauses)."""
    await _pause_or_resume(update, context, resume=False)


async def resume(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/resume: the game goes on; the current turn starts again with its full time."""
    await _pause_or_resume(update, context, resume=True)


async def _pause_or_resume(update: Update, context: ContextTypes.DEFAULT_TYPE, *, resume: bool) -> None:
    ctx = bot_context(context)
    chat, user = update.effective_chat, person(update)
    if chat is None:
        return
    t = await chat_texts(update, ctx)  # posted in the chat
    game = await ctx.service.open_game(chat.id)
    if game is None:  # a refusal is the asker's: in private
        await reply_privately(update, replies.no_game_here(texts(update)))
        return
    admin = await speaks_as_admin(update, context)  # an anonymous admin is one
    user_id = ANONYMOUS if user is None else user.id
    try:
        if resume:
            result = await ctx.service.resume(game.id, user_id, is_admin=admin)
        else:
            result = await ctx.service.vote_pause(game.id, user_id, is_admin=admin)
    except ServiceError as exc:
        await reply_privately(update, replies.command_refusal(exc, texts(update)))
        return
    if not resume and result.status != GameStatus.PAUSED:
        await reply(update, replies.pause_vote_counted(t))
    await ctx.deliver(result.game_id)


async def pause_vote(update: Update, context: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """The table's ⏸ Pause (a vote, or at once for the creator or an admin) and ▶️ Resume."""
    user_id = presser(update)
    game = await ctx.service.game_view(b.game_id)
    admin = await is_chat_admin(context, game.chat.id, user_id)
    if b.argument == "resume":
        await ctx.service.resume(b.game_id, user_id, is_admin=admin)
        return Done(None, b.game_id)
    result = await ctx.service.vote_pause(b.game_id, user_id, is_admin=admin)
    return Done(replies.pause_toast(result.status == GameStatus.PAUSED, texts(update)), b.game_id)


async def nudge(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """The table's ⏰ Nudge: one extra reminder for whoever must act (once an hour per game)."""
    await ctx.service.nudge(b.game_id, presser(update))
    return Done(replies.nudged(texts(update)), b.game_id)


async def abort(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/abort: end this chat's game (its creator or a chat admin), after confirmation."""
    ctx = bot_context(context)
    chat, user = update.effective_chat, person(update)
    if chat is None:
        return
    t = await chat_texts(update, ctx)  # posted in the chat: the question and its answer
    game = await ctx.service.open_game(chat.id)
    if game is None:
        await reply_privately(update, replies.no_game_here(texts(update)))
        return
    creator = user is not None and game.created_by == user.id
    if not creator and not await speaks_as_admin(update, context):
        await reply_privately(update, replies.creator_or_admin_only(texts(update)))
        return
    owner = ANONYMOUS if user is None else user.id  # an anonymous admin's: any chat admin answers it
    question = replies.abort_question(game.id, t)
    markup = keyboards.confirmation(ctx.codec, Action.ABORT, game.id, owner, question.yes, question.no)
    await reply(update, question.text, markup)


async def abort_answer(update: Update, context: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """The confirmation's answer: aborts if its owner is the game's creator or a chat admin; an
    anonymous admin's confirmation is answered by any chat admin."""
    t = await chat_texts(update, ctx)  # the question, closed where everyone reads it
    game = await ctx.service.game_view(b.game_id)
    admin = await is_chat_admin(context, game.chat.id, presser(update))
    if not confirmed(update, b, admin=admin):
        await close_confirmation(update, replies.abort_answered(b.game_id, False, t))
        return Done()
    await ctx.service.abort(b.game_id, presser(update), is_admin=admin)
    await close_confirmation(update, replies.abort_answered(b.game_id, True, t))
    return Done(None, b.game_id)


PRESSES: dict[Action, Press] = {
    Action.PAUSE_VOTE: pause_vote,
    Action.NUDGE: nudge,
    Action.ABORT: abort_answer,
}
