"""/verify: check the chat's game, once it is over, against the commitment published at its deal."""

from __future__ import annotations

from telegram import Update
from telegram.ext import ContextTypes

from shithead_bot.i18n import translations
from shithead_bot.service import GameNotFoundError, NotOverYetError, ServiceError
from shithead_bot.telegram.context import bot_context, chat_language, is_private
from shithead_bot.telegram.handlers.respond import reply
from shithead_bot.telegram.render import replies
from shithead_bot.telegram.render.commitment import not_over_text, verdict_text, verify_help_text


async def verify(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/verify [number]: the chat's latest dealt game (or the one numbered), checked once it is over."""
    ctx = bot_context(context)
    chat = update.effective_chat
    if chat is None:
        return
    language = await chat_language(update, ctx)  # posted in the chat
    t = translations(language)
    number = game_number(context.args or [])
    if number == 0:
        await reply(update, verify_help_text(t))
        return
    try:
        verdict = await ctx.service.verify_game(chat.id, number)
    except NotOverYetError as exc:
        await reply(update, not_over_text(exc, t))
    except GameNotFoundError:
        if is_private(chat) and number is None:
            await reply(update, verify_help_text(t))
        else:
            await reply(update, replies.nothing_dealt(number, t))
    except ServiceError as exc:
        await reply(update, replies.command_refusal(exc, t))
    else:
        await reply(update, verdict_text(verdict, t, language))


def game_number(args: list[str]) -> int | None:
    """``/verify``'s game number: None for the latest, 0 for something that is not a number."""
    if not args:
        return None
    word = args[0].lstrip("#")
    return int(word) if word.isdigit() and int(word) > 0 else 0
