"""Faults around the handlers, through the bot's handlers on the fake Bot API: what follows a done
use case cannot turn it into a failure, each refusal fits what the person did (a command is never
answered with a button's words), and the error handler logs a passing fault in one line and never
fails itself."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tests.service.helpers import user
from tests.support.fakebot import FakeTelegram
from tests.telegram.inbot import InBot, TickingClock, fake

__all__ = ["fake"]  # fixtures


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_confirmed_forfeit_then_a_block_is_no_error(
    sessions: async_sessionmaker[AsyncSession], fake: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    async with InBot(sessions, TickingClock(), fake) as bot:
        game_id = await bot.start(humans=3)
        leaving = user(2).id
        await bot.say(leaving, "/forfeit")
        press = await bot.press(leaving, bot.private(leaving)[-1], "🏳 Yes, leave")
        fake.block_bot(leaving)  # the confirmation's edit meets 403 Forbidden
        with caplog.at_level(logging.INFO):
            await bot.handle()
        game = await bot.service.game_view(game_id)
        assert game.seat_of(leaving) is not None
        assert game.seat_of(leaving).forfeited  # type: ignore[union-attr]
        answer = await press.answer()
        assert answer is None or "wrong" not in (answer.text or "")
        assert errors(caplog) == []
