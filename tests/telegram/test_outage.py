"""Telegram has a bad few minutes: every Bot API call answers 502 mid-game. The outbox keeps every
notice (retrying with a growing pause), nothing is given up, and once Telegram answers again each
player gets what the game needs now, and the game plays to its end."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot

from engine.ai import make_player
from shithead_bot.service import GameService
from shithead_bot.service.outbox import Outbox
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.deliver import Delivery
from tests.conftest import FakeClock
from tests.service.helpers import GROUP, lobby_with, make_service, user
from tests.support.fakebot import FakeTelegram

SWEEP = 5  # seconds of fake time between two outbox sweeps


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        for n in range(2):
            server.add_user(user(n).id, user(n).first_name)
            server.start_bot(user(n).id)
        server.add_group(GROUP, "Friends", [user(0).id, user(1).id])
        yield server


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(fake.token, base_url=fake.base_url, base_file_url=fake.base_file_url) as client:
        yield client


class Game:
    """A two-player game whose notices go out through the fake Telegram, swept every few (fake) seconds."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot):
        self.sessions, self.clock, self.fake = sessions, clock, fake
        self.service: GameService = make_service(sessions, clock)
        self.delivery = Delivery(bot, self.service, Codec(b"k"), "shithead_bot", table_seconds=0)
        self.outbox = Outbox(sessions, clock=clock)
        self.game_id = 0

    async def start(self) -> None:
        self.game_id = await lobby_with(self.service, humans=2)
        await self.service.start(self.game_id, user(0).id)
        await self.outbox.deliver(self.delivery)

    async def sweep_for(self, seconds: int) -> None:
        """The outbox sweep, every few seconds of fake time."""
        for _ in range(seconds // SWEEP):
            self.clock.advance(seconds=SWEEP)
            await self.outbox.deliver(self.delivery)

    async def move(self) -> None:
        """One heuristic move by whoever is to act, pressed on the keyboard their private chat shows."""
        game = await self.service.game_view(self.game_id)
        assert game.state is not None
        seat = game.seat(game.state.seats_to_act()[0])
        assert seat.player_id is not None
        live = [m for m in self.fake.messages(seat.player_id, as_user=seat.player_id) if m.buttons]
        assert live, f"seat {seat.number} is to act but has no keyboard"
        move = make_player("normal", seat.number).choose(game.state.view(seat.number))
        await self.service.play(self.game_id, seat.player_id, move, seat.keyboard_version)
        await self.outbox.deliver(self.delivery)

    async def given_up(self) -> list[str]:
        async with self.sessions() as session:
            rows = await session.execute(text("select last_error from outbox where last_error like 'gave up%'"))
            return [str(row[0]) for row in rows]

    async def pending(self) -> int:
        return await self.outbox.pending()


async def test_an_outage_of_minutes_loses_nothing_and_the_game_plays_to_its_end(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = Game(sessions, clock, fake, bot)
    await game.start()
    for _ in range(6):
        await game.move()
    fake.start_outage()  # 502 Bad Gateway to every call
    await game.move()  # the move is taken; its notices cannot go out
    await game.sweep_for(8 * 60)
    assert await game.pending() > 0
    assert await game.given_up() == []
    fake.end_outage()
    await game.sweep_for(6 * 60)  # at most the longest pause between two tries
    assert await game.pending() == 0
    assert await game.given_up() == []
    for _ in range(2000):
        view = await game.service.game_view(game.game_id)
        if view.is_over:
            break
        await game.move()
    assert (await game.service.game_view(game.game_id)).is_over
    assert await game.given_up() == []

