"""The Bot API calls the deliverer makes, with Telegram's answers turned into outcomes: "message is
not modified" is success, a message gone is None, a player who blocked the bot is
:class:`PlayerUnreachableError`. Every text is trimmed to what Telegram counts."""

from __future__ import annotations

import logging
from collections.abc import Coroutine
from typing import Any

from telegram import Bot, InputFile, InputMediaPhoto, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError

from shithead_bot.telegram.render.common import Rendered, fit_lines

log = logging.getLogger(__name__)

NOT_MODIFIED = "message is not modified"
NOT_FOUND = ("message to edit not found", "message can't be edited", "message_id_invalid")
MAX_CAPTION = 1024


TOPIC_GONE = ("message thread not found", "topic_closed", "topic_deleted", "thread not found")


def is_outage(exc: BaseException) -> bool:
    """The Bot API did not answer: the network, a timeout, a 5xx (PTB's NetworkError — but a bad
    request, a subclass of it, is an answer: Telegram's final word)."""
    return isinstance(exc, NetworkError) and not isinstance(exc, BadRequest)


class PlayerUnreachableError(Exception):
    """The bot may not message this player privately (never started, or blocked)."""


class TopicGoneError(Exception):
    """The forum topic the game lives in was closed or deleted."""


class BotApi:
    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def send(
        self,
        chat_id: int,
        rendered: Rendered,
        *,
        private: bool = False,
        thread_id: int | None = None,
        silent: bool = False,
    ) -> Message:
        """A new message (in forum topic ``thread_id``; ``silent``: without a notification); in a
        private chat, Forbidden means the player is unreachable; a topic closed or gone is
        :class:`TopicGoneError`."""
        call = self.bot.send_message(
            chat_id,
            fit_lines(rendered.text.split("\n")),
            parse_mode=ParseMode.HTML,
            reply_markup=rendered.markup,
            disable_web_page_preview=True,
            message_thread_id=thread_id,
            disable_notification=silent,
        )
        return await self._posted(call, private=private, thread_id=thread_id)

    async def send_photo(
        self, chat_id: int, png: bytes, caption: Rendered, *, thread_id: int | None = None, silent: bool = False
    ) -> Message:
        """A new photo message with an HTML caption and buttons (in forum topic ``thread_id``)."""
        call = self.bot.send_photo(
            chat_id,
            InputFile(png, filename="table.png"),
            caption=fit_lines(caption.text.split("\n"), limit=MAX_CAPTION),
            parse_mode=ParseMode.HTML,
            reply_markup=caption.markup,
            message_thread_id=thread_id,
            disable_notification=silent,
        )
        return await self._posted(call, thread_id=thread_id)

    @staticmethod
    async def _posted(call: Coroutine[Any, Any, Message], *, private: bool = False, thread_id: int | None) -> Message:
        """Run a send: a topic closed or gone is :class:`TopicGoneError`; in a private chat,
        Forbidden means the player is unreachable."""
        try:
            return await call
        except BadRequest as exc:
            if thread_id is not None and any(reason in str(exc).lower() for reason in TOPIC_GONE):
                raise TopicGoneError(str(exc)) from exc
            raise
        except Forbidden as exc:
            if not private:
                raise
            raise PlayerUnreachableError(str(exc)) from exc

    async def edit_photo(self, chat_id: int, message_id: int, png: bytes, caption: Rendered) -> Any:
        """Replace a photo message's picture, caption and buttons; True if done or unchanged, None
        if the message is gone."""
        media = InputMediaPhoto(
            png,  # bytes: PTB uploads them as a multipart part the media points to (attach://)
            filename="table.png",
            caption=fit_lines(caption.text.split("\n"), limit=MAX_CAPTION),
            parse_mode=ParseMode.HTML,
        )
        return await self._edited(self.bot.edit_message_media(media, chat_id, message_id, reply_markup=caption.markup))

    async def edit_caption(self, chat_id: int, message_id: int, caption: Rendered) -> Any:
        """Only the caption and buttons of a photo message (its picture stays); as :meth:`edit_photo`."""
        call = self.bot.edit_message_caption(
            chat_id,
            message_id,
            caption=fit_lines(caption.text.split("\n"), limit=MAX_CAPTION),
            parse_mode=ParseMode.HTML,
            reply_markup=caption.markup,
        )
        return await self._edited(call)

    @staticmethod
    async def _edited(call: Coroutine[Any, Any, Any], *, private: bool = False) -> Any:
        """Run an edit: True if done or unchanged, None if the message is gone; in a private chat,
        Forbidden means the player is unreachable."""
        try:
            await call
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

    async def edit(self, chat_id: int, message_id: int, rendered: Rendered, *, private: bool = False) -> Any:
        """Edit in place; True if done or unchanged, None if the message is gone."""
        call = self.bot.edit_message_text(
            fit_lines(rendered.text.split("\n")),
            chat_id,
            message_id,
            parse_mode=ParseMode.HTML,
            reply_markup=rendered.markup,
            disable_web_page_preview=True,
        )
        return await self._edited(call, private=private)

    async def drop_keyboard(self, chat_id: int, message_id: int) -> None:
        """Take the buttons off a message (it may be gone, or have none: fine)."""
        try:
            await self.bot.edit_message_reply_markup(chat_id, message_id, reply_markup=None)
        except (BadRequest, Forbidden) as exc:
            log.debug("message %s not cleared: %s", message_id, exc)

    async def pin(self, chat_id: int, message_id: int) -> None:
        """Pin a message without a notification. A nicety: a bot that may not pin leaves it be; an
        outage or the group's rate raises (the pin is tried again later, alone)."""
        try:
            await self.bot.pin_chat_message(chat_id, message_id, disable_notification=True)
        except (BadRequest, Forbidden) as exc:
            log.debug("message %s not pinned: %s", message_id, exc)

    async def unpin(self, chat_id: int, message_id: int) -> None:
        """Unpin a message (gone, not pinned or not allowed: fine). An outage raises: the clean-up is
        tried again later."""
        try:
            await self.bot.unpin_chat_message(chat_id, message_id)
        except (BadRequest, Forbidden) as exc:
            log.debug("message %s not unpinned: %s", message_id, exc)

    async def delete(self, chat_id: int, message_id: int) -> None:
        """Delete a message (gone already, or too old to delete: fine). An outage raises."""
        try:
            await self.bot.delete_message(chat_id, message_id)
        except (BadRequest, Forbidden) as exc:
            log.debug("message %s not deleted: %s", message_id, exc)
