"""What every handler needs, built once per process and kept in ``application.bot_data``."""

from __future__ import annotations

import asyncio
import gettext
import logging
from dataclasses import dataclass, field

from telegram import Chat, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.ext import ContextTypes

from shithead_bot.config import Settings
from shithead_bot.i18n import DEFAULT_LANGUAGE, pick_language, translations
from shithead_bot.service import GameService, NeedsPrivateChatError, Outbox, ServiceError, UserInfo
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.delivery import Delivery
from shithead_bot.timers.sweeper import Sweeper

log = logging.getLogger(__name__)
KEY = "shithead"
GROUP_ANONYMOUS_BOT = 1087968824  # the sender of an anonymous admin's messages (sender_chat: the group)
ANONYMOUS = 0  # the user id a use case gets for an anonymous admin: never a player, never a creator


@dataclass
class BotContext:
    service: GameService
    outbox: Outbox
    delivery: Delivery
    codec: Codec
    settings: Settings
    bot_username: str
    locks: dict[int, asyncio.Lock] = field(default_factory=dict)
    sweeper: Sweeper | None = None

    async def deliver(self, game_id: int | None) -> int:
        """Send a game's pending notices now (one sender per game in this process). The outbox
        follows on with what the game wrote meanwhile, claimed with each report: no loop here."""
        if game_id is None:
            return 0
        lock = self.locks.setdefault(game_id, asyncio.Lock())
        async with lock:
            total = await self.outbox.deliver(self.delivery, game_id=game_id)
        if not lock.locked():
            self.locks.pop(game_id, None)
        return total

    async def play_on(self, game_id: int | None) -> None:
        """The computers' chain a press handed back: thought out off the loop, applied, delivered.
        If this fails, the timer sweep carries it on (the game is due at once)."""
        if game_id is None:
            return
        try:
            await self.service.play_on(game_id)
        except ServiceError as exc:  # another worker, or the sweep, moved the game first
            log.info("game %s: the computers' chain was carried on elsewhere (%s)", game_id, type(exc).__name__)
        await self.deliver(game_id)

    async def resend_live(self, player_id: int) -> None:
        """A player we may write to again (unblocked, or a bare /start): the live message of every
        game where they may act now, so nothing waits on a link they never pressed."""
        for found in await self.service.games_of(player_id):
            try:
                asked = await self.service.ask_again(found.game.id, player_id, to_act_only=True)
            except ServiceError:  # the game ended meanwhile, or the player blocked the bot again
                continue
            if asked:
                await self.deliver(found.game.id)

    async def send_hand(self, game_id: int, player_id: int) -> None:
        """A fresh copy of a player's private message, through the game's outbox (after what it is
        still sending). NeedsPrivateChatError if the bot may not write to them — known before, or
        learnt by sending (they blocked the bot)."""
        await self.service.ask_again(game_id, player_id)
        await self.deliver(game_id)
        if not await self.service.may_message(player_id):
            raise NeedsPrivateChatError(player_id, game_id)

    def deep_link(self, action: str, game_id: int) -> str:
        return self.codec.deep_link(self.bot_username, action, game_id)


def bot_context(context: ContextTypes.DEFAULT_TYPE) -> BotContext:
    ctx: BotContext = context.bot_data[KEY]
    return ctx


def user_info(user: User) -> UserInfo:
    return UserInfo(user.id, user.first_name or user.username or str(user.id), user.username, user.language_code)


def anonymous_admin(update: Update) -> bool:
    """An admin writing as the group itself: ``sender_chat`` is the chat (the sender is GroupAnonymousBot)."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None or update.callback_query is not None:
        return False
    if message.sender_chat is not None:
        return message.sender_chat.id == chat.id
    return message.from_user is not None and message.from_user.id == GROUP_ANONYMOUS_BOT


def for_a_channel(update: Update) -> bool:
    """Sent on behalf of a channel (``sender_chat`` another chat): nobody's, it runs nothing."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None or update.callback_query is not None:
        return False
    return message.sender_chat is not None and message.sender_chat.id != chat.id


def person(update: Update) -> User | None:
    """The human behind an update: None for an anonymous admin or a post on behalf of a channel."""
    if anonymous_admin(update) or for_a_channel(update):
        return None
    return update.effective_user


async def speaks_as_admin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """Whether whoever sent this update is a chat admin: an anonymous admin is one by definition."""
    chat = update.effective_chat
    if chat is None:
        return False
    if anonymous_admin(update):
        return True
    user = person(update)
    return user is not None and await is_chat_admin(context, chat.id, user.id)


def is_private(chat: Chat | None) -> bool:
    return chat is not None and chat.type == ChatType.PRIVATE


def language_of(update: Update) -> str:
    """The catalog for whoever sent this update."""
    user = update.effective_user
    return pick_language(user.language_code if user else None)


def texts(update: Update) -> gettext.NullTranslations:
    """The gettext translations for whoever sent this update: for what only they read (a press's
    toast, a message in their private chat, a refusal sent them in private)."""
    return translations(language_of(update))


async def chat_language(update: Update, ctx: BotContext) -> str:
    """The language of what the bot posts in the update's chat, which everyone there reads: in a
    group, the chat's setting (English unless a chat admin set one), whoever wrote; in a private
    chat, the setting its player made there, else their own language."""
    chat = update.effective_chat
    if chat is None:
        return language_of(update)
    chosen = await ctx.service.chat_language(chat.id)
    if is_private(chat):
        return chosen or language_of(update)
    return chosen or DEFAULT_LANGUAGE


async def chat_texts(update: Update, ctx: BotContext) -> gettext.NullTranslations:
    """The gettext translations of :func:`chat_language`: for a reply posted in the chat."""
    return translations(await chat_language(update, ctx))


async def is_chat_admin(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> bool:
    """Creator or administrator of a group (the owner of a private chat counts too)."""
    if chat_id == user_id:
        return True
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except Exception as exc:  # a Bot API failure means "not known to be an admin"
        log.info("getChatMember %s/%s failed: %r", chat_id, user_id, exc)
        return False
    return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)
