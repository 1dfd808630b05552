"""The bot's handlers in this process, on the fake Bot API: the application as ``app.py`` builds
and registers it, its context made of the test's service (on the test's database and clock). The
updates the fake emitted — a user's command, press or block — are handled one after the other by
:meth:`InBot.handle`, with the bot's own error handler, so a test sees what the person sees and
what the log says."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Update
from telegram.ext import Application

from shithead_bot.config import Settings
from shithead_bot.service import GameService
from shithead_bot.telegram.app import build_application
from shithead_bot.telegram.context import KEY, BotContext
from shithead_bot.telegram.wiring import install
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram, Press
from testkit.fakebot.model import SeenMessage
from tests.service.helpers import lobby_with, make_service, user

UNLIMITED = {"send_per_second": 1000.0, "private_sends_per_second": 1000.0, "group_sends_per_minute": 6000.0}


class InBot:
    """The handlers of the bot, fed the fake's updates by hand (no polling, no jobs)."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], clock: Callable[[], datetime], fake: FakeTelegram
    ) -> None:
        self.fake = fake
        self.settings = Settings(telegram_api_url=fake.base_url, table_edit_seconds=0, **UNLIMITED)  # type: ignore[arg-type]
        self.service: GameService = make_service(sessions, clock)  # type: ignore[arg-type]
        self.app: Application = build_application(self.settings, fake.token)  # type: ignore[type-arg]
        self.game_id = 0

    async def __aenter__(self) -> InBot:
        await self.app.initialize()
        install(self.app, self.service, self.settings)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.app.shutdown()

    @property
    def ctx(self) -> BotContext:
        context: BotContext = self.app.bot_data[KEY]
        return context

    async def handle(self) -> int:
        """Handle every update the fake has emitted so far, in order; how many."""
        updates, self.fake.queue.pending = list(self.fake.queue.pending), []
        for data in updates:
            await self.app.process_update(Update.de_json(data, self.app.bot))
        return len(updates)

    async def start(self, *, humans: int = 2) -> int:
        """A game in the group with these players, started, its first notices delivered."""
        self.game_id = await lobby_with(self.service, humans=humans)
        await self.service.start(self.game_id, user(0).id)
        await self.ctx.deliver(self.game_id)
        return self.game_id

    async def say(self, user_id: int, text: str, chat_id: int | None = None) -> None:
        """The user writes ``text`` (in private unless ``chat_id``), and the bot handles it."""
        await self.fake.send_text(user_id, user_id if chat_id is None else chat_id, text)
        await self.handle()

    def private(self, user_id: int) -> list[SeenMessage]:
        """What the bot wrote to the user in private, oldest first."""
        return [m for m in self.fake.messages(user_id, as_user=user_id) if m.from_bot]

    def last_private(self, user_id: int) -> str:
        return self.private(user_id)[-1].text

    async def press(self, user_id: int, message: SeenMessage, label: str) -> Press:
        """The user presses the button labelled ``label`` (not handled yet: :meth:`handle`)."""
        data = self.fake.button_data(message.chat_id, message.message_id, label)
        return await self.fake.press(user_id, message.chat_id, message.message_id, data)


class TickingClock(FakeClock):
    """A clock that moves on by ``step`` each time it is read, as a real one does between a
    handler's reading and its use case's."""

    def __init__(self, step_seconds: float = 0.5) -> None:
        super().__init__()
        self.step_seconds = step_seconds

    def __call__(self) -> datetime:
        return self.advance(seconds=self.step_seconds)
