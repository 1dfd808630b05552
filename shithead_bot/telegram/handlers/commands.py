"""Slash commands: /start /help /rules /newgame /hand /games /forfeit /abort /stats."""

from __future__ import annotations

import logging

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Message, ReplyParameters, Update
from telegram.constants import ParseMode
from telegram.error import Forbidden
from telegram.ext import ContextTypes

from engine import GAME_KINDS, PRESETS, EngineError, rules_from_dict
from shithead_bot.i18n import N_, pick_language
from shithead_bot.service import AlreadyOpenError, Ctx, GameNotFoundError, ServiceError
from shithead_bot.telegram.callback_data import Action, BadCallbackError, Button
from shithead_bot.telegram.context import BotContext, bot_context, is_chat_admin, is_private, texts, user_info
from shithead_bot.telegram.deliver import PlayerUnreachableError
from shithead_bot.telegram.handlers.buttons import confirmation
from shithead_bot.telegram.render import esc, rules_text
from shithead_bot.telegram.replies import refusal

log = logging.getLogger(__name__)
PRIVATE_COMPUTERS = 2

COMMANDS = [
    ("newgame", N_("start a game here (add a preset: smelly, classic, free, standard, or neighbor)")),
    ("hand", N_("send me my cards again")),
    ("games", N_("my games, to jump back in")),
    ("rules", N_("the rules of this chat's game")),
    ("forfeit", N_("leave the game you are playing")),
    ("abort", N_("end this chat's game (creator or admin)")),
    ("stats", N_("this chat's leaderboard")),
    ("pause", N_("pause this chat's game (creator or admin; others vote)")),
    ("resume", N_("go on with a paused game")),
    ("settings", N_("this chat's game, rules and turn time")),
    ("quiet", N_("your quiet hours, e.g. /quiet 23:00-08:00 Europe/Paris")),
    ("help", N_("what I can do")),
]


async def reply(
    update: Update, text: str, markup: InlineKeyboardMarkup | None = None, *, reply_to: int | None = None
) -> Message | None:
    """Answer in the chat the update came from (``reply_to``: quoting that message, e.g. the open lobby)."""
    message = update.effective_message
    if message is None:
        return None
    quote = ReplyParameters(reply_to, allow_sending_without_reply=True) if reply_to else None
    return await message.reply_text(
        text, parse_mode=ParseMode.HTML, reply_markup=markup, disable_web_page_preview=True, reply_parameters=quote
    )


async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/help: what the bot does and its commands."""
    _ = texts(update).gettext
    lines = [
        _("🃏 I run games of <b>Shithead</b> and <b>Shit On Your Neighbor</b> in your group, at your own pace."),
        _("Your cards and buttons come in our private chat; the group sees one table message."),
        "",
    ]
    lines += [f"/{name} — {_(text)}" for name, text in COMMANDS]
    await reply(update, "\n".join(lines))


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/start in private (the deep links land here): remember we may write, then join or resend cards."""
    ctx = bot_context(context)
    user = update.effective_user
    if user is None or not is_private(update.effective_chat):
        await help_command(update, context)
        return
    await ctx.service.see_user(user_info(user), can_message=True)
    payload = context.args[0] if context.args else ""
    if not payload:
        await help_command(update, context)
        return
    try:
        action, game_id = ctx.codec.read_deep_link(payload)
    except BadCallbackError:
        log.warning("unknown /start payload from user %s", user.id)
        await reply(update, texts(update).gettext("This link is not valid or no longer works. /games lists yours."))
        return
    if action == "join":
        await _join(update, ctx, game_id)
    else:
        await _send_hand(update, ctx, game_id)


async def _join(update: Update, ctx: BotContext, game_id: int) -> None:
    _ = texts(update).gettext
    assert update.effective_user is not None
    try:
        await ctx.service.join(game_id, user_info(update.effective_user))
    except ServiceError as exc:
        await reply(update, refusal(exc, texts(update)))
        return
    await reply(update, _("You joined game #{id}. Your cards will come here.").format(id=game_id))
    await ctx.deliver(game_id)


