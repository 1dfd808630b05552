"""Telegram has a bad few minutes: every Bot API call answers 502 mid-game. The outbox keeps every
notice (retrying with a growing pause), nothing is given up, and once Telegram answers again each
player gets what the game needs now, and the game plays to its end."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot

from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from tests.telegram.fakegame import FakeGame


@pytest.mark.slow  # whole games through the fake Bot API: the full run's, not the fast lane's
async def test_an_outage_of_minutes_loses_nothing_and_the_game_plays_to_its_end(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = await FakeGame(sessions, clock, fake, bot).start()
    for _ in range(6):
        await game.move()
    fake.start_outage()  # 502 Bad Gateway to every call
    await game.move()  # the move is taken; its notices cannot go out
    await game.sweep_for(8 * 60)
    assert await game.outbox.pending() > 0
    assert await game.given_up() == []
    fake.end_outage()
    await game.sweep_for(6 * 60)  # at most the longest pause between two tries
    assert await game.outbox.pending() == 0
    assert await game.given_up() == []
    await game.play_to_end()
    assert await game.given_up() == []
