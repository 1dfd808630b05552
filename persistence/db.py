"""One async engine and session factory from a database URL.

* ``sqlite+aiosqlite:///shithead.db`` (the default, in the working folder): WAL journal, foreign keys
  on, a busy timeout, and every transaction opened with ``BEGIN IMMEDIATE`` so that two writers
  queue up instead of failing half-way (SQLite has one writer at a time anyway).
* ``postgresql+asyncpg://…``: a connection pool, pinged before use so a dropped connection is
  replaced; use cases lock their game row ``FOR UPDATE``.

A URL in the form PostgreSQL's tools print (``postgresql://``, ``postgres://``, ``?sslmode=…``) or
named for another driver is mapped to the async one (:func:`async_url`).

Statement parameters are never put into errors or logs (``hide_parameters``): they include engine
snapshots, whose deal seed would reveal every hidden card.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

DEFAULT_URL = "sqlite+aiosqlite:///shithead.db"
SQLITE_BUSY_TIMEOUT_MS = 30_000
ASYNC_DRIVERS = {"postgresql": "postgresql+asyncpg", "postgres": "postgresql+asyncpg", "sqlite": "sqlite+aiosqlite"}


def async_url(url: str) -> str:
    """``url`` with the async driver this project uses: ``postgresql://``, ``postgres://``,
    ``postgresql+psycopg://``… become ``postgresql+asyncpg://`` (libpq's ``sslmode`` becoming
    asyncpg's ``ssl``), ``sqlite://`` becomes ``sqlite+aiosqlite://``. Anything else is left as given."""
    try:
        parsed = make_url(url)
    except ArgumentError:  # not a URL: opening it says so, in the words of whoever opens it
        return url
    driver = ASYNC_DRIVERS.get(parsed.drivername.split("+")[0])
    if driver is None or parsed.drivername == driver:
        return url
    parsed = parsed.set(drivername=driver)
    if driver == "postgresql+asyncpg" and "sslmode" in parsed.query:
        parsed = parsed.update_query_dict({"ssl": parsed.query["sslmode"]}).difference_update_query(["sslmode"])
    return parsed.render_as_string(hide_password=False)


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def make_engine(url: str = DEFAULT_URL, *, echo: bool = False, pool_size: int = 10) -> AsyncEngine:
    """An async engine for ``url``, with the SQLite settings above when it is SQLite."""
    url = async_url(url)
    if is_sqlite(url):
        engine = create_async_engine(url, echo=echo, hide_parameters=True)
        _configure_sqlite(engine)
        return engine
    # No ping before each checkout (a round trip and a server transaction per use): a connection the
    # server dropped fails its first statement instead, which invalidates the pool's connections, and
    # every use case is tried again on such a fault (shithead_bot/service/faults.py, retry_transient).
    return create_async_engine(
        url, echo=echo, pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=False, hide_parameters=True
    )


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves, below
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded objects usable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False, autoflush=False)


@asynccontextmanager
async def transaction(sessions: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    """One transaction: commit when the block ends, roll back if it raises."""
    async with sessions() as session, session.begin():
        yield session
