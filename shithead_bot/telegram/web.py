"""The bot's own web server: the webhook Telegram posts updates to, ``/healthz`` and ``/metrics``.

In webhook mode it listens on the webhook port; in polling mode, when ``metrics_port`` is set, it
serves only the health check and the metrics there. The webhook requires Telegram's secret token
header and hands each update to the application's queue (answered 200 at once: the update is
taken once, in the database, whichever worker handles it). Whatever else arrives is refused with a
4xx and one warning line, never a 5xx (Telegram would send it again and again) or a traceback.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import hdrs, web
from prometheus_client import CONTENT_TYPE_LATEST
from telegram import Update
from telegram.ext import Application

from shithead_bot.config import Settings
from shithead_bot.telegram.context import KEY, BotContext
from shithead_bot.telegram.metrics import Metrics

log = logging.getLogger("shithead_bot")
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
PING_TIMEOUT = 3.0
MAX_BODY_BYTES = 1024**2  # an update is a few KB; aiohttp's default limit, said here
JSON_TYPE = "application/json"


@dataclass(frozen=True)
class Health:
    ok: bool
    checks: dict[str, dict[str, Any]]

    def body(self) -> dict[str, Any]:
        return {"status": "ok" if self.ok else "failing", "checks": self.checks}


def sweeps_health(metrics: Metrics, settings: Settings) -> dict[str, dict[str, Any]]:
    """A sweep is healthy when it finished within a few of its intervals (or the bot just started)."""
    limits = {"timers": max(60.0, 10 * settings.sweep_seconds), "outbox": max(30.0, 10 * settings.outbox_sweep_seconds)}
    checks = {}
    for which, limit in limits.items():
        age = metrics.sweeps.age(which)
        checks[f"{which}_sweep"] = {"ok": age <= limit, "age_seconds": round(age, 1), "limit_seconds": limit}
    return checks


async def check_health(ctx: BotContext, metrics: Metrics, settings: Settings) -> Health:
    started = time.monotonic()
    try:
        await asyncio.wait_for(ctx.service.ping(), PING_TIMEOUT)
        database: dict[str, Any] = {"ok": True, "ms": round((time.monotonic() - started) * 1000, 1)}
    except Exception as exc:  # any failure to answer is "not healthy", said in one word
        database = {"ok": False, "error": type(exc).__name__}
    checks = {"database": database, "bot_api": metrics.api_health.check(), **sweeps_health(metrics, settings)}
    return Health(all(check["ok"] for check in checks.values()), checks)


def parse_update(body: bytes, application: Application) -> Update | None:
    """The update a webhook body holds; None for anything else — bytes that are not UTF-8 (JSON's
    only encoding, whatever charset a header names), text that is not JSON, JSON nested deeper than
    Python recurses, JSON that is not an object with an integer ``update_id``, or an object PTB
    cannot read as an update."""
    try:
        data = json.loads(body.decode("utf-8"))  # UnicodeDecodeError is a ValueError
        if not isinstance(data, dict) or type(data.get("update_id")) is not int:
            return None
        return Update.de_json(data, application.bot)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None


class WebServer:
    def __init__(self, application: Application, settings: Settings, *, webhook_path: str | None, secret: str | None):
        self.application = application
        self.settings = settings
        self.webhook_path = webhook_path
        self.secret = secret
        self.accepting = True
        self.app = web.Application(client_max_size=MAX_BODY_BYTES)
        self.app.router.add_get("/healthz", self.healthz)
        self.app.router.add_get("/metrics", self.metrics)
        if webhook_path is not None:
            self.app.router.add_post(f"/{webhook_path}", self.webhook)
        self._runner: web.AppRunner | None = None

    @property
    def bot_context(self) -> BotContext:
        ctx: BotContext = self.application.bot_data[KEY]
        return ctx

    @property
    def metrics_of(self) -> Metrics:
        found: Metrics = self.application.bot_data["metrics"]
        return found

    async def start(self, host: str, port: int) -> None:
        self._runner = web.AppRunner(self.app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        log.info(
            "listening on %s:%s (%s)",
            host,
            port,
            "webhook, health, metrics" if self.webhook_path else "health, metrics",
        )

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def webhook(self, request: web.Request) -> web.Response:
        if not self.accepting:
            return web.Response(status=503, text="shutting down")  # Telegram delivers it again, elsewhere
        given = request.headers.get(SECRET_HEADER, "")
        if self.secret is not None and not hmac.compare_digest(given.encode(), self.secret.encode()):
            log.warning("webhook: a request without the right secret token was refused")
            return web.Response(status=403)
        if request.content_type != JSON_TYPE:
            given = request.content_type if hdrs.CONTENT_TYPE in request.headers else "none"
            log.warning("webhook: a request that is not JSON (Content-Type: %s) was refused", given[:100])
            return web.Response(status=415)
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            log.warning("webhook: a request larger than %d bytes was refused", MAX_BODY_BYTES)
            return web.Response(status=413)
        update = parse_update(body, self.application)
        if update is None:
            log.warning("webhook: a request that is not an update was refused")
            return web.Response(status=400)
        await self.application.update_queue.put(update)
        return web.Response(status=200)

    async def healthz(self, request: web.Request) -> web.Response:
        health = await check_health(self.bot_context, self.metrics_of, self.settings)
        return web.json_response(health.body(), status=200 if health.ok else 503)

    async def metrics(self, request: web.Request) -> web.Response:
        body = await self.metrics_of.render(self.bot_context.service)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})
