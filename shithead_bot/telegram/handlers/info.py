"""Questions and ways in: /start (where deep links land), /help, /rules, /games, /stats, and
unknown commands."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden
from telegram.ext import ContextTypes

from shithead_bot.service import OVERALL
from shithead_bot.telegram.callback_data import BadCallbackError
from shithead_bot.telegram.context import (
    bot_context,
    chat_language,
    chat_texts,
    is_private,
    language_of,
    texts,
    user_info,
)
from shithead_bot.telegram.handlers import lobby, play
from shithead_bot.telegram.handlers.respond import follow_up, reply
from shithead_bot.telegram.render import inbox as render_inbox
from shithead_bot.telegram.render import keyboards, replies
from shithead_bot.telegram.render.info import help_text, my_ratings_text, ratings_text
from shithead_bot.telegram.render.rules import rules_text

log = logging.getLogger(__name__)


async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/help: what the bot does and its commands."""
    await reply(update, help_text(await chat_texts(update, bot_context(context))))


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/start in private (the deep links land here): remember we may write, then join or resend cards."""
    ctx = bot_context(context)
    user = update.effective_user
    if user is None or not is_private(update.effective_chat):
        await help_command(update, context)
        return
    await ctx.service.see_user(user_info(user), can_message=True)
    payload = context.args[0] if context.args else ""
    if not payload:
        await help_command(update, context)
        await ctx.resend_live(user.id)  # back after blocking the bot: what waits for them
        return
    try:
        action, game_id = ctx.codec.read_deep_link(payload)
    except BadCallbackError:
        log.warning("unknown /start payload from user %s", user.id)
        await reply(update, replies.bad_link(texts(update)))
        return
    if action == "join":
        await lobby.join_by_link(update, ctx, game_id)
    else:
        await play.hand_by_link(update, ctx, game_id)


async def rules_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/rules: the open game's rules, or this chat's."""
    ctx = bot_context(context)
    chat = update.effective_chat
    if chat is None:
        return
    rules = await ctx.service.chat_rules(chat.id, chat.type, chat.title or "")
    await reply(update, rules_text(rules, await chat_language(update, ctx)))


async def games(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/games: your inbox (📥 Your games) sent anew — always in private, since it names your other
    chats — the previous one retired, so that one inbox is live; the outbox keeps it current."""
    ctx = bot_context(context)
    user = update.effective_user
    if user is None:
        return
    box = await ctx.service.inbox_of(user.id)
    rendered = render_inbox.inbox(box, ctx.codec, language_of(update))
    try:
        message = await context.bot.send_message(
            user.id, rendered.text, parse_mode=ParseMode.HTML, reply_markup=rendered.markup
        )
    except Forbidden:
        cannot = replies.cannot_message_you(await chat_texts(update, ctx))
        link = keyboards.open_private_chat(cannot.label, f"https://t.me/{ctx.bot_username}")
        await reply(update, cannot.text, link)
        return
    previous = await ctx.service.keep_inbox(user.id, message.message_id)
    if previous is not None:
        await retire_inbox(context, user.id, previous)
    if not is_private(update.effective_chat):
        await reply(update, replies.games_sent_privately(await chat_texts(update, ctx)))


async def retire_inbox(context: ContextTypes.DEFAULT_TYPE, user_id: int, message_id: int) -> None:
    """The previous inbox goes (or, too old to delete, its buttons): one inbox is live."""
    try:
        await context.bot.delete_message(user_id, message_id)
    except (BadRequest, Forbidden):
        async with follow_up("take the previous inbox's buttons off"):
            await context.bot.edit_message_reply_markup(user_id, message_id, reply_markup=None)


async def stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/stats: in a group, its players by rating and its games per preset; in private, your rating
    in each chat and overall with its trend, and your record."""
    ctx = bot_context(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    t = await chat_texts(update, ctx)
    if is_private(chat):
        mine = await ctx.service.player_ratings(user.id)
        computers = [r for r in await ctx.service.chat_ratings(OVERALL) if r.level is not None]
        await reply(update, my_ratings_text(mine, computers, await ctx.service.player_record(user.id), t))
        return
    board = await ctx.service.chat_ratings(chat.id)
    await reply(update, ratings_text(board, await ctx.service.games_per_preset(chat.id), t))


async def unknown_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """An unknown /command in a private chat gets the help; in a group it is ignored."""
    if is_private(update.effective_chat):
        await help_command(update, context)
