"""The Telegram application, built in one visible place: every handler is registered here."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from datetime import timedelta

from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from telegram import Bot, BotCommand, Update
from telegram.error import InvalidToken, NetworkError
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from engine import EngineError
from persistence.db import make_engine, make_sessionmaker
from persistence.models import utcnow
from shithead_bot.service import GameService, Outbox, ServiceError
from shithead_bot.service.unit import fault_name
from shithead_bot.settings import Settings
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.context import KEY, BotContext, bot_context, texts
from shithead_bot.telegram.deliver import Delivery
from shithead_bot.telegram.handlers import buttons, chats, commands, settings
from shithead_bot.telegram.ratelimit import Limits, SendRate, SharedBuckets
from shithead_bot.telegram.replies import answer
from shithead_bot.timers.sweeper import Sweeper

log = logging.getLogger("shithead_bot")
LEFTOVER_AGE = timedelta(seconds=2)  # younger notices are being delivered by the update that made them


async def check_token(settings: Settings, token: str) -> str | None:
    """Ask the Bot API who we are before starting; a one-line reason when that fails."""
    bot = Bot(token, base_url=settings.telegram_api_url.rstrip("/"))
    try:
        async with bot:
            return None
    except (InvalidToken, NetworkError) as exc:
        return startup_problem(settings, exc)


def startup_problem(settings: Settings, exc: InvalidToken | NetworkError) -> str:
    """The one-line reason a bot cannot start."""
    if isinstance(exc, InvalidToken):
        return "the bot token was rejected by the Bot API (check TELEGRAM_BOT_TOKEN)"
    return f"cannot reach the Bot API at {settings.telegram_api_url}: {exc}"


def run_bot(settings: Settings, token: str) -> str | None:
    """Run until stopped: long polling, or a webhook when ``settings.webhook_url`` is set. Returns a
    one-line reason when the bot cannot start."""
    problem = asyncio.run(check_token(settings, token))
    if problem:
        return problem
    app = build_application(settings, token)
    try:
        if settings.webhook_url:
            path = hashlib.sha256(token.encode()).hexdigest()[:32]
            secret = settings.secret_token.get_secret_value() if settings.secret_token else None
            app.run_webhook(
                listen=settings.listen,
                port=settings.port,
                url_path=path,
                webhook_url=f"{settings.webhook_url.rstrip('/')}/{path}",
                secret_token=secret,
                allowed_updates=Update.ALL_TYPES,
            )
        else:
            app.run_polling(allowed_updates=Update.ALL_TYPES)
    except (InvalidToken, NetworkError) as exc:
        return startup_problem(settings, exc)
    return None


def build_application(settings: Settings, token: str) -> Application:
    """The bot: polling or webhook is chosen by the caller (``run_polling``/``run_webhook``)."""
    api_url = settings.telegram_api_url.rstrip("/")
    file_url = api_url[: -len("/bot")] + "/file/bot" if api_url.endswith("/bot") else api_url + "/file"
    app = (
        Application.builder()
        .token(token)
        .base_url(api_url)
        .base_file_url(file_url)
        .rate_limiter(
            SendRate(
                Limits(settings.send_per_second, settings.group_sends_per_minute, settings.private_sends_per_second)
            )
        )
        .concurrent_updates(64)
        .post_init(_post_init)
        .post_shutdown(_post_shutdown)
        .build()
    )
    app.bot_data["settings"] = settings
    app.bot_data["token"] = token
    _register(app)
    return app


def _register(app: Application) -> None:
    app.add_handler(TypeHandler(Update, log_update), group=-2)
    app.add_handler(TypeHandler(Update, once), group=-1)
    app.add_handler(CommandHandler("start", commands.start))
    app.add_handler(CommandHandler("help", commands.help_command))
    app.add_handler(CommandHandler("rules", commands.rules_command))
    app.add_handler(CommandHandler("newgame", commands.newgame))
    app.add_handler(CommandHandler("hand", commands.hand))
    app.add_handler(CommandHandler("games", commands.games))
    app.add_handler(CommandHandler("forfeit", commands.forfeit))
    app.add_handler(CommandHandler("abort", commands.abort))
    app.add_handler(CommandHandler("stats", commands.stats))
    app.add_handler(CommandHandler("pause", settings.pause))
    app.add_handler(CommandHandler("resume", settings.resume))
    app.add_handler(CommandHandler("settings", settings.settings))
    app.add_handler(CommandHandler("quiet", settings.quiet))
    app.add_handler(CallbackQueryHandler(buttons.button))
    app.add_handler(ChatMemberHandler(chats.my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, chats.migrated))
    app.add_handler(MessageHandler(filters.COMMAND, unknown_command))
    app.add_error_handler(on_error)


async def _post_init(app: Application) -> None:
    settings: Settings = app.bot_data["settings"]
    engine = make_engine(settings.database_url)
    app.bot_data["engine"] = engine
    service = GameService(make_sessionmaker(engine), settings)
    limiter = app.bot.rate_limiter
    if isinstance(limiter, SendRate) and service.dialect == "postgresql":
        limiter.buckets = SharedBuckets(service)  # one send rate for every worker on this database
    key = hashlib.sha256(b"shithead-callback:" + app.bot_data["token"].encode()).digest()
    codec = Codec(key)
    username = app.bot.username
    outbox = Outbox(service.sessions, lease=timedelta(seconds=settings.outbox_lease_seconds))
    delivery = Delivery(app.bot, service, codec, username, table_seconds=settings.table_edit_seconds)
    bot_ctx = BotContext(service, outbox, delivery, codec, settings, username)
    bot_ctx.sweeper = Sweeper(service, bot_ctx.deliver)
    app.bot_data[KEY] = bot_ctx
    await app.bot.set_my_commands([BotCommand(name, text) for name, text in commands.COMMANDS])
    assert app.job_queue is not None
    app.job_queue.run_repeating(sweep_outbox, interval=settings.outbox_sweep_seconds, first=0.2, name="outbox")
    app.job_queue.run_repeating(sweep_timers, interval=settings.sweep_seconds, first=0.5, name="timers")
    app.job_queue.run_repeating(forget_old_updates, interval=3600, first=60, name="forget")
    log.info("started as @%s on %s", username, make_url(settings.database_url).render_as_string(hide_password=True))


async def _post_shutdown(app: Application) -> None:
    engine = app.bot_data.get("engine")
    if engine is not None:
        await engine.dispose()


async def sweep_outbox(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Deliver whatever is pending: after a restart, after a failure, or another worker's leftovers."""
    ctx: BotContext = context.bot_data[KEY]
    sent = await ctx.outbox.deliver(ctx.delivery, older_than=LEFTOVER_AGE)
    if sent:
        log.info("outbox: delivered %d pending notices", sent)


