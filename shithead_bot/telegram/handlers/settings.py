"""/settings (a chat's game, rules and timers), /quiet (a player's quiet hours), /pause, /resume."""

from __future__ import annotations

import gettext

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import ContextTypes

from engine import PRESETS, EngineError
from persistence.models import Chat
from shithead_bot.i18n import available_languages
from shithead_bot.service import ServiceError
from shithead_bot.telegram.callback_data import Action, Button
from shithead_bot.telegram.context import BotContext, bot_context, is_chat_admin, is_private, texts
from shithead_bot.telegram.handlers.commands import reply
from shithead_bot.telegram.render import esc
from shithead_bot.telegram.replies import refusal
from shithead_bot.timers.policy import (
    TURN_CHOICES,
    QuietHours,
    SettingError,
    parse_reminders,
    parse_timeouts,
    parse_turn_time,
)

USAGE = (
    "/settings turn 1h · /settings reminders 50% 1h (or off, default) · /settings timeouts 3 (0: never) · "
    "/settings quiet_deadlines on · /settings game shithead|neighbor · /settings preset smelly · "
    "/settings rule 8=skip · /settings rules clear · /settings language en"
)


def turn_text(seconds: int | None) -> str:
    return next((name for name, value in TURN_CHOICES.items() if value == seconds), f"{seconds}s")


def describe(chat: Chat, t: gettext.NullTranslations) -> str:
    _ = t.gettext
    rules = ", ".join(f"{k}={v}" for k, v in chat.house_rules.items()) or _("none")
    reminders = " ".join(chat.reminders) if chat.reminders is not None else _("default (half time, 1 h before)")
    return "\n".join(
        [
            _("⚙️ <b>Settings of this chat</b>"),
            _("Game: {kind} · preset: {preset} · house rules: {rules}").format(
                kind=chat.game_kind, preset=chat.preset, rules=esc(rules)
            ),
            _("Turn time: {turn} · reminders: {reminders}").format(
                turn=turn_text(chat.turn_seconds), reminders=esc(reminders or _("off"))
            ),
            _("Removal after {n} timeouts in a row (0: never) · deadlines skip quiet hours: {quiet}").format(
                n=chat.max_timeouts, quiet=_("on") if chat.deadlines_skip_quiet else _("off")
            ),
            _("Language: {language}").format(language=chat.language or _("each player's own")),
            "",
            esc(USAGE),
        ]
    )


def turn_buttons(ctx: BotContext, chat_id: int) -> InlineKeyboardMarkup:
    buttons = [
        InlineKeyboardButton(
            name, callback_data=ctx.codec.encode(Button(Action.SETTING, 0, 0, f"turn.{name}.{chat_id}"))
        )
        for name in TURN_CHOICES
    ]
    return InlineKeyboardMarkup([buttons[i : i + 4] for i in range(0, len(buttons), 4)])


