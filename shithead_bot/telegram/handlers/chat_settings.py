"""A chat's settings (/settings and its turn-time buttons; chat admins change them) and a player's
quiet hours (/quiet)."""

from __future__ import annotations

from telegram import Update
from telegram.ext import ContextTypes

from engine import PRESETS, EngineError, GameKind
from engine.ai import LEVELS
from shithead_bot.i18n import available_languages
from shithead_bot.service import TABLE_STYLES, Autoplay, ChatSnapshot, Notify, ServiceError, StaleSettingsError
from shithead_bot.service.inbox import parse_digest
from shithead_bot.telegram.callback_data import Action, Button, TurnChoice
from shithead_bot.telegram.context import (
    BotContext,
    bot_context,
    chat_texts,
    is_chat_admin,
    is_private,
    person,
    speaks_as_admin,
    texts,
    user_info,
)
from shithead_bot.telegram.handlers.presses import Done, Press, presser
from shithead_bot.telegram.handlers.respond import follow_up, reply, reply_privately
from shithead_bot.telegram.parsing import (
    SettingError,
    parse_quiet_hours,
    parse_reminders,
    parse_timeouts,
    parse_timezone,
    parse_turn_time,
)
from shithead_bot.telegram.render import esc, keyboards, replies
from shithead_bot.telegram.render.rules import (
    SETTINGS_USAGE,
    autoplay_text,
    autoplay_unknown,
    digest_text,
    notify_text,
    notify_unknown,
    setting_changed,
    settings_text,
)


