"""Away, not gone: /away 3d (or its buttons, also on a turn message) lets a computer play your
turns in every game until then; /back (or any press of a game's button) ends it sooner."""

from __future__ import annotations

from datetime import timedelta

from telegram import Update
from telegram.constants import ParseMode
from telegram.ext import ContextTypes

from shithead_bot.service import ServiceError
from shithead_bot.telegram.callback_data import Action, Button
from shithead_bot.telegram.context import BotContext, bot_context, is_private, language_of, person, texts, user_info
from shithead_bot.telegram.handlers.presses import Done, Press, presser
from shithead_bot.telegram.handlers.respond import follow_up, reply, reply_privately
from shithead_bot.telegram.parsing import SettingError, parse_away
from shithead_bot.telegram.render import keyboards, replies
from shithead_bot.telegram.render.away import away_choices_text, away_refused, away_text, away_toast, back_text
from shithead_bot.telegram.render.common import esc


async def away(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/away 3d: a computer plays for me until then; /away alone: how long? (answered in private)."""
    ctx, user, t = bot_context(context), person(update), texts(update)
    if user is None:
        return
    args = context.args or []
    if not args:
        until = await ctx.service.away_until(user.id)
        if update.effective_chat is not None and is_private(update.effective_chat):
            await reply(
                update, away_choices_text(until, t), keyboards.away_choices(ctx.codec, 0, t.gettext, until is not None)
            )
        else:
            await reply_privately(update, away_choices_text(until, t))
        return
    try:
        seconds = parse_away(" ".join(args))
        done = await ctx.service.go_away(user_info(user), timedelta(seconds=seconds))
    except SettingError as exc:
        await reply_privately(update, esc(away_refused(replies.in_words(exc, t), t)))
        return
    except ServiceError as exc:
        await reply_privately(update, replies.command_refusal(exc, t))
        return
    for game_id in done.game_ids:
        await ctx.deliver(game_id)
    assert done.until is not None
    await reply_privately(update, away_text(done.until, len(done.game_ids), t))


async def back(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/back: my turns are mine again, at once."""
    ctx, user, t = bot_context(context), person(update), texts(update)
    if user is None:
        return
    try:
        done = await ctx.service.come_back(user.id)
    except ServiceError as exc:
        await reply_privately(update, replies.command_refusal(exc, t))
        return
    for game_id in done.game_ids if done else []:
        await ctx.deliver(game_id)
    await reply_privately(update, back_text(done is not None, t))


async def away_button(update: Update, _c: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """A turn message's "Away…" (how long?), one of the durations, or "I am back"."""
    t = texts(update)
    if b.argument == "back":
        done = await ctx.service.come_back(presser(update))
        for game_id in done.game_ids if done else []:
            await ctx.deliver(game_id)
        said = back_text(done is not None, t)
        await settle_pressed(update, esc(said) if is_choices(update) else None)
        return Done(said)
    if not b.argument:
        until = await ctx.service.away_until(presser(update))
        choices = keyboards.away_choices(ctx.codec, b.game_id, t.gettext, until is not None)
        await reply(update, away_choices_text(until, t), choices)
        return Done()
    user = update.effective_user
    assert user is not None
    gone = await ctx.service.go_away(user_info(user), timedelta(seconds=parse_away(b.argument)))
    for game_id in gone.game_ids:
        await ctx.deliver(game_id)
    assert gone.until is not None
    await settle_pressed(update, away_text(gone.until, len(gone.game_ids), t))  # a toast shows no entity
    return Done(away_toast(gone.until, ctx.service.clock(), language_of(update), t))


def is_choices(update: Update) -> bool:
    """Pressed on /away's durations (not on a game message's lone "I am back")."""
    message = update.effective_message
    markup = message.reply_markup if message is not None else None
    return markup is not None and sum(len(row) for row in markup.inline_keyboard) > 1


async def settle_pressed(update: Update, html: str | None) -> None:
    """The pressed message is no longer a question: it becomes the answer (``html``), or loses its
    buttons. A message gone or unchanged meanwhile, or a player who blocked the bot, is no matter."""
    query = update.callback_query
    assert query is not None
    async with follow_up("away: the pressed message's edit"):
        if html is None:
            await query.edit_message_reply_markup(None)
        else:
            await query.edit_message_text(html, parse_mode=ParseMode.HTML, reply_markup=None)


PRESSES: dict[Action, Press] = {Action.AWAY: away_button}
