"""``shithead-bot run``: migrate (or check) the schema, then run the bot until stopped.

Every failure a person can fix — no token, a rejected token, an unreachable Bot API, an
out-of-date schema — ends with one line on stderr and exit code 2, not a traceback.
"""

from __future__ import annotations

import logging
import sys

from persistence.migrate import SchemaOutOfDateError, require_current, upgrade
from shithead_bot.config import Settings

# Libraries whose debug output carries what must never be logged: statements with their parameters
# (snapshots, seeds), Bot API requests with their texts (hands), URLs with the token.
QUIET_LIBRARIES = {
    "httpx": logging.WARNING,
    "httpcore": logging.WARNING,
    "aiosqlite": logging.WARNING,
    "asyncpg": logging.WARNING,
    "sqlalchemy": logging.WARNING,
    "telegram": logging.INFO,
    "apscheduler": logging.WARNING,
    "alembic": logging.WARNING,
}


def configure_logging(level: str) -> None:
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=level.upper())
    for name, floor in QUIET_LIBRARIES.items():
        logging.getLogger(name).setLevel(max(floor, logging.getLogger().level))


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
    from shithead_bot.telegram.app import run_bot  # the Telegram side, only when it is needed

    problem = run_bot(settings, token)
    return fail(problem) if problem else 0
