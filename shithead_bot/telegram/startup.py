"""Before the bot starts: is the token accepted by the Bot API, and which secret guards the webhook.
Every problem a person can fix is one line."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import ssl
from typing import Any

import httpx
from telegram import Bot
from telegram.error import InvalidToken, NetworkError, TelegramError
from telegram.request import HTTPXRequest

from shithead_bot.config import TELEGRAM_API_URL, Settings

log = logging.getLogger("shithead_bot")


class QuietRequest(HTTPXRequest):
    """A request that does not log a traceback when the answer is not JSON (a wrong URL answers
    with an empty 404 or a web page): the caller says what is wrong, in one line."""

    @staticmethod
    def parse_json_payload(payload: bytes) -> dict[str, Any]:
        try:
            found: dict[str, Any] = json.loads(payload.decode("utf-8", "replace"))
        except ValueError as exc:
            raise TelegramError("Invalid server response") from exc
        return found


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One TLS context for all of the process's Bot API clients, as httpx would make it (its CA
    bundle, SSL_CERT_FILE and SSL_CERT_DIR): httpx makes one per client by default, 30 ms of CPU
    each, and a bot has three clients (the token check, its calls, getUpdates)."""
    return httpx.create_ssl_context()


def _request(pool: int) -> HTTPXRequest:
    return HTTPXRequest(connection_pool_size=pool, httpx_kwargs={"verify": tls_context()})


def calls_request() -> HTTPXRequest:
    """The client for the bot's calls: PTB's builder's 256 connections, on the shared TLS context."""
    return _request(256)


def updates_request() -> HTTPXRequest:
    """The client for getUpdates (the bot has one in webhook mode too): two connections, not PTB's
    one. On stopping, PTB confirms the last updates with one more getUpdates, which found the only
    connection still held by the poll it had just cancelled and logged an error with a traceback
    (a pool timeout)."""
    return _request(2)


def api_client(token: str, base_url: str, base_file_url: str) -> Bot:
    """A Bot API client outside an Application (tests and benches drive the delivery with one), with
    the clients :func:`~shithead_bot.telegram.app.build_application` gives the bot."""
    return Bot(
        token,
        base_url=base_url,
        base_file_url=base_file_url,
        request=calls_request(),
        get_updates_request=updates_request(),
    )


async def check_token(settings: Settings, token: str) -> str | None:
    """Ask the Bot API who we are before starting; a one-line reason when that fails."""
    request = QuietRequest(httpx_kwargs={"verify": tls_context()})
    bot = Bot(token, base_url=settings.telegram_api_url.rstrip("/"), request=request)
    try:
        async with bot:
            return None
    except TelegramError as exc:
        return startup_problem(settings, exc)


def startup_problem(settings: Settings, exc: TelegramError) -> str:
    """The one-line reason a bot cannot start. A well-formed token is answered 401 when Telegram
    does not know it; a 404 (or an answer that is not JSON) means the URL is not a Bot API."""
    url = settings.telegram_api_url
    answer = str(exc.__cause__ or exc).lower()  # PTB wraps the answer in "The token `…` was rejected"
    hint = f"(check TELEGRAM_API_URL; Telegram's is {TELEGRAM_API_URL})"
    if isinstance(exc, InvalidToken) and "not found" in answer:
        return f"the Bot API URL looks wrong: {url} answered 404 Not Found {hint}"
    if isinstance(exc, InvalidToken):
        return "the bot token was rejected by the Bot API (check TELEGRAM_BOT_TOKEN)"
    if isinstance(exc, NetworkError):
        return f"cannot reach the Bot API at {url}: {exc}"
    return f"the Bot API URL looks wrong: {url} did not answer like a Bot API ({exc}) {hint}"


def webhook_secret(settings: Settings, token: str) -> str:
    """The ``X-Telegram-Bot-Api-Secret-Token`` the webhook requires: ``SECRET_TOKEN``, or one derived
    from the bot token — the same on every worker, never guessable, never logged."""
    if settings.secret_token and settings.secret_token.get_secret_value():
        return settings.secret_token.get_secret_value()
    log.info("webhook: no SECRET_TOKEN set, so requests must carry a secret derived from the bot token")
    return hashlib.sha256(b"shithead-webhook-secret:" + token.encode()).hexdigest()