async def _send_hand(update: Update, ctx: BotContext, game_id: int) -> None:
    assert update.effective_user is not None
    try:
        game = await ctx.service.game_view(game_id)
    except GameNotFoundError as exc:
        await reply(update, refusal(exc, texts(update)))
        return
    seat = game.seat_of(update.effective_user.id)
    if seat is None:
        await reply(update, texts(update).gettext("You are not playing in this game."))
        return
    await ctx.delivery.send_hand(game, seat)
    await ctx.deliver(game_id)


async def newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/newgame [preset|neighbor] [KEY=VALUE…]: a lobby in a group; in private, a game against computers."""
    ctx = bot_context(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    t = texts(update)
    kind, preset, rules = _parse_newgame(context.args or [])
    if kind is None:
        await reply(update, t.gettext("Unknown game. Try /newgame standard, smelly, classic, free or neighbor."))
        return
    private = is_private(chat)
    if private:
        await ctx.service.see_user(user_info(user), can_message=True)
    try:  # house rules given here are for this game only; /settings saves them for the chat
        result = await ctx.service.open_lobby(
            chat.id,
            user_info(user),
            kind=kind,
            preset=preset,
            house_rules=rules,
            chat_kind=chat.type,
            chat_title=chat.title or user.first_name,
        )
        if private:
            for _ in range(PRIVATE_COMPUTERS):
                await ctx.service.add_computer(result.game_id, user.id)
            await ctx.service.start(result.game_id, user.id)
    except AlreadyOpenError as exc:
        await reply(update, refusal(exc, t), reply_to=exc.message_id)
        return
    except (ServiceError, EngineError) as exc:
        await reply(update, refusal(exc, t) if isinstance(exc, ServiceError) else esc(str(exc)))
        return
    if result.ignored_settings:
        await reply(
            update,
            t.gettext(
                "This chat's saved house rules cannot be used ({reason}), so this game plays the plain preset. "
                "A chat admin can fix them with /settings rules clear."
            ).format(reason=esc(result.ignored_settings)),
        )
    await ctx.deliver(result.game_id)


def _parse_newgame(args: list[str]) -> tuple[str | None, str | None, dict[str, str]]:
    """``neighbor`` / a preset name, then ``KEY=VALUE`` house rules."""
    kind, preset = "shithead", None
    rules: dict[str, str] = {}
    for arg in args:
        word = arg.strip().lower()
        if "=" in word:
            key, _, value = word.partition("=")
            rules[key] = value
        elif word in GAME_KINDS:
            kind = word
        elif word in PRESETS:
            preset = word
        else:
            return None, None, {}
    return kind, preset, rules


async def rules_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/rules: the open game's rules, or this chat's."""
    ctx = bot_context(context)
    chat = update.effective_chat
    if chat is None:
        return
    game = await ctx.service.open_game(chat.id)
    language = _language(update)
    if game is not None:
        rules = rules_from_dict(game.kind, game.rules)
    else:
        chat_row = await ctx.service.ensure_chat(chat.id, chat.type, chat.title or "")
        rules = ctx.service.rules_for(chat_row)
    await reply(update, rules_text(rules, language))


def _language(update: Update) -> str:
    user = update.effective_user
    return pick_language(user.language_code if user else None)


