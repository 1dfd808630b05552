"""The Bot API calls the deliverer makes, with Telegram's answers turned into outcomes: "message is
not modified" is success, a message gone is None, a player who blocked the bot is
:class:`PlayerUnreachableError`. Every text is trimmed to what Telegram counts."""

from __future__ import annotations

import logging
from typing import Any

from telegram import Bot, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden

from shithead_bot.telegram.render.common import Rendered, fit_lines

log = logging.getLogger(__name__)

NOT_MODIFIED = "message is not modified"
NOT_FOUND = ("message to edit not found", "message can't be edited", "message_id_invalid")


TOPIC_GONE = ("message thread not found", "topic_closed", "topic_deleted", "thread not found")


class PlayerUnreachableError(Exception):
    """The bot may not message this player privately (never started, or blocked)."""


class TopicGoneError(Exception):
    """The forum topic the game lives in was closed or deleted."""


class BotApi:
    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def send(
        self, chat_id: int, rendered: Rendered, *, private: bool = False, thread_id: int | None = None
    ) -> Message:
        """A new message (in forum topic ``thread_id``); in a private chat, Forbidden means the player
        is unreachable; a topic closed or gone is :class:`TopicGoneError`."""
        try:
            return await self.bot.send_message(
                chat_id,
                fit_lines(rendered.text.split("\n")),
                parse_mode=ParseMode.HTML,
                reply_markup=rendered.markup,
                disable_web_page_preview=True,
                message_thread_id=thread_id,
            )
        except BadRequest as exc:
            if thread_id is not None and any(reason in str(exc).lower() for reason in TOPIC_GONE):
                raise TopicGoneError(str(exc)) from exc
            raise
        except Forbidden as exc:
            if not private:
                raise
            raise PlayerUnreachableError(str(exc)) from exc

    async def edit(self, chat_id: int, message_id: int, rendered: Rendered, *, private: bool = False) -> Any:
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
            raise PlayerUnreachableError(str(exc)) from exc
        return True

    async def drop_keyboard(self, chat_id: int, message_id: int) -> None:
        """Take the buttons off a message (it may be gone, or have none: fine)."""
        try:
            await self.bot.edit_message_reply_markup(chat_id, message_id, reply_markup=None)
        except (BadRequest, Forbidden) as exc:
            log.debug("message %s not cleared: %s", message_id, exc)

    async def delete(self, chat_id: int, message_id: int) -> None:
        try:
            await self.bot.delete_message(chat_id, message_id)
        except (BadRequest, Forbidden) as exc:
            log.debug("message %s not deleted: %s", message_id, exc)
