"""Fixtures: a fake Telegram with four users and a group, and the real bot process talking to it."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.harness import GROUP, BotProcess, Player, kill_leftovers

USERS = [(1001, "Alice"), (1002, "Bob"), (1003, "Cleo"), (1004, "Dan")]


@pytest.fixture(autouse=True)
def no_leftover_bots() -> Iterator[None]:
    yield
    kill_leftovers()


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        for user_id, name in USERS:
            server.add_user(user_id, name, username=name.lower())
        server.add_group(GROUP, "Friends", [u for u, _ in USERS], admins=[1001])
        yield server


@pytest.fixture
def database_url(tmp_path: Path, sqlite_template: Path) -> str:
    """A migrated SQLite file, as a bot finds it on every start after its first (the first start's
    migration has its own tests: tests/telegram/test_run.py, tests/persistence/test_migrations.py)."""
    path = tmp_path / "bot.db"
    shutil.copy(sqlite_template, path)
    return f"sqlite+aiosqlite:///{path}"


# Games through the `bot` fixture, and the other tests of the flow that start their own bot, test
# the flow, not Telegram's send limits (those have their own tests, which start their bot with the
# real defaults): at one send a second into each private chat and 20 a minute into a group, a
# three-player game waits a minute; with these, 12 s.
FLOW_LIMITS = {"GROUP_SENDS_PER_MINUTE": "600", "PRIVATE_SENDS_PER_SECOND": "20"}


@pytest.fixture
async def bot(fake: FakeTelegram, database_url: str) -> AsyncIterator[BotProcess]:
    process = BotProcess(fake, database_url, extra_env=FLOW_LIMITS)
    await process.start()
    yield process
    # The test is over: a graceful stop would flush what the rate limits put off (up to 10 s of
    # waiting a test; that stop has its own tests, test_operations and test_graceful_stop).
    await process.stop(kill=True)


@pytest.fixture
def players(fake: FakeTelegram) -> list[Player]:
    return [Player(fake, user_id, name) for user_id, name in USERS]


async def start_all(fake: FakeTelegram, players: list[Player]) -> None:
    """Everyone opens a private chat with the bot, and the bot has answered each /start."""
    for player in players:
        fake.start_bot(player.user_id)
    await fake.wait_for(lambda: all(len(p.private()) >= 2 for p in players), timeout=60)
