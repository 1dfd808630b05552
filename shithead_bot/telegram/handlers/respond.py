"""The ways a handler answers: :func:`reply` to a message, :func:`answer` to a press, and
:func:`reply_privately` for what concerns only its sender; :func:`follow_up` around what a handler
does after its use case succeeded. The texts come from ``render``."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from telegram import CallbackQuery, InlineKeyboardMarkup, Message, ReplyParameters, Update
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, Forbidden

from shithead_bot.telegram.botapi import NOT_FOUND, NOT_MODIFIED, TOPIC_GONE
from shithead_bot.telegram.render.info import addressed

log = logging.getLogger(__name__)
GONE = (NOT_MODIFIED, *NOT_FOUND, *TOPIC_GONE, "message to be replied not found", "chat not found")


@asynccontextmanager
async def follow_up(what: str) -> AsyncIterator[None]:
    """Best effort for what follows a use case that succeeded — an edit of the pressed message, a
    reply: a chat that blocked the bot (or that it left) meanwhile, a message gone or unchanged,
    is no failure of the update (the person's action was done; the game's own messages tell them).
    Any other refusal is Telegram's word on a request of ours, and raised."""
    try:
        yield
    except Forbidden as exc:
        log.debug("%s not done: %s", what, exc)
    except BadRequest as exc:
        if not any(reason in str(exc).lower() for reason in GONE):
            raise
        log.debug("%s not done: %s", what, exc)


async def reply(
    update: Update, text: str, markup: InlineKeyboardMarkup | None = None, *, reply_to: int | None = None
) -> Message | None:
    """Answer in the chat (and the forum topic) the update came from; ``reply_to`` quotes that
    message, e.g. the open lobby. In a group, commands in the text name the bot (privacy mode), and
    the answer comes without a notification: the group hears only a game's start and its end (the
    delivery's announcements); whoever asked is reading. A chat closed to the bot meanwhile
    (blocked, left) gets nothing: None."""
    message = update.effective_message
    if message is None:
        return None
    group = message.chat.type != ChatType.PRIVATE
    if group:
        text = addressed(text, message.get_bot().username)
    quote = ReplyParameters(reply_to, allow_sending_without_reply=True) if reply_to else None
    async with follow_up("reply"):
        return await message.reply_text(
            text,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            disable_web_page_preview=True,
            reply_parameters=quote,
            disable_notification=group,
        )
    return None


async def answer(query: CallbackQuery, text: str | None = None, *, url: str | None = None) -> bool:
    """Answer a press (its toast, or a link to open). A press answered already — by another worker
    that got the same update, or too late — is no error: False."""
    try:
        await query.answer(text, url=url)
    except BadRequest as exc:
        log.debug("press %s not answered: %s", query.id, exc)
        return False
    return True


async def reply_privately(update: Update, text: str) -> None:
    """A refusal that concerns only its sender: in our private chat, so the group stays clear; in
    the group only when the bot cannot write to them (they never opened the private chat)."""
    user, message = update.effective_user, update.effective_message
    if user is not None and message is not None and message.sender_chat is None:
        try:
            await message.get_bot().send_message(user.id, text, parse_mode=ParseMode.HTML)
            return
        except Forbidden:
            pass
    await reply(update, text)
