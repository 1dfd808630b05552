"""Schema migrations (Alembic), driven from code: no ``alembic.ini`` to find or edit.

``upgrade(url)`` brings a database to the newest revision (an empty SQLite file included);
``pending(url)`` tells whether it is behind. Both are synchronous and start their own event loop,
so async callers run them in a thread (``asyncio.to_thread``).

A database already at the newest revision — every start but the first after a release — is told
so by one query, without Alembic: loading it and its scripts is most of a start's work otherwise.
"""

from __future__ import annotations

import asyncio
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, make_url

from persistence.db import is_sqlite, make_engine

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"


class SchemaOutOfDateError(RuntimeError):
    """The database schema is older than this code expects; run ``shithead-bot migrate``."""


def alembic_config(url: str) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    assert head is not None
    return head


_REVISION = re.compile(r'^revision(?:: str)? = "([^"]+)"', re.MULTILINE)
_DOWN = re.compile(r'^down_revision(?:: [^=]+)? = "([^"]+)"', re.MULTILINE)


@cache
def newest_revision() -> str | None:
    """The newest revision, read from the scripts' text (what Alembic would find, at a hundredth of
    the cost; a test holds the two equal): the one revision no other names as its predecessor, or
    None when that is not one (Alembic then decides)."""
    revisions, downs = set(), set()
    for script in (MIGRATIONS / "versions").glob("*.py"):
        source = script.read_text()
        revisions.update(_REVISION.findall(source))
        downs.update(_DOWN.findall(source))
    heads = revisions - downs
    return heads.pop() if len(heads) == 1 else None


def upgrade(url: str, revision: str = "head") -> None:
    """Apply every pending migration."""
    if revision == "head" and current_revision(url) == _head():
        return
    from alembic import command

    command.upgrade(alembic_config(url), revision)


def _head() -> str:
    return newest_revision() or head_revision()


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
        if not inspect(connection).has_table("alembic_version"):
            return None
        versions = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
        return ",".join(sorted(versions)) or None  # (a linear history has one)

    async def run() -> str | None:
        engine = make_engine(url)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(read)
        finally:
            await engine.dispose()

    return asyncio.run(run())


def pending(url: str) -> bool:
    return current_revision(url) != _head()


def require_current(url: str) -> None:
    """Raise SchemaOutOfDateError when migrations are pending (for workers started with --no-migrate)."""
    current, head = current_revision(url), _head()
    if current != head:
        raise SchemaOutOfDateError(
            f"database schema is at {current or 'nothing'}, this code needs {head}: run `shithead-bot migrate` first"
        )
