"""What happens to every update before and after its handler: one log line (ids and kinds only),
the claim that makes it apply once across every worker, and the one error handler."""

from __future__ import annotations

import logging

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from telegram import Update
from telegram.constants import ChatType
from telegram.error import RetryAfter
from telegram.ext import ApplicationHandlerStop, ContextTypes

from engine import EngineError
from shithead_bot.service import ServiceError
from shithead_bot.service.faults import fault_name, is_transient
from shithead_bot.telegram.botapi import is_outage
from shithead_bot.telegram.context import anonymous_admin, bot_context, chat_texts, for_a_channel, texts
from shithead_bot.telegram.handlers.respond import answer, reply
from shithead_bot.telegram.render import replies

log = logging.getLogger("shithead_bot")
PERSONAL = frozenset({"hand", "forfeit", "quiet", "games"})  # about the sender's own games and hours


def update_kind(update: Update) -> str:
    """command, button, message, member (the bot's membership) or other — a metrics label."""
    if update.callback_query is not None:
        return "button"
    message = update.message
    if message is not None:
        return "command" if message.text and message.text.startswith("/") else "message"
    return "member" if update.my_chat_member is not None else "other"


def describe_update(update: Update) -> str:
    """An update's kind and ids, for the log: never a card, a text or button data."""
    user, chat = update.effective_user, update.effective_chat
    query, message = update.callback_query, update.message
    if query is not None:
        action, _, rest = (query.data or "?").partition(":")
        game = rest.partition(":")[0]
        action = action if action.isascii() and action.isalpha() and len(action) <= 2 else "?"
        kind = f"button {action} game {game if game.isascii() and game.isdigit() else '?'}"
    elif message is not None and message.text and message.text.startswith("/"):
        command = message.text.split()[0].split("@")[0]
        kind = "command " + (command if command.isascii() and len(command) <= 33 else "/?")
    else:
        kind = "message" if message is not None else "update"
    return f"update {update.update_id}: {kind} from user {user.id if user else '-'} in chat {chat.id if chat else '-'}"


async def log_update(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """One line per update at INFO."""
    log.info("%s", describe_update(update))


async def once(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Each update is applied at most once, across every worker: a redelivered one stops here (a
    press is answered as already done; its first delivery carries the real answer)."""
    message = update.message
    own = (message.chat.id, message.message_id) if message and message.chat.type == ChatType.PRIVATE else None
    if await bot_context(context).service.take_update(update.update_id, message=own):
        return
    log.info("update %s: delivered again, already taken; ignored", update.update_id)
    if update.callback_query is not None:
        await answer(update.callback_query, replies.already_done(texts(update)))
    raise ApplicationHandlerStop


def command_of(update: Update) -> str | None:
    """The command a message starts with, without its slash and ``@botname``."""
    message = update.message
    if message is None or not message.text or not message.text.startswith("/"):
        return None
    return message.text.split()[0][1:].split("@")[0].lower()


async def senders(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A post on behalf of a channel is nobody's: a command gets a clear answer and changes
    nothing. An anonymous admin runs the game (settings, lobby, pause, abort) but has no cards: a
    command about one's own games asks them to write as themselves."""
    command = command_of(update)
    if for_a_channel(update):
        if command is not None:
            await reply(update, replies.channel_cannot_play(await chat_texts(update, bot_context(context))))
        raise ApplicationHandlerStop
    if anonymous_admin(update) and command in PERSONAL:
        await reply(update, replies.anonymous_cannot_play(await chat_texts(update, bot_context(context))))
        raise ApplicationHandlerStop


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The one error handler: one line with the update's kind and ids and the error's class (the
    traceback at DEBUG) — never the update's content or a statement's parameters. A passing fault
    (:func:`passing`) is a warning, anything else an error. It never raises: the person is told
    (a press's toast, a command's reply) on a best-effort basis — during an outage that fails too."""
    error = context.error
    where = describe_update(update) if isinstance(update, Update) else f"job {getattr(context.job, 'name', '-')}"
    if passing(error):
        log.warning("%s failed: %s (a passing fault)", where, error_summary(error))
    else:
        log.error("%s failed: %s", where, error_summary(error))
    log.debug("traceback of the failure above", exc_info=error)
    if isinstance(update, Update):
        await tell_it_failed(update)


async def tell_it_failed(update: Update) -> None:
    """Something went wrong: a press's toast, or a command's reply. Best effort, and never raises
    (PTB would log the error handler's own failure with two tracebacks)."""
    try:
        if update.callback_query is not None:
            await answer(update.callback_query, replies.something_went_wrong(texts(update)))
        elif command_of(update) is not None:
            await reply(update, replies.something_went_wrong(texts(update)))
    except Exception as exc:  # whatever it is: the failure above is logged already
        log.debug("update %s: the failure could not be told (%s)", update.update_id, error_summary(exc))


# an operational error about the connection (not, say, SQLite's "no such table": a bug)
CONNECTION_WORDS = ("connect", "closed", "timeout", "timed out", "terminat", "unable to open database", "i/o error")


def passing(error: BaseException | None) -> bool:
    """A fault that passes by itself, not a bug: the Bot API unreachable, slow or overloaded (the
    network, a timeout, a 5xx, a flood wait), the database unreachable or its connection lost."""
    if error is None:
        return False
    if isinstance(error, RetryAfter) or is_outage(error):
        return True
    if isinstance(error, DBAPIError):
        if is_transient(error) or isinstance(error, InterfaceError):
            return True
        return isinstance(error, OperationalError) and any(word in str(error.orig).lower() for word in CONNECTION_WORDS)
    return isinstance(error, OSError | PoolTimeout)  # OSError: a connection refused or reset, a timeout


def error_summary(error: BaseException | None) -> str:
    """The error's class and, for errors that cannot carry game data, the first line of its message."""
    if error is None:
        return "unknown error"
    if isinstance(error, DBAPIError):
        return f"database error {fault_name(error)}"
    if isinstance(error, EngineError | ServiceError):
        return type(error).__name__
    first = str(error).splitlines()[0][:200] if str(error) else ""
    return f"{type(error).__name__}: {first}" if first else type(error).__name__
