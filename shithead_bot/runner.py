"""``shithead-bot run``: migrate (or check) the schema, then run the bot until stopped.

Every failure a person can fix — no token, a rejected token, an unreachable Bot API, an
out-of-date schema — ends with one line on stderr and exit code 2, not a traceback.
"""

from __future__ import annotations

import logging
import re
import sys

from persistence.migrate import SchemaOutOfDateError, require_current, upgrade
from shithead_bot.config import Settings
from shithead_bot.redact import guard_stderr

# What @BotFather hands out: the bot's id, a colon, then letters, digits, - and _.
TOKEN_SHAPE = re.compile(r"\d+:[A-Za-z0-9_-]+")

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


def engine_kind() -> str:
    """Which engine runs: the one mypyc compiled at install time, or plain Python (same games, slower)."""
    from engine.native import COMPILED, compiled_modules

    found = compiled_modules()
    return f"compiled by mypyc ({len(found)} of {len(COMPILED)} modules)" if found else "plain Python"


def fail(message: str) -> int:
    print(f"shithead-bot: {message}", file=sys.stderr)
    return 2


def token_problem(token: str) -> str | None:
    """Why ``token`` cannot be a bot token (None: it may be one); never says the token itself."""
    if TOKEN_SHAPE.fullmatch(token):
        return None
    return (
        "TELEGRAM_BOT_TOKEN does not look like a bot token "
        "(digits, a colon, then letters, digits, - or _; get one from @BotFather)"
    )


def secrets_of(token: str) -> tuple[str, ...]:
    """What the log must never show: the token, and its secret half when it is long enough to be
    unmistakable on its own."""
    secret = token.partition(":")[2]
    return (token, secret) if len(secret) >= 8 else (token,)


def database_problem(exc: Exception) -> str:
    """A database that cannot be opened (a broken URL, a server that does not answer), in one line."""
    return f"cannot open the database: {type(exc).__name__}: {exc}".splitlines()[0]


def run(settings: Settings, *, migrate: bool = True) -> int:
    configure_logging(settings.log_level)
    if settings.telegram_bot_token is None or not settings.telegram_bot_token.get_secret_value().strip():
        return fail("no bot token: set TELEGRAM_BOT_TOKEN or pass --token (get one from @BotFather)")
    token = settings.telegram_bot_token.get_secret_value().strip()
    redact = guard_stderr(*secrets_of(token)).redact  # whatever a library's error text quotes
    problem = token_problem(token)
    if problem:
        return fail(problem)
    try:
        if migrate:
            upgrade(settings.database_url)
        else:
            require_current(settings.database_url)
    except SchemaOutOfDateError as exc:
        return fail(str(exc))
    except Exception as exc:  # an unreachable or broken database: say so in one line
        return fail(redact(database_problem(exc)))
    from shithead_bot.telegram.app import run_bot  # the Telegram side, only when it is needed

    problem = run_bot(settings, token, engine_kind())
    return fail(redact(problem)) if problem else 0
