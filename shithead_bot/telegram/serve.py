"""Running the bot until it is told to stop: long polling, or a webhook on the bot's own web server
(with ``/healthz`` and ``/metrics``; in polling mode those are on ``metrics_port`` when set).

SIGTERM (or SIGINT) stops it gracefully: no new updates are taken, the ones in hand are finished,
the outbox is flushed, and the process exits 0 — within about :data:`FLUSH_SECONDS` (plus a send in
flight): no send starts after that, and what is left goes back to the outbox for the next worker.
Whatever holds the stop up, the process exits :data:`STOP_LIMIT_SECONDS` after the signal.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import Application

from shithead_bot.config import Settings
from shithead_bot.redact import install_redaction
from shithead_bot.telegram.context import KEY, BotContext
from shithead_bot.telegram.handlers.updates import error_summary
from shithead_bot.telegram.jobs import stop_arming
from shithead_bot.telegram.startup import webhook_secret
from shithead_bot.telegram.web import WebServer

log = logging.getLogger("shithead_bot")
FLUSH_SECONDS = 10.0
# SIGTERM to exit, at most, whatever the stop meets (a backlog of updates in hand, a machine too busy
# to finish them): inside the 30 s that systemd's unit and compose give before they kill.
STOP_LIMIT_SECONDS = 25.0
FLUSH_POLL_SECONDS = 0.2  # a notice due now but held elsewhere: look again this soon


def webhook_path(token: str) -> str:
    """The URL path Telegram posts to: derived from the token, so it is not guessable."""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


async def serve(app: Application, settings: Settings, token: str) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    webhook = bool(settings.webhook_url)
    secret = webhook_secret(settings, token) if webhook else None
    if secret is not None:
        install_redaction(secret)
    web = WebServer(app, settings, webhook_path=webhook_path(token) if webhook else None, secret=secret)
    async with app:
        assert app.post_init is not None
        await app.post_init(app)
        await app.start()
        if webhook:
            await web.start(settings.listen, settings.port)
            url = f"{(settings.webhook_url or '').rstrip('/')}/{webhook_path(token)}"
            await app.bot.set_webhook(url, secret_token=secret, allowed_updates=Update.ALL_TYPES)
        else:
            await start_polling(app)
            if settings.metrics_port:
                await web.start(settings.listen, settings.metrics_port)
        log.info("running; SIGTERM stops gracefully")
        await stop.wait()
        log.info("stopping: finishing the updates in hand, then flushing the outbox")
        limit = exit_after(STOP_LIMIT_SECONDS)
        deadline = time.monotonic() + FLUSH_SECONDS
        ctx: BotContext | None = app.bot_data.get(KEY)
        if ctx is not None:  # a backlog of many games would keep the worker for minutes: it is left
            ctx.delivery.stop_at(deadline)  # to the next one
            if ctx.sweeper is not None:  # so are the timers due from now on
                ctx.sweeper.stop()
        web.accepting = False
        if app.updater is not None and app.updater.running:
            await app.updater.stop()
        stop_arming(app)
        await app.stop()  # handles what is queued, waits for running handlers and jobs
        if ctx is not None:
            await flush_outbox(ctx, deadline)
        await web.stop()
        if app.post_shutdown is not None:
            await app.post_shutdown(app)
    limit.cancel()
    log.info("stopped")


def exit_after(seconds: float, leave: Callable[[int], object] = os._exit) -> threading.Timer:
    """End the process ``seconds`` from now unless cancelled: a stop that overruns exits all the
    same — nothing is lost, what was not finished is in the database (updates Telegram delivers
    again, the outbox, the timers) for the next worker. A thread, so a busy event loop cannot hold
    it back; exit code 0: the stop was asked for."""

    def overrun() -> None:
        log.warning("stopping took more than %.0f s: exiting now, what is left is the next worker's", seconds)
        for handler in logging.getLogger().handlers + log.handlers:
            with contextlib.suppress(Exception):
                handler.flush()
        leave(0)

    timer = threading.Timer(seconds, overrun)
    timer.daemon = True
    timer.start()
    return timer


async def start_polling(app: Application) -> None:
    """Long polling for every kind of update, in the background."""
    assert app.updater is not None
    await app.updater.start_polling(allowed_updates=Update.ALL_TYPES, error_callback=polling_failed)


def polling_failed(error: TelegramError) -> None:
    """A getUpdates that failed — PTB tries again, waiting longer each time (up to 30 s): one line,
    not PTB's traceback for each try of an outage."""
    log.warning("polling: getUpdates failed (%s); trying again", error_summary(error))


async def flush_outbox(ctx: BotContext, deadline: float) -> None:
    """Deliver what the last updates wrote — also what the rate limits put off for a moment — until
    ``deadline`` (monotonic; the rest waits for the next worker: nothing is lost)."""
    with contextlib.suppress(Exception):  # a failing delivery stays in the outbox for next time
        while time.monotonic() < deadline:
            if await ctx.outbox.deliver(ctx.delivery):
                continue
            due = await ctx.outbox.next_due()
            if due is None:
                return
            wait = max((due - ctx.service.clock()).total_seconds(), FLUSH_POLL_SECONDS)
            if time.monotonic() + wait >= deadline:
                log.info("stopping: notices due later are left to the next worker")
                return
            await asyncio.sleep(wait)