async def settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/settings: show, or change one setting (chat admins; anyone in a private chat)."""
    ctx = bot_context(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    t = texts(update)
    row = await ctx.service.ensure_chat(chat.id, chat.type, chat.title or user.first_name)
    args = context.args or []
    if not args:
        await reply(update, describe(row, t), turn_buttons(ctx, chat.id))
        return
    if not is_private(chat) and not await is_chat_admin(context, chat.id, user.id):
        await reply(update, t.gettext("Only a chat admin can change the settings."))
        return
    try:
        row = await change(ctx, chat.id, args[0].lower(), args[1:])
    except (SettingError, EngineError, ValueError) as exc:
        await reply(update, esc(str(exc)) + "\n" + esc(USAGE))
        return
    await reply(update, describe(row, t))


async def change(ctx: BotContext, chat_id: int, key: str, values: list[str]) -> Chat:
    service = ctx.service
    if key == "turn" and len(values) == 1:
        return await service.set_turn_time(chat_id, parse_turn_time(values[0]))
    if key == "reminders" and values:
        reminders = None if values == ["default"] else parse_reminders(values)
        return await service.update_chat(chat_id, reminders=reminders)
    if key == "timeouts" and len(values) == 1:
        return await service.update_chat(chat_id, max_timeouts=parse_timeouts(values[0]))
    if key == "quiet_deadlines" and values in (["on"], ["off"]):
        return await service.update_chat(chat_id, deadlines_skip_quiet=values == ["on"])
    if key == "game" and values in (["shithead"], ["neighbor"]):
        return await service.update_chat(chat_id, game_kind=values[0], house_rules={})
    if key == "preset" and len(values) == 1 and values[0] in PRESETS:
        return await service.update_chat(chat_id, preset=values[0], game_kind="shithead", house_rules={})
    if key == "rule" and len(values) == 1 and "=" in values[0]:
        return await _add_rule(ctx, chat_id, values[0])
    if key == "rules" and values == ["clear"]:
        return await service.update_chat(chat_id, house_rules={})
    if key == "language" and len(values) == 1 and values[0] in [*available_languages(), "auto"]:
        return await service.update_chat(chat_id, language=None if values[0] == "auto" else values[0])
    raise SettingError(f"I cannot read /settings {key} {' '.join(values)}")


async def _add_rule(ctx: BotContext, chat_id: int, item: str) -> Chat:
    chat = await ctx.service.ensure_chat(chat_id, "group", "")
    key, _, value = item.partition("=")
    rules = {**chat.house_rules, key.strip(): value.strip()}
    base = chat.model_copy(update={"house_rules": {}})
    ctx.service.rules_for(base).with_rules(rules)  # raises RulesError (with the reason) if not valid
    return await ctx.service.update_chat(chat_id, house_rules=rules)


async def setting_button(update: Update, context: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> str | None:
    """A turn-time button of /settings."""
    user = update.effective_user
    assert user is not None
    name, _, chat_id = b.argument.removeprefix("turn.").partition(".")
    chat = int(chat_id)
    if chat != user.id and not await is_chat_admin(context, chat, user.id):
        return texts(update).gettext("Only a chat admin can change the settings.")
    await ctx.service.set_turn_time(chat, parse_turn_time(name))
    return texts(update).gettext("Turn time: {turn}").format(turn=name)


async def quiet(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/quiet 23:00-08:00 Europe/Paris · /quiet off · /quiet: no reminders in that window."""
    ctx = bot_context(context)
    user = update.effective_user
    if user is None:
        return
    _ = texts(update).gettext
    args = context.args or []
    try:
        if args == ["off"]:
            await ctx.service.set_quiet_hours(user.id, None)
        elif args:
            await ctx.service.set_quiet_hours(user.id, QuietHours.parse(" ".join(args)))
    except SettingError as exc:
        await reply(update, esc(str(exc)))
        return
    except ServiceError as exc:
        await reply(update, refusal(exc, texts(update)))
        return
    current = await ctx.service.quiet_hours(user.id)
    if current is None:
        await reply(update, _("No quiet hours. Set some with /quiet 23:00-08:00 Europe/Paris."))
    else:
        await reply(update, _("Quiet hours: {hours}. No reminders then; /quiet off to remove.").format(hours=current))


async def pause(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/pause: at once for the game's creator or a chat admin, else a vote (a majority pauses)."""
    await _pause_or_resume(update, context, resume=False)


async def resume(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/resume: the game goes on; the current turn starts again with its full time."""
    await _pause_or_resume(update, context, resume=True)


async def _pause_or_resume(update: Update, context: ContextTypes.DEFAULT_TYPE, *, resume: bool) -> None:
    ctx = bot_context(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    t = texts(update)
    game = await ctx.service.open_game(chat.id)
    if game is None:
        await reply(update, t.gettext("There is no game here."))
        return
    admin = await is_chat_admin(context, chat.id, user.id)
    try:
        if resume:
            result = await ctx.service.resume(game.id or 0, user.id, is_admin=admin)
        else:
            result = await ctx.service.vote_pause(game.id or 0, user.id, is_admin=admin)
    except ServiceError as exc:
        await reply(update, refusal(exc, t))
        return
    if not resume and result.status != "paused":
        await reply(update, t.gettext("Your vote to pause is counted; a majority of the players pauses the game."))
    await ctx.deliver(result.game_id)
