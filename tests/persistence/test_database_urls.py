"""A ``DATABASE_URL`` in the form PostgreSQL's own tools print (``postgresql://``, ``postgres://``,
with ``?sslmode=``), or named for another driver, works wherever the bot reads one: it is mapped to
the async driver (asyncpg, aiosqlite)."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import make_url

from persistence.db import async_url
from shithead_bot.config import Settings
from tests.test_cli_data import cli


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("postgresql://bot:p%40ss@db:5433/games", "postgresql+asyncpg://bot:p%40ss@db:5433/games"),
        ("postgres://bot@db/games", "postgresql+asyncpg://bot@db/games"),
        ("postgresql+psycopg://bot@db/games", "postgresql+asyncpg://bot@db/games"),
        ("postgresql+psycopg2://bot@db/games", "postgresql+asyncpg://bot@db/games"),
        ("postgresql://bot@db/games?sslmode=require", "postgresql+asyncpg://bot@db/games?ssl=require"),
        ("postgresql+asyncpg://bot@db/games", "postgresql+asyncpg://bot@db/games"),
        ("sqlite:///shithead.db", "sqlite+aiosqlite:///shithead.db"),
        ("sqlite+aiosqlite:////tmp/shithead.db", "sqlite+aiosqlite:////tmp/shithead.db"),
    ],
)
def test_a_url_is_mapped_to_the_async_driver(given: str, used: str) -> None:
    assert async_url(given) == used
    assert Settings(database_url=given).database_url == used


def plain(url: str, scheme: str) -> str:
    """``url`` (asyncpg) as PostgreSQL's tools print it."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False).replace(
        "postgresql://", f"{scheme}://", 1
    )


@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
def test_every_command_takes_the_url_postgresql_prints(pg_db_url: str, scheme: str) -> None:
    url = plain(pg_db_url, scheme)
    migrated = cli("migrate", env={"DATABASE_URL": url})
    assert migrated.returncode == 0, migrated.stderr
    assert migrated.stdout.startswith("database already at ")
    board = cli("ratings", env={"DATABASE_URL": url})
    assert board.returncode == 0, board.stderr
    assert board.stdout.strip() == "no rated games yet"
    shown = cli("config", env={"DATABASE_URL": url})
    assert f"DATABASE_URL={async_url(url)}  (env)" in shown.stdout.splitlines()


def test_run_takes_the_url_postgresql_prints(pg_db_url: str) -> None:
    """``run`` gets as far as Telegram (a closed port here): the database opened and was current."""
    done = cli(
        "run",
        "--no-migrate",
        env={
            "DATABASE_URL": plain(pg_db_url, "postgres"),
            "TELEGRAM_BOT_TOKEN": "123456:AAE-test-token",
            "TELEGRAM_API_URL": "http://127.0.0.1:9/bot",
        },
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith("shithead-bot: cannot reach the Bot API at ")
