"""Database fixtures shared by the persistence, service and bot tests.

Every database test runs on SQLite, and again on PostgreSQL when one answers: at
``TEST_DATABASE_URL`` if set, else ``postgresql+asyncpg://postgres@127.0.0.1:5432/test``. The
PostgreSQL half is skipped only when nothing answers there. Each test session migrates a private
PostgreSQL database of its own (created next to the given one) once, and empties it between tests.

Hypothesis runs under a profile named by ``HYPOTHESIS_PROFILE``: ``dev`` (the default, a quarter of
the examples, for a quick loop) or ``ci`` (every example; ``.ci/run`` sets it). A test that asks for
its own number of examples writes ``max_examples=examples(n)``: ``n`` under ``ci``, fewer under
``dev``.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from persistence.db import make_engine, make_sessionmaker
from persistence.migrate import upgrade
from shithead_bot.service import GameService
from testkit.clock import FakeClock

# A run starts a hundred Python processes (pytest's workers, the bots of the end-to-end tests, the
# command-line tests): with PYTHONDONTWRITEBYTECODE set (some machines and images set it), each one
# compiled every source and rewrote every test's asserts again — about 2.5 s a worker. The bytecode
# goes to the ignored __pycache__ folders.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

PROFILES = {"ci": 1.0, "dev": 0.25}  # the share of each test's examples a profile runs
settings.register_profile("ci", max_examples=100, deadline=None, print_blob=True)
settings.register_profile("dev", max_examples=round(100 * PROFILES["dev"]), deadline=None)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
if PROFILE not in PROFILES:
    raise pytest.UsageError(f"HYPOTHESIS_PROFILE={PROFILE!r}: expected one of {', '.join(PROFILES)}")
settings.load_profile(PROFILE)


def examples(n: int) -> int:
    """``n`` examples under the ``ci`` profile, a share of them (at least 3) under ``dev``."""
    return max(3, round(n * PROFILES[PROFILE]))


DEFAULT_PG = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
TABLES = (
    "outbox",
    "move",
    "seat",
    "game",
    "player",
    "chat",
    "processed_update",
    "send_bucket",
    "rating",
    "rating_change",
    "player_record",
    "foreign_message",
)


async def _pg_admin(url: str, statement: str) -> None:
    import asyncpg

    target = make_url(url)
    conn = await asyncpg.connect(
        host=target.host,
        port=target.port or 5432,
        user=target.username,
        password=target.password,
        database=target.database,
        timeout=3,
    )
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


def _private_pg_database() -> str | None:
    """Create a database for this test session beside the configured one; None if unreachable."""
    base = os.environ.get("TEST_DATABASE_URL", DEFAULT_PG)
    name = f"shithead_test_{uuid.uuid4().hex[:10]}"
    try:
        asyncio.run(_pg_admin(base, f'CREATE DATABASE "{name}"'))
    except (OSError, TimeoutError) as exc:
        print(f"PostgreSQL not reachable at {base}: {exc!r}; its half of the tests is skipped")
        return None
    except Exception as exc:  # no CREATE DATABASE right: use the given database as it is
        print(f"cannot create a database ({exc!r}); using {base} itself")
        return base
    return make_url(base).set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str | None]:
    url = _private_pg_database()
    if url is not None:
        upgrade(url)
    yield url
    if url is not None and "shithead_test_" in url:
        base = os.environ.get("TEST_DATABASE_URL", DEFAULT_PG)
        name = make_url(url).database
        asyncio.run(_pg_admin(base, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file migrated once; each test gets a copy."""
    path = tmp_path_factory.mktemp("template") / "template.db"
    upgrade(f"sqlite+aiosqlite:///{path}")
    return path


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(
    request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path, postgres_url: str | None
) -> Iterator[str]:
    """A migrated, empty database: SQLite, then PostgreSQL."""
    if request.param == "sqlite":
        path = tmp_path / "test.db"
        shutil.copy(sqlite_template, path)
        yield f"sqlite+aiosqlite:///{path}"
        return
    if postgres_url is None:
        pytest.skip("PostgreSQL is not reachable")
    asyncio.run(_truncate(postgres_url))
    yield postgres_url


# For a test whose point is not the database (what Telegram is asked, how a message reads) but that
# needs one to run a game: it runs on SQLite only, not again on PostgreSQL.
SQLITE_ONLY = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)


@pytest.fixture
def pg_db_url(postgres_url: str | None) -> str:
    """The migrated, emptied PostgreSQL database, for tests of PostgreSQL-only behaviour."""
    if postgres_url is None:
        pytest.skip("PostgreSQL is not reachable")
    asyncio.run(_truncate(postgres_url))
    return postgres_url


async def _truncate(url: str) -> None:
    engine = make_engine(url)
    async with engine.begin() as conn:
        await conn.execute(text(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE"))
    await engine.dispose()


@pytest.fixture
async def sessions(db_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = make_engine(db_url)
    yield make_sessionmaker(engine)
    await engine.dispose()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def service(sessions: async_sessionmaker[AsyncSession], clock: FakeClock) -> GameService:
    """The use cases on the test's database and clock, with default settings and seeded deals."""
    from tests.service.helpers import make_service

    return make_service(sessions, clock)


@pytest.fixture
async def game_id(service: GameService) -> int:
    """A two-player game in the group (``tests.service.helpers.GROUP``), started by its first player."""
    from tests.service.helpers import lobby_with, user

    started = await lobby_with(service, humans=2)
    await service.start(started, user(0).id)
    return started


def pytest_report_header() -> str:
    """Say whether the engine under test is the mypyc-compiled one (engine/native.py)."""
    from engine.native import compiled_modules

    return "engine: " + ("compiled by mypyc" if compiled_modules() else "plain Python")


# The longest files first (seconds alone on two cores, 2026-12), then the rest of the end-to-end
# tests, then the other long ones; everything else keeps its place. With xdist's ``load`` dist in
# small chunks (``--maxschedchunk`` in pyproject.toml) the run ends on short tests instead of one
# worker starting a minute-long test when the others are done: collected in path order, every
# end-to-end test went to the first worker's first chunk and ran one after the other.
LONGEST_FIRST = (
    "tests/test_image_build.py",  # ~60 s: a fresh venv and the mypyc build
    "tests/test_bench_attention.py",  # ~30 s: four whole games through the handlers and the fake Bot API
    "tests/e2e/test_timers.py",
    "tests/e2e/test_db_faults.py",
    "tests/e2e/test_outage.py",
    "tests/e2e/test_faults.py",
    "tests/e2e/test_send_rate.py",
    "tests/e2e/test_log_privacy.py",
    "tests/e2e/test_games.py",
    "tests/e2e/test_fleet.py",
    "tests/e2e/",
    "tests/test_cli_verify.py",
    "tests/test_cli_data.py",
    "tests/telegram/test_overload.py",  # ~15 s a database: 20 games through a 2/s send rate
    "tests/telegram/test_outage.py",
    "tests/telegram/test_real_groups.py",
    "tests/telegram/test_quiet_group.py",
    "tests/telegram/test_newest_message.py",
    "tests/service/test_outbox.py",
    "tests/service/test_races.py",
    "tests/test_restore.py",
)


def _rank(item: pytest.Item) -> int:
    path = Path(str(item.path)).resolve().relative_to(Path(__file__).resolve().parents[1]).as_posix()
    return next((n for n, prefix in enumerate(LONGEST_FIRST) if path.startswith(prefix)), len(LONGEST_FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the long tests first (a stable sort: each file keeps its order, every worker the same)."""
    items.sort(key=_rank)
