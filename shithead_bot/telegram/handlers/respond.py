"""The ways a handler answers: :func:`reply` to a message, :func:`answer` to a press, and
:func:`reply_privately` for what concerns only its sender. The texts come from ``render``."""

from __future__ import annotations

import logging

from telegram import CallbackQuery, InlineKeyboardMarkup, Message, ReplyParameters, Update
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, Forbidden

from shithead_bot.telegram.render.info import addressed

log = logging.getLogger(__name__)


async def reply(
    update: Update, text: str, markup: InlineKeyboardMarkup | None = None, *, reply_to: int | None = None
) -> Message | None:
    """Answer in the chat (and the forum topic) the update came from; ``reply_to`` quotes that
    message, e.g. the open lobby. In a group, commands in the text name the bot (privacy mode)."""
    message = update.effective_message
    if message is None:
        return None
    if message.chat.type != ChatType.PRIVATE:
        text = addressed(text, message.get_bot().username)
    quote = ReplyParameters(reply_to, allow_sending_without_reply=True) if reply_to else None
    return await message.reply_text(
        text, parse_mode=ParseMode.HTML, reply_markup=markup, disable_web_page_preview=True, reply_parameters=quote
    )


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
