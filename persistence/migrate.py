"""Schema migrations (Alembic), driven from code: no ``alembic.ini`` to find or edit.

``upgrade(url)`` brings a database to the newest revision (an empty SQLite file included);
``pending(url)`` tells whether it is behind. Both are synchronous and start their own event loop,
so async callers run them in a thread (``asyncio.to_thread``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection, make_url

from persistence.db import is_sqlite, make_engine

MIGRATIONS = Path(__file__).parent / "migrations"


class SchemaOutOfDateError(RuntimeError):
    """The database schema is older than this code expects; run ``shithead-bot migrate``."""


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    assert head is not None
    return head


def upgrade(url: str, revision: str = "head") -> None:
    """Apply every pending migration."""
    command.upgrade(alembic_config(url), revision)


def missing_sqlite_file(url: str) -> bool:
    """A SQLite URL whose file does not exist (opening it would create an empty one)."""
    if not is_sqlite(url):
        return False
    database = make_url(url).database
    return database not in (None, "", ":memory:") and not Path(str(database)).exists()


def current_revision(url: str) -> str | None:
    """The revision the database is at (None for an empty database, or a SQLite file that is not
    there — which this leaves uncreated)."""
    if missing_sqlite_file(url):
        return None

    def read(connection: Connection) -> str | None:
        return MigrationContext.configure(connection).get_current_revision()

    async def run() -> str | None:
        engine = make_engine(url)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(read)
        finally:
            await engine.dispose()

    return asyncio.run(run())


def pending(url: str) -> bool:
    return current_revision(url) != head_revision()


def require_current(url: str) -> None:
    """Raise SchemaOutOfDateError when migrations are pending (for workers started with --no-migrate)."""
    current, head = current_revision(url), head_revision()
    if current != head:
        raise SchemaOutOfDateError(
            f"database schema is at {current or 'nothing'}, this code needs {head}: run `shithead-bot migrate` first"
        )
