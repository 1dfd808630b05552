"""A game whose notices go out through a real PTB ``Bot`` to the fake Bot API, on a fake clock: the
service, the outbox and the sender as the bot wires them, without the bot process."""

from __future__ import annotations

import asyncio

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot

from engine.ai import make_player
from shithead_bot.config import Settings
from shithead_bot.service import Autoplay, GameService
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.wiring import bot_context
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from testkit.fakebot.model import SeenMessage
from tests.service.helpers import lobby_with, make_service, user

SWEEP = 5  # seconds of fake time between two outbox sweeps


class FakeGame:
    """One game in the group, its notices swept every few (fake) seconds."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot):
        self.sessions, self.clock, self.fake = sessions, clock, fake
        self.service: GameService = make_service(sessions, clock)
        settings = Settings(table_edit_seconds=0)
        self.ctx = bot_context(self.service, bot, settings, codec=Codec(b"k"), username="shithead_bot")
        self.delivery, self.outbox = self.ctx.delivery, self.ctx.outbox
        self.game_id = 0

    async def start(self, *, humans: int = 2, computers: int = 0, autoplay: Autoplay | None = None) -> FakeGame:
        """A lobby in the group with these seats, started, its first notices delivered."""
        self.game_id = await lobby_with(self.service, humans=humans, computers=computers, autoplay=autoplay)
        await self.service.start(self.game_id, user(0).id)
        await self.deliver()
        return self

    async def deliver(self) -> None:
        await self.outbox.deliver(self.delivery)

    async def sweep_for(self, seconds: int) -> None:
        """The outbox sweep, every few seconds of fake time."""
        for _ in range(seconds // SWEEP):
            self.clock.advance(seconds=SWEEP)
            await self.deliver()

    async def to_act(self) -> tuple[int, int]:
        """(seat, player id) of the first human to act — once the computers moved (a press hands them
        back when its inline budget is spent, and :meth:`move` carries them on, as the bot does)."""
        for _ in range(600):
            game = await self.service.game_view(self.game_id)
            assert game.state is not None
            number = next((n for n in game.state.seats_to_act() if not game.seat(n).computer_level), None)
            if number is not None or game.is_over:
                break
            await asyncio.sleep(0.05)
            await self.deliver()
        assert number is not None, "no human to act"
        player_id = game.seat(number).player_id
        assert player_id is not None
        return number, player_id

    async def move(self) -> None:
        """One heuristic move by the first human to act, who must have a keyboard to press."""
        game = await self.service.game_view(self.game_id)
        number, player_id = await self.to_act()
        assert game.state is not None
        assert self.live(player_id), f"seat {number} is to act but has no keyboard"
        move = make_player("normal", number).choose(game.state.view(number))
        done = await self.service.play(self.game_id, player_id, move, game.seat(number).keyboard_version)
        if done.thinking:  # as the bot does after a press: the computers it handed back move now
            await self.service.play_on(self.game_id)
        await self.deliver()

    async def play_to_end(self, limit: int = 3000) -> None:
        for _ in range(limit):
            if (await self.service.game_view(self.game_id)).is_over:
                return
            await self.move()
        raise AssertionError("the game did not end")

    def private(self, player_id: int) -> list[SeenMessage]:
        return [m for m in self.fake.messages(player_id, as_user=player_id) if m.from_bot]

    def live(self, player_id: int) -> list[SeenMessage]:
        """The player's private messages that show buttons to press (not just a link or "my cards")."""
        return [m for m in self.private(player_id) if any(b.callback_data for b in m.buttons)]

    async def given_up(self) -> list[str]:
        async with self.sessions() as session:
            rows = await session.execute(text("select last_error from outbox where last_error like 'gave up%'"))
            return [str(row[0]) for row in rows]
