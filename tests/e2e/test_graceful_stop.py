"""SIGTERM flushes the outbox: notices the last updates wrote but the rate limits put off for a
moment (a table edited less than 3 s ago, a private chat written to less than a second ago) go
out before the process exits 0 — none is left for the next worker to find."""

from __future__ import annotations

import asyncio
import signal

import pytest
from sqlalchemy import text

from persistence.db import make_engine
from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import FLOW_LIMITS, start_all
from tests.e2e.harness import BotProcess, Player, start_game

pytestmark = pytest.mark.slow


async def undelivered(url: str) -> int:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return int(
                (await conn.execute(text("SELECT count(*) FROM outbox WHERE delivered_at IS NULL"))).scalar_one()
            )
    finally:
        await engine.dispose()


async def test_sigterm_delivers_the_notices_put_off_by_the_rate_limits(
    fake: FakeTelegram, database_url: str, players: list[Player]
) -> None:
    # No sweep helps; the group's rate is lifted so that the game starts at once (a start's group posts
    # beyond the group's burst are put off for the sweep): the table's own throttle puts edits off.
    env = {"OUTBOX_SWEEP_SECONDS": "3600", **FLOW_LIMITS}
    bot = BotProcess(fake, database_url, extra_env=env, fresh=True)  # the real command: its stop is what is tested
    await bot.start()
    duo = players[:2]
    await start_all(fake, duo)
    await start_game(fake, duo)
    messages = [await fake.wait_for(p.live_message, timeout=60) for p in duo]
    for player, message in zip(duo, messages, strict=True):
        await player.press(message, "✅ Ready")  # edits the table and the private message again at once
    assert bot.process is not None
    bot.process.send_signal(signal.SIGTERM)
    code = await asyncio.wait_for(bot.process.wait(), 30)
    assert code == 0
    assert await undelivered(database_url) == 0
