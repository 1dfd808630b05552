"""``shithead-bot run``: migrate (or check) the schema, then run the bot until stopped.

Every failure a person can fix — no token, a rejected token, an unreachable Bot API, an
out-of-date schema — ends with one line on stderr and exit code 2, not a traceback.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import sys

from telegram import Bot, Update
from telegram.error import InvalidToken, NetworkError

from persistence.migrate import SchemaOutOfDateError, require_current, upgrade
from shithead_bot.settings import Settings


def configure_logging(level: str) -> None:
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=level.upper())
    logging.getLogger("httpx").setLevel(logging.WARNING)  # it would log every URL, token included
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)


async def check_token(settings: Settings, token: str) -> str | None:
    """Ask the Bot API who we are before starting; a one-line reason when that fails."""
    bot = Bot(token, base_url=settings.telegram_api_url.rstrip("/"))
    try:
        async with bot:
            return None
    except InvalidToken:
        return "the bot token was rejected by the Bot API (check TELEGRAM_BOT_TOKEN)"
    except NetworkError as exc:
        return f"cannot reach the Bot API at {settings.telegram_api_url}: {exc}"


def fail(message: str) -> int:
    print(f"shithead-bot: {message}", file=sys.stderr)
    return 2


def run(settings: Settings, *, migrate: bool = True) -> int:
    configure_logging(settings.log_level)
    if settings.telegram_bot_token is None or not settings.telegram_bot_token.get_secret_value().strip():
        return fail("no bot token: set TELEGRAM_BOT_TOKEN or pass --token (get one from @BotFather)")
    token = settings.telegram_bot_token.get_secret_value().strip()
    try:
        if migrate:
            upgrade(settings.database_url)
        else:
            require_current(settings.database_url)
    except SchemaOutOfDateError as exc:
        return fail(str(exc))
    except Exception as exc:  # an unreachable or broken database: say so in one line
        return fail(f"cannot open the database: {type(exc).__name__}: {exc}".splitlines()[0])
    problem = asyncio.run(check_token(settings, token))
    if problem:
        return fail(problem)
    from shithead_bot.telegram.app import build_application

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
    except InvalidToken:
        return fail("the bot token was rejected by the Bot API (check TELEGRAM_BOT_TOKEN)")
    except NetworkError as exc:
        return fail(f"cannot reach the Bot API at {settings.telegram_api_url}: {exc}")
    return 0
