"""The Telegram application, built in one visible place: every handler is registered here."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.engine import make_url
from telegram import BotCommand, Update
from telegram.error import InvalidToken, NetworkError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from shithead_bot.config import Settings
from shithead_bot.service import GameService
from shithead_bot.telegram import jobs
from shithead_bot.telegram.handlers import away, chat_settings, chats, control, info, lobby, play, updates, verify
from shithead_bot.telegram.handlers.presses import dispatcher
from shithead_bot.telegram.handlers.updates import update_kind
from shithead_bot.telegram.metrics import Metrics
from shithead_bot.telegram.ratelimit import SendRate
from shithead_bot.telegram.render.info import COMMANDS
from shithead_bot.telegram.serve import serve
from shithead_bot.telegram.startup import calls_request, check_token, startup_problem, updates_request
from shithead_bot.telegram.wiring import install, send_rate, share_buckets
from shithead_bot.timers.sweeper import Sweeper

log = logging.getLogger("shithead_bot")


def run_bot(settings: Settings, token: str, engine: str = "") -> str | None:
    """Run until stopped: long polling, or a webhook when ``settings.webhook_url`` is set. Returns a
    one-line reason when the bot cannot start (then nothing else was said). ``engine``: which
    engine runs, logged once the token is known good."""
    problem = asyncio.run(check_token(settings, token))
    if problem:
        return problem
    if engine:
        log.info("engine: %s", engine)
    try:
        asyncio.run(serve(build_application(settings, token), settings, token))
    except (InvalidToken, NetworkError) as exc:
        return startup_problem(settings, exc)
    return None


class MeasuredApplication(Application):
    """Counts every update by kind and times its handling (for /metrics)."""

    async def process_update(self, update: object) -> None:
        metrics: Metrics | None = self.bot_data.get("metrics")
        if metrics is None or not isinstance(update, Update):
            await super().process_update(update)
            return
        kind = update_kind(update)
        metrics.updates.labels(kind).inc()
        with metrics.update_seconds.labels(kind).time():
            await super().process_update(update)


def build_application(settings: Settings, token: str) -> Application:
    """The bot, measured and rate-limited; webhook mode has no updater (the bot's own web server
    takes the updates)."""
    api_url = settings.telegram_api_url.rstrip("/")
    file_url = api_url[: -len("/bot")] + "/file/bot" if api_url.endswith("/bot") else api_url + "/file"
    limiter = send_rate(settings)
    builder = (
        Application.builder()
        .application_class(MeasuredApplication)
        .token(token)
        .base_url(api_url)
        .base_file_url(file_url)
        .request(calls_request())
        .get_updates_request(updates_request())
        .rate_limiter(limiter)
        .concurrent_updates(64)
        .post_init(_post_init)
        .post_shutdown(_post_shutdown)
    )
    if settings.webhook_url:
        builder = builder.updater(None)
    app = builder.build()
    metrics = Metrics()
    limiter.on_call = metrics.api_call
    app.bot_data["metrics"] = metrics
    app.bot_data["settings"] = settings
    app.bot_data["token"] = token
    _register(app)
    return app


def _register(app: Application) -> None:
    app.add_handler(TypeHandler(Update, updates.log_update), group=-3)
    app.add_handler(TypeHandler(Update, updates.once), group=-2)
    app.add_handler(TypeHandler(Update, updates.senders), group=-1)
    app.add_handler(CommandHandler("start", info.start))
    app.add_handler(CommandHandler("help", info.help_command))
    app.add_handler(CommandHandler("rules", info.rules_command))
    app.add_handler(CommandHandler("games", info.games))
    app.add_handler(CommandHandler("stats", info.stats))
    app.add_handler(CommandHandler("newgame", lobby.newgame))
    app.add_handler(CommandHandler("hand", play.hand))
    app.add_handler(CommandHandler("forfeit", play.forfeit))
    app.add_handler(CommandHandler("abort", control.abort))
    app.add_handler(CommandHandler("pause", control.pause))
    app.add_handler(CommandHandler("resume", control.resume))
    app.add_handler(CommandHandler("settings", chat_settings.settings))
    app.add_handler(CommandHandler("quiet", chat_settings.quiet))
    app.add_handler(CommandHandler("verify", verify.verify))
    app.add_handler(CommandHandler("away", away.away))
    app.add_handler(CommandHandler("back", away.back))
    presses = {**lobby.PRESSES, **play.PRESSES, **control.PRESSES, **chat_settings.PRESSES, **away.PRESSES}
    app.add_handler(CallbackQueryHandler(dispatcher(presses)))
    app.add_handler(ChatMemberHandler(chats.my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, chats.migrated))
    app.add_handler(MessageHandler(filters.COMMAND, info.unknown_command))
    app.add_error_handler(updates.on_error)


async def _post_init(app: Application) -> None:
    settings: Settings = app.bot_data["settings"]
    service = GameService.connect(settings)
    app.bot_data["service"] = service
    limiter = app.bot.rate_limiter
    if isinstance(limiter, SendRate):
        share_buckets(limiter, service)
        limiter.on_private_post = lambda chat, message: service.note_messages(chat, [message])
    bot_ctx = install(app, service, settings)
    bot_ctx.sweeper = Sweeper(service, bot_ctx.deliver)
    username = bot_ctx.bot_username
    await app.bot.set_my_commands([BotCommand(name, text) for name, text in COMMANDS])
    assert app.job_queue is not None
    queue = app.job_queue
    jobs.every(queue, jobs.sweep_outbox, interval=settings.outbox_sweep_seconds, first=0.2, name="outbox")
    jobs.every(queue, jobs.sweep_timers, interval=settings.sweep_seconds, first=0.5, name="timers")
    jobs.every(queue, jobs.forget_old_updates, interval=3600, first=60, name="forget")
    log.info("started as @%s on %s", username, make_url(settings.database_url).render_as_string(hide_password=True))
    if not app.bot.can_read_all_group_messages:
        log.warning(
            "privacy mode is on (getMe: can_read_all_group_messages is false): in a group where another bot "
            "posted last, a bare /newgame does not reach this bot; /newgame@%s does (the bot's group texts "
            "write commands that way). To receive bare commands, turn privacy mode off with @BotFather "
            "(/setprivacy) and add the bot to its groups again.",
            username,
        )


async def _post_shutdown(app: Application) -> None:
    service = app.bot_data.get("service")
    if service is not None:
        await service.close()
