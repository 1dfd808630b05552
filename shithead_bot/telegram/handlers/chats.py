"""Chat events: the bot added to or removed from a group, blocked or unblocked, a group migrated."""

from __future__ import annotations

import logging

from telegram import ChatMember, ChatMemberRestricted, Update
from telegram.constants import ChatMemberStatus
from telegram.ext import ContextTypes

from shithead_bot.telegram.context import bot_context, chat_texts, is_private
from shithead_bot.telegram.handlers.respond import follow_up
from shithead_bot.telegram.render.info import greeting

log = logging.getLogger(__name__)
GONE = (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED)


async def my_chat_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot's own membership changed: a private chat blocked/unblocked, a group joined, left,
    or muted (restricted from sending: as good as removed) and back."""
    change = update.my_chat_member
    if change is None:
        return
    ctx = bot_context(context)
    chat, status = change.chat, change.new_chat_member.status
    if is_private(chat):
        unblocked = status not in GONE
        await ctx.service.set_can_message(chat.id, unblocked)
        if unblocked:  # the live message of every game where they may act
            await ctx.resend_live(chat.id)
        return
    if status in GONE or muted(change.new_chat_member):
        result = await ctx.service.bot_removed(chat.id)
        log.info("removed or muted in chat %s; game %s paused", chat.id, result.game_id if result else None)
        return
    back = await ctx.service.bot_added(chat.id, chat.type, chat.title or "")
    if change.old_chat_member.status in GONE:  # just added: say in one line how to call the bot, quietly
        t = await chat_texts(update, ctx)  # the whole group reads it: the chat's language
        async with follow_up("the greeting"):  # the group may have removed or muted the bot again
            await context.bot.send_message(chat.id, greeting(t, context.bot.username), disable_notification=True)
    if back is not None:  # back after a removal: the paused game's table, with ▶️ Resume
        await ctx.deliver(back.game_id)


def muted(member: ChatMember) -> bool:
    """Restricted from sending messages (the bot is still in the group, but cannot say a word)."""
    return isinstance(member, ChatMemberRestricted) and not member.can_send_messages


async def migrated(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group became a supergroup: its games follow the new chat id."""
    message = update.effective_message
    if message is None or message.migrate_to_chat_id is None:
        return
    ctx = bot_context(context)
    games = await ctx.service.migrate_chat(message.chat_id, message.migrate_to_chat_id)
    for game_id in games:
        await ctx.deliver(game_id)