async def hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/hand: re-send your private message for your game(s)."""
    ctx = bot_context(context)
    user = update.effective_user
    if user is None:
        return
    games = await ctx.service.games_of(user.id)
    chat = update.effective_chat
    if chat is not None and not is_private(chat):
        games = [g for g in games if g.chat.id == chat.id]
    if not games:
        await reply(update, texts(update).gettext("You have no game going on."))
        return
    for found in games:
        game = await ctx.service.game_view(found.game.id or 0)
        try:
            await ctx.delivery.send_hand(game, found.seat)
        except PlayerUnreachableError:
            link = ctx.codec.deep_link(ctx.bot_username, "hand", found.game.id or 0)
            button = InlineKeyboardButton(texts(update).gettext("Open the bot"), url=link)
            await reply(
                update,
                texts(update).gettext("I cannot message you yet: open our chat first."),
                InlineKeyboardMarkup([[button]]),
            )
            return


async def games(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/games: your open games, one button each to get your cards again — always in private, since
    it names your other chats."""
    ctx = bot_context(context)
    user = update.effective_user
    if user is None:
        return
    _ = texts(update).gettext
    mine = await ctx.service.games_of(user.id)
    if not mine:
        text, markup = _("You have no game going on. Start one with /newgame."), None
    else:
        lines, buttons = [_("Your games:")], []
        for found in mine:
            title = esc(found.chat.title or _("private game"))
            lines.append(f"#{found.game.id} · {title} · {found.game.kind} · {found.game.status}")
            data = ctx.codec.encode(Button(Action.HAND, found.game.id or 0))
            label = _("🃏 #{id} {title}").format(id=found.game.id, title=found.chat.title)
            buttons.append([InlineKeyboardButton(label, callback_data=data)])
        text, markup = "\n".join(lines), InlineKeyboardMarkup(buttons)
    if is_private(update.effective_chat):
        await reply(update, text, markup)
        return
    try:
        await context.bot.send_message(user.id, text, parse_mode=ParseMode.HTML, reply_markup=markup)
    except Forbidden:
        link = InlineKeyboardButton(_("Open the bot"), url=f"https://t.me/{ctx.bot_username}")
        await reply(update, _("I cannot message you yet: open our chat first."), InlineKeyboardMarkup([[link]]))
        return
    await reply(update, _("I sent your games to our private chat."))


async def forfeit(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/forfeit: asks for confirmation, for this chat's game (or, in private, your only game)."""
    ctx = bot_context(context)
    user = update.effective_user
    if user is None:
        return
    _ = texts(update).gettext
    game = await _my_game(update, ctx)
    if game is None:
        await reply(update, _("You are not playing a game here."))
        return
    markup = confirmation(ctx, Action.FORFEIT, game.game.id or 0, user.id, _("🏳 Yes, leave"), _("No"))
    question = _("Leave game #{id} for good? You will take the worst free place.").format(id=game.game.id)
    await reply(update, question, markup)


async def abort(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/abort: end this chat's game (its creator or a chat admin), after confirmation."""
    ctx = bot_context(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    _ = texts(update).gettext
    game = await ctx.service.open_game(chat.id)
    if game is None:
        await reply(update, _("There is no game here."))
        return
    if game.created_by != user.id and not await is_chat_admin(context, chat.id, user.id):
        await reply(update, _("Only the game's creator or a chat admin can do that."))
        return
    markup = confirmation(ctx, Action.ABORT, game.id or 0, user.id, _("🛑 Yes, abort"), _("No"))
    await reply(update, _("Abort game #{id}? Nobody wins.").format(id=game.id), markup)


async def _my_game(update: Update, ctx: BotContext) -> Ctx | None:
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None
    assert user is not None
    mine = await ctx.service.games_of(user.id)
    if not is_private(chat):
        mine = [g for g in mine if g.chat.id == chat.id]
    return await ctx.service.game_view(mine[0].game.id or 0) if mine else None  # the most recent


async def stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/stats: in a group, its leaderboard (3 finished games to be ranked) and its games per preset;
    in private, your own record across every chat."""
    ctx = bot_context(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    _ = texts(update).gettext
    if is_private(chat):
        mine = await ctx.service.player_record(user.id)
        if mine is None:
            await reply(update, _("No finished game yet."))
            return
        await reply(
            update,
            _(
                "🏆 Your record: {games} games, {wins} won, {losers} times the loser, average place {average:.2f}."
            ).format(games=mine.games, wins=mine.firsts, losers=mine.losers, average=mine.average_place),
        )
        return
    board = await ctx.service.leaderboard(chat.id)
    lines = (
        [_("🏆 <b>Leaderboard</b> (average place, wins, times loser)")]
        if board
        else [_("No leaderboard yet: it takes 3 finished games per player.")]
    )
    for i, row in enumerate(board, 1):
        lines.append(f"{i}. {esc(row.name)} — {row.average_place:.2f} · {row.firsts}/{row.games} · 💩{row.losers}")
    presets = await ctx.service.games_per_preset(chat.id)
    if presets:
        played = " · ".join(f"{esc(p.preset)} {p.games}" for p in presets)
        lines.append(_("Games played: {presets}").format(presets=played))
    await reply(update, "\n".join(lines))
