"""Every inline button press: decode and check the signed data, call its feature's handler, answer
the press (its toast, or a refusal keyed by the exception's class), then deliver what changed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any

from telegram import Update
from telegram.ext import ContextTypes

from shithead_bot.service import NeedsPrivateChatError, NotAllowedError, ServiceError
from shithead_bot.telegram.callback_data import Action, BadCallbackError, Button, Confirm, NotYourQuestionError
from shithead_bot.telegram.context import ANONYMOUS, BotContext, bot_context, texts
from shithead_bot.telegram.handlers.respond import answer, follow_up
from shithead_bot.telegram.render import replies

log = logging.getLogger(__name__)


@dataclass
class Done:
    """What a press did: the toast to show, and the game whose notices to deliver."""

    toast: str | None = None
    game_id: int | None = None
    thinking: bool = False  # computers think before they move: they play on after the answer


Press = Callable[[Update, ContextTypes.DEFAULT_TYPE, BotContext, Button], Awaitable[Done]]
Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]


def dispatcher(presses: Mapping[Action, Press]) -> Handler:
    """The one CallbackQueryHandler callback: each press goes to the handler of its action."""

    async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Every inline button press."""
        query = update.callback_query
        assert query is not None
        ctx, t = bot_context(context), texts(update)
        try:
            pressed = ctx.codec.decode(query.data)
            handler = presses.get(pressed.action)
            if handler is None:
                raise BadCallbackError(f"no handler for {pressed.action}")
            done = await handler(update, context, ctx, pressed)
        except BadCallbackError as exc:
            log.warning("refused a press by user %s: %s", query.from_user.id, exc)
            await answer(query, replies.refusal(exc, t))
            return
        except NeedsPrivateChatError as exc:  # one tap opens the private chat and finishes the job
            link = "join" if pressed.action == Action.JOIN else "hand"
            await answer(query, url=ctx.deep_link(link, exc.game_id or 0))
            return
        except ServiceError as exc:  # the class only: an engine's reason may describe the presser's hand
            log.info("refused a press by user %s: %s", query.from_user.id, type(exc).__name__)
            await answer(query, replies.refusal(exc, t))
            return
        # The answer goes out first; the next player's message need not wait for Telegram's reply to
        # it, and the computers think after it (the press's own notices go out meanwhile).
        answered = asyncio.create_task(answer(query, done.toast))
        try:
            await asyncio.gather(ctx.deliver(done.game_id), *([ctx.play_on(done.game_id)] if done.thinking else []))
        finally:
            await answered

    return button


def presser(update: Update) -> int:
    """The id of the user who pressed."""
    assert update.effective_user is not None
    return update.effective_user.id


def confirmed(update: Update, b: Button, *, admin: bool = False) -> bool:
    """A confirmation's answer. Only whoever asked may give it (NotYourQuestionError); an anonymous
    admin's (owner ANONYMOUS) any chat admin may (``admin``: the presser is one; else NotAllowedError)."""
    answer = Confirm.parse(b.argument)
    if answer.owner == ANONYMOUS:
        if not admin:
            raise NotAllowedError("an anonymous admin's confirmation: for chat admins")
    elif answer.owner != presser(update):
        raise NotYourQuestionError("someone else's confirmation")
    return answer.yes


async def close_confirmation(update: Update, text: str) -> None:
    """The answered confirmation says what was decided (best effort: the decision stands)."""
    query = update.callback_query
    assert query is not None
    async with follow_up("the confirmation's edit"):
        await query.edit_message_text(text)
