"""Faults around the handlers, through the bot's handlers on the fake Bot API: what follows a done
use case cannot turn it into a failure, each refusal fits what the person did (a command is never
answered with a button's words), and the error handler logs a passing fault in one line and never
fails itself."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tests.service.helpers import GROUP, lobby_with, user
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


async def test_a_join_link_or_button_after_the_start_says_the_game_has_started(
    sessions: async_sessionmaker[AsyncSession], fake: FakeTelegram
) -> None:
    async with InBot(sessions, TickingClock(), fake) as bot:
        game_id = await lobby_with(bot.service, humans=2)
        await bot.ctx.deliver(game_id)  # the lobby, with its Join button
        lobby = next(m for m in fake.messages(GROUP, as_user=user(0).id) if m.buttons)
        await bot.service.start(game_id, user(0).id)  # its table not sent yet: Join still shows
        late = user(2).id
        press = await bot.press(late, lobby, "✋ Join")
        fake.open_deep_link(late, bot.ctx.deep_link("join", game_id))  # a few seconds after Start
        await bot.handle()
        said = f"Game #{game_id} has already started: it is too late to join it."
        answer = await press.answer()
        assert answer is not None
        assert answer.text == said
        assert bot.last_private(late) == said
        assert (await bot.service.game_view(game_id)).seat_of(late) is None