async def sweep_timers(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Fire due reminders and deadlines, then wake up exactly at the next one if it comes before
    the next regular sweep (so 30-second turns feel right)."""
    ctx: BotContext = context.bot_data[KEY]
    assert ctx.sweeper is not None
    report = await ctx.sweeper.sweep()
    if report.fired or report.lost:
        log.info("timers: %d fired, %d lost to a move or another worker", report.fired, report.lost)
    upcoming = await ctx.service.next_due_at()
    job_queue = context.job_queue
    if upcoming is None or job_queue is None:
        return
    wait = (upcoming - utcnow()).total_seconds()
    if 0 < wait < ctx.settings.sweep_seconds:
        for job in job_queue.get_jobs_by_name("timers-precise"):
            job.schedule_removal()
        job_queue.run_once(sweep_timers, when=wait + 0.05, name="timers-precise")


async def forget_old_updates(context: ContextTypes.DEFAULT_TYPE) -> None:
    await bot_context(context).service.forget_old_updates()


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
    if await bot_context(context).service.take_update(update.update_id):
        return
    log.info("update %s: delivered again, already taken; ignored", update.update_id)
    if update.callback_query is not None:
        await answer(update.callback_query, texts(update).gettext("Already done."))
    raise ApplicationHandlerStop


async def unknown_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """An unknown /command in a private chat gets the help; in a group it is ignored."""
    chat = update.effective_chat
    if chat is not None and chat.type == "private":
        await commands.help_command(update, context)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The one error handler: one line with the update's kind and ids and the error's class (the
    traceback at DEBUG) — never the update's content or a statement's parameters."""
    error = context.error
    where = describe_update(update) if isinstance(update, Update) else f"job {getattr(context.job, 'name', '-')}"
    log.error("%s failed: %s", where, error_summary(error))
    log.debug("traceback of the failure above", exc_info=error)
    if isinstance(update, Update) and update.callback_query is not None:
        await answer(update.callback_query, texts(update).gettext("Something went wrong; please try again."))


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