async def settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/settings: show, or change one setting (chat admins; anyone in a private chat)."""
    ctx = bot_context(context)
    chat, user = update.effective_chat, person(update)
    if chat is None:
        return
    current = await ctx.service.ensure_chat(chat.id, chat.type, chat.title or (user.first_name if user else ""))
    args = context.args or []
    if args and args[0].lower() == "autoplay":
        await autoplay(update, ctx, args[1:])
        return
    if args and args[0].lower() == "notify":
        await notify(update, ctx, args[1:])
        return
    if args and args[0].lower() == "digest":
        await digest(update, ctx, args[1:])
        return
    t = await chat_texts(update, ctx)  # posted in the chat; a refusal to one person is theirs
    if not args:
        times = keyboards.turn_times(ctx.codec, chat.id, t, current.settings_version)
        await reply(update, settings_text(current, t), times)
        return
    if not is_private(chat) and not await speaks_as_admin(update, context):
        await reply_privately(update, replies.admins_only(texts(update)))
        return
    try:
        changed = await change(ctx, chat.id, args[0].lower(), args[1:])
    except (SettingError, EngineError, ValueError) as exc:  # the asker's mistake: theirs to read
        mine = texts(update)
        await reply_privately(update, esc(replies.in_words(exc, mine)) + "\n" + esc(SETTINGS_USAGE))
        return
    t = await chat_texts(update, ctx)  # maybe a new language
    await reply(update, setting_changed(args[0].lower(), current, changed, t))  # one line: the list is /settings'


async def change(ctx: BotContext, chat_id: int, key: str, values: list[str]) -> ChatSnapshot:
    """One ``/settings KEY VALUE…``: read it, then the one use case that saves it."""
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
    if key == "game" and values in ([GameKind.SHITHEAD], [GameKind.NEIGHBOR]):
        return await service.update_chat(chat_id, game_kind=values[0], house_rules={})
    if key == "preset" and len(values) == 1 and values[0] in PRESETS:
        return await service.update_chat(chat_id, preset=values[0], game_kind=GameKind.SHITHEAD, house_rules={})
    if key == "rule" and len(values) == 1 and "=" in values[0]:
        rule, _, value = values[0].partition("=")
        return await service.add_house_rule(chat_id, rule, value)
    if key == "rules" and values == ["clear"]:
        return await service.update_chat(chat_id, house_rules={})
    if key == "table" and len(values) == 1 and values[0] in TABLE_STYLES:
        return await service.update_chat(chat_id, table_style=values[0])
    if key == "language" and len(values) == 1 and values[0] in [*available_languages(), "auto"]:
        return await service.update_chat(chat_id, language=None if values[0] == "auto" else values[0])
    if key in STANDIN_SETTINGS and len(values) == 1 and values[0] in STANDIN_SETTINGS[key][1]:
        return await service.update_chat(chat_id, **{STANDIN_SETTINGS[key][0]: values[0]})
    if key == "timezone" and len(values) == 1:
        return await service.update_chat(chat_id, timezone=parse_timezone(values[0]))
    raise SettingError(replies.SETTING_UNREADABLE, what=f"{key[:20]} {' '.join(values)[:40]}".strip())


STANDIN_SETTINGS: dict[str, tuple[str, tuple[str, ...]]] = {  # /settings KEY VALUE -> the chat's column, choices
    "standin": ("standin_level", LEVELS),
    "on_timeout": ("on_timeout", ("standin", "minimal")),
    "after_timeouts": ("after_timeouts", ("remove", "computer")),
}


async def autoplay(update: Update, ctx: BotContext, values: list[str]) -> None:
    """/settings autoplay off|public|all: which of my own forced moves the bot makes for me (a
    player's setting, in every game; answered in private)."""
    user, t = person(update), texts(update)
    if user is None:
        return
    choices = [str(a) for a in Autoplay]
    if len(values) == 1 and values[0].lower() in choices:
        setting = await ctx.service.set_autoplay(user_info(user), Autoplay(values[0].lower()))
    elif values:
        await reply_privately(update, autoplay_unknown(" ".join(values), t))
        return
    else:
        setting = await ctx.service.autoplay_of(user.id)
    await reply_privately(update, autoplay_text(setting, t))


async def notify(update: Update, ctx: BotContext, values: list[str]) -> None:
    """/settings notify smart|every: when my turns notify me (a player's setting, in every game;
    answered in private)."""
    user, t = person(update), texts(update)
    if user is None:
        return
    if len(values) == 1 and values[0].lower() in [str(n) for n in Notify]:
        setting = await ctx.service.set_notify(user_info(user), Notify(values[0].lower()))
    elif values:
        await reply_privately(update, notify_unknown(" ".join(values), t))
        return
    else:
        setting = await ctx.service.notify_of(user.id)
    _, every = await ctx.service.digest_of(user.id)
    await reply_privately(update, notify_text(setting, every, t))


async def digest(update: Update, ctx: BotContext, values: list[str]) -> None:
    """/settings digest 4h: digest mode's interval (30m, 2h, 1d…; bare: the current one), a player's
    setting answered in private; nonsense gets one line saying what is expected."""
    user, t = person(update), texts(update)
    if user is None:
        return
    if values:
        try:
            seconds = parse_digest(values[0] if len(values) == 1 else " ".join(values))
        except SettingError as exc:
            await reply_privately(update, esc(replies.in_words(exc, t)))
            return
        await ctx.service.set_digest(user_info(user), seconds)
    setting, every = await ctx.service.digest_of(user.id)
    await reply_privately(update, digest_text(setting, every, t))


async def turn_button(update: Update, context: ContextTypes.DEFAULT_TYPE, ctx: BotContext, b: Button) -> Done:
    """A turn-time button of /settings: used once (its keyboard goes, as it does when the settings
    changed since it was shown: then it is refused)."""
    choice = TurnChoice.parse(b.argument)
    if choice.chat_id != presser(update) and not await is_chat_admin(context, choice.chat_id, presser(update)):
        return Done(replies.admins_only(texts(update)))
    try:
        await ctx.service.set_turn_time(choice.chat_id, parse_turn_time(choice.name), version=b.version)
    except StaleSettingsError:
        await drop_pressed_keyboard(update)
        raise
    await drop_pressed_keyboard(update)
    return Done(replies.turn_time_set(choice.name, texts(update)))


async def drop_pressed_keyboard(update: Update) -> None:
    """The pressed message's buttons go (best effort: what the press did stands)."""
    query = update.callback_query
    assert query is not None
    async with follow_up("settings: the pressed keyboard's removal"):
        await query.edit_message_reply_markup(None)


async def quiet(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/quiet 23:00-08:00 Europe/Paris · /quiet off · /quiet: no reminders in that window."""
    ctx = bot_context(context)
    user = update.effective_user
    if user is None:
        return
    args = context.args or []
    try:
        if args == ["off"]:
            await ctx.service.set_quiet_hours(user.id, None)
        elif args:
            await ctx.service.set_quiet_hours(user.id, parse_quiet_hours(" ".join(args)))
    except SettingError as exc:
        await reply_privately(update, esc(replies.in_words(exc, texts(update))))
        return
    except ServiceError as exc:
        await reply_privately(update, replies.command_refusal(exc, texts(update)))
        return
    current = await ctx.service.quiet_hours(user.id)
    await reply_privately(update, replies.quiet_hours_text(current, texts(update)))  # a person's own: in private


PRESSES: dict[Action, Press] = {Action.SETTING: turn_button}
