"""The lobby: /newgame (a lobby in a group, a game against computers in private), and its buttons —
Join (also through a deep link), Leave, computers, Start — and Rematch at the end."""

from __future__ import annotations

import gettext

from telegram import Update
from telegram.ext import ContextTypes

from engine import EngineError
from engine.ai import DEFAULT_LEVEL
from shithead_bot.service import AlreadyOpenError, LobbyFullError, ServiceError, WrongStateError
from shithead_bot.telegram.callback_data import Action, Button, ComputerChoice
from shithead_bot.telegram.context import (
    BotContext,
    anonymous_admin,
    bot_context,
    chat_texts,
    is_chat_admin,
    is_private,
    texts,
    user_info,
)
from shithead_bot.telegram.handlers.presses import Done, Press, presser
from shithead_bot.telegram.handlers.respond import reply, reply_privately
from shithead_bot.telegram.parsing import NewGame, parse_newgame
from shithead_bot.telegram.render import esc, replies

PRIVATE_COMPUTERS = 2


async def newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/newgame [preset|neighbor] [KEY=VALUE…]: a lobby in a group; in private, a game against computers."""
    ctx = bot_context(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    t = await chat_texts(update, ctx)  # posted in the chat
    asked = parse_newgame(context.args or [])
    if asked is None:  # the asker's mistake: theirs to read
        await reply_privately(update, replies.unknown_game(texts(update)))
        return
    title = chat.title or user.first_name
    try:  # house rules given here are for this game only; /settings saves them for the chat
        if is_private(chat):
            result = await ctx.service.open_private_game(
                user_info(user), kind=asked.kind, preset=asked.preset, house_rules=asked.house_rules,
                computers=asked.computers or PRIVATE_COMPUTERS, level=asked.level or DEFAULT_LEVEL, chat_title=title,
            )  # fmt: skip
        else:  # an anonymous admin's lobby has no creator: nobody is seated, a chat admin starts it
            creator = None if anonymous_admin(update) else user_info(user)
            result = await ctx.service.open_lobby(
                chat.id, creator, kind=asked.kind, preset=asked.preset, house_rules=asked.house_rules,
                chat_kind=chat.type, chat_title=title, thread_id=topic_of(update),
            )  # fmt: skip
    except AlreadyOpenError as exc:
        await reply(update, replies.refusal(exc, t), reply_to=exc.message_id)
        return
    except LobbyFullError as exc:  # in private: too many computers asked for
        await reply(update, replies.too_many_computers(exc.max_seats, t))
        return
    except (ServiceError, EngineError) as exc:  # an engine error here is a house rule's reason: for the asker
        mine = texts(update)
        await reply_privately(
            update, replies.command_refusal(exc, mine) if isinstance(exc, ServiceError) else esc(str(exc))
        )
        return
    if result.ignored_settings:
        await reply(update, replies.saved_rules_ignored(result.ignored_settings, t))
    await tell_about_levels(update, asked, t)
    await ctx.deliver(result.game_id)


async def tell_about_levels(update: Update, asked: NewGame, t: gettext.NullTranslations) -> None:
    """In private without a level: which level the computers play at, and how to choose one. In a
    group, where a level or a number was given: computers are added with the lobby's buttons."""
    chat = update.effective_chat
    if chat is None:
        return
    if is_private(chat) and asked.level is None:
        await reply(update, replies.computers_level(DEFAULT_LEVEL, t))
    elif not is_private(chat) and (asked.level is not None or asked.computers is not None):
        await reply(update, replies.computers_by_buttons(t))


def topic_of(update: Update) -> int | None:
    """The forum topic a command came from (None: not a forum, or its General topic)."""
    message = update.effective_message
    return message.message_thread_id if message is not None and message.is_topic_message else None


async def join_by_link(update: Update, ctx: BotContext, game_id: int) -> None:
    """/start join_<game>: the deep link of a player who had not opened the private chat yet."""
    assert update.effective_user is not None
    t = texts(update)
    try:
        await ctx.service.join(game_id, user_info(update.effective_user))
    except ServiceError as exc:
        await reply(update, replies.too_late_to_join(exc, game_id, t) or replies.command_refusal(exc, t))
        return
    await reply(update, replies.joined_by_link(game_id, t))
    await ctx.deliver(game_id)


async def join(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    assert update.effective_user is not None
    try:
        await ctx.service.join(b.game_id, user_info(update.effective_user))
    except WrongStateError as exc:  # pressed on a lobby that was started meanwhile
        late = replies.too_late_to_join(exc, b.game_id, texts(update))
        if late is None:
            raise
        return Done(late)
    return Done(replies.joined_toast(texts(update)), b.game_id)


async def leave(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    await ctx.service.leave(b.game_id, presser(update))
    return Done(None, b.game_id)


async def add_computer(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    choice = ComputerChoice.parse(b.argument)
    await ctx.service.add_computer(b.game_id, presser(update), choice.level or DEFAULT_LEVEL, seen=choice.seen)
    return Done(None, b.game_id)


async def remove_computer(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    await ctx.service.remove_computer(b.game_id, presser(update), seen=ComputerChoice.parse(b.argument).seen)
    return Done(None, b.game_id)


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """Start: the lobby's creator or a chat admin."""
    game = await ctx.service.game_view(b.game_id)
    user_id = presser(update)
    admin = game.game.created_by != user_id and await is_chat_admin(context, game.chat.id, user_id)
    await ctx.service.start(b.game_id, user_id, is_admin=admin)
    return Done(replies.dealt_toast(texts(update)), b.game_id)


async def rematch(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    result = await ctx.service.rematch(b.game_id, presser(update))
    return Done(None, result.game_id)


PRESSES: dict[Action, Press] = {
    Action.JOIN: join,
    Action.LEAVE: leave,
    Action.ADD_COMPUTER: add_computer,
    Action.REMOVE_COMPUTER: remove_computer,
    Action.START: start,
    Action.REMATCH: rematch,
}
