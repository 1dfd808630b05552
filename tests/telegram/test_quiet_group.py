"""Quiet where nothing is asked of you: the group hears a notification for a game's start and its
end only; its table is pinned without a notification where the bot may pin, and unpinned at the end."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot

from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from tests.conftest import SQLITE_ONLY
from tests.service.helpers import GROUP
from tests.telegram.fakegame import FakeGame


@pytest.mark.slow  # whole games through the fake Bot API: the full run's, not the fast lane's
async def test_only_the_start_and_the_end_notify_the_group_and_the_table_is_pinned_meanwhile(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    fake.world.chats[GROUP].bot_status = "administrator"  # may pin
    game = await FakeGame(sessions, clock, fake, bot).start(humans=3)
    await game.move()
    table = (await game.service.game_view(game.game_id)).game.table_message_id
    assert fake.world.chats[GROUP].pinned == [table]
    pins = fake.calls_of("pinChatMessage")
    assert pins
    assert all(call.params.get("disable_notification") for call in pins)
    await game.play_to_end()
    sent = [m for m in fake.history(GROUP) if m.from_bot and m.version == 0]
    loud = [m.text.splitlines()[0] for m in sent if not m.silent]
    assert len(loud) == 2, loud  # the lobby (it asks the group to join; the deal is told quietly) and the end
    assert "Game over" in loud[1]
    assert any(m.silent and "dealt" in m.text for m in sent)
    assert any(m.silent and "is out" in m.text for m in sent)  # someone went out: told, quietly
    assert fake.world.chats[GROUP].pinned == []


@pytest.mark.slow  # whole games through the fake Bot API: the full run's, not the fast lane's
@SQLITE_ONLY  # a refused pin is Telegram's answer, the same whatever stores the game
async def test_a_bot_that_may_not_pin_plays_on(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = await FakeGame(sessions, clock, fake, bot).start(humans=3)
    await game.play_to_end()
    assert fake.world.chats[GROUP].pinned == []
    assert all(call.result != "ok" for call in fake.calls_of("pinChatMessage"))
