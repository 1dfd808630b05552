"""The log under an injected database error: one line per failure, and never a seed, a snapshot or a
hidden card — at INFO and at DEBUG (where the traceback goes)."""

from __future__ import annotations

import asyncio
import re

import pytest
from sqlalchemy import text

from persistence.db import make_engine
from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import FLOW_LIMITS, start_all
from tests.e2e.harness import GROUP, BotProcess, Player, find, play_until_over, start_game
from tests.e2e.privacy import leaks_in_logs, secret_cards

pytestmark = pytest.mark.slow

SQLITE_FAULT = (
    "CREATE TRIGGER injected_fault BEFORE UPDATE OF snapshot ON game BEGIN SELECT RAISE(ABORT, 'injected fault'); END"
)
PG_FAULT = [
    "CREATE OR REPLACE FUNCTION injected_fault() RETURNS trigger AS $$ "
    "BEGIN RAISE EXCEPTION 'injected fault'; END $$ LANGUAGE plpgsql",
    "CREATE TRIGGER injected_fault BEFORE UPDATE OF snapshot ON game FOR EACH ROW EXECUTE FUNCTION injected_fault()",
]


async def sql(url: str, *statements: str) -> list[object]:
    engine = make_engine(url)
    try:
        async with engine.begin() as conn:
            results = [await conn.execute(text(s)) for s in statements]
            return [r.all() if r.returns_rows else None for r in results]
    finally:
        await engine.dispose()


# Each backend at DEBUG (its driver's error, with the traceback, is what could carry a secret) and
# INFO once (no traceback at INFO: the level decides, whatever the backend; the ERROR line is the
# same at both levels — handlers/updates.py error_summary — so PostgreSQL at INFO proved nothing more).
@pytest.mark.parametrize(("backend", "level"), [("sqlite", "INFO"), ("sqlite", "DEBUG"), ("postgresql", "DEBUG")])
async def test_a_database_error_logs_no_secret(
    fake: FakeTelegram,
    database_url: str,
    postgres_url: str | None,
    players: list[Player],
    backend: str,
    level: str,
) -> None:
    if backend == "postgresql":
        if postgres_url is None:
            pytest.skip("PostgreSQL is not reachable")
        from tests.conftest import _truncate

        await _truncate(postgres_url)
        database_url = postgres_url
    bot = BotProcess(fake, database_url, extra_env={**FLOW_LIMITS, "LOG_LEVEL": level})
    await bot.start()
    try:
        duo = players[:2]
        await start_all(fake, duo)
        game_id = await start_game(fake, duo)
        message = await fake.wait_for(duo[0].live_message, timeout=60)
        fault = [SQLITE_FAULT] if backend == "sqlite" else PG_FAULT
        await sql(database_url, *fault)
        toast = await duo[0].press(message, "✅ Ready")
        assert toast == "Something went wrong; please try again."
        await fake.wait_for(lambda: " ERROR " in bot.log_text, timeout=60)
        await sql(database_url, "DROP TRIGGER injected_fault" + ("" if backend == "sqlite" else " ON game"))
        await play_until_over(fake, duo)
        assert find(fake, GROUP, duo[0].user_id, "Game over") is not None
        await asyncio.sleep(0.5)
    finally:
        await bot.stop()
    query = f"SELECT seed, deal_salt FROM game WHERE id = {game_id}"
    (seed, salt) = (await sql(database_url, query))[0][0]  # type: ignore[index]
    log = bot.log_text
    assert str(seed) not in log, [line for line in log.splitlines() if str(seed) in line][:3]
    assert salt
    assert salt not in log
    assert re.search(r'"seed"|\'seed\'|snapshot.*\{', log) is None
    assert "parameters: (" not in log
    assert "parameters: {" not in log
    assert leaks_in_logs(log, await secret_cards(database_url, game_id)) == []
    errors = [line for line in log.splitlines() if " ERROR " in line]
    assert len(errors) == 1, errors
    assert "failed: database error" in errors[0]
    assert "update " in errors[0]
    assert "button m game" in errors[0]
    if level == "INFO":
        assert "Traceback" not in log
