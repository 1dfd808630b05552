"""Real groups, through a real PTB ``Bot`` and the fake Bot API: a group upgraded to a supergroup
while the bot missed the service message, a bot that may not post pictures, and a player the bot
cannot reach."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot

from shithead_bot.service import Autoplay
from shithead_bot.timers.sweeper import Sweeper
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from tests.service.helpers import GROUP, user
from tests.telegram.fakegame import FakeGame


def group_texts(fake: FakeTelegram, chat_id: int) -> list[str]:
    return [m.text for m in fake.messages(chat_id, as_user=user(0).id) if m.from_bot]


@pytest.mark.slow  # whole games through the fake Bot API: the full run's, not the fast lane's
async def test_a_group_upgraded_while_the_bot_missed_it_is_followed_on_every_call(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = await FakeGame(sessions, clock, fake, bot).start()
    for _ in range(3):
        await game.move()
    new_id = fake.migrate_group(GROUP)  # nobody handles the service message: the bot was down
    await game.move()  # its table edit meets the old chat: ChatMigrated
    view = await game.service.game_view(game.game_id)
    assert view.chat.id == new_id
    assert any(f"· #{game.game_id}" in text for text in group_texts(fake, new_id))
    await game.play_to_end()
    assert any("Game over" in text for text in group_texts(fake, new_id))
    assert await game.given_up() == []


async def test_a_refused_picture_gives_the_text_table_and_is_not_tried_on_every_edit(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    fake.restrict_bot(GROUP, messages=True, photos=False)  # texts yes, pictures no
    game = await FakeGame(sessions, clock, fake, bot).start()
    for _ in range(8):
        await game.move()
    assert any(f"· #{game.game_id}" in text for text in group_texts(fake, GROUP))  # the text table
    assert len(fake.calls_of("sendPhoto")) == 1  # refused once, remembered
    assert await game.given_up() == []


async def test_a_player_the_bot_cannot_reach_is_called_once_a_turn_with_a_mention(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    fake.block_bot(user(1).id)
    game = await FakeGame(sessions, clock, fake, bot).start(autoplay=Autoplay.OFF)
    sweeper = Sweeper(game.service)
    turns = set()
    for _ in range(400):  # User0 plays at once; User1 never can: reminders, then timeouts, then removal
        view = await game.service.game_view(game.game_id)
        if view.is_over or view.seat(1).forfeited:
            break
        if view.may_act(0):
            await game.move()
            continue
        turns.add(view.seat(1).keyboard_version)
        clock.advance(hours=1)
        await sweeper.sweep()
        await game.deliver()
    calls = [m for m in fake.messages(GROUP, as_user=user(0).id) if "cannot message you" in m.text]
    assert calls
    assert len(calls) <= len(turns), [m.text for m in calls]  # reminders and timeouts do not call again
    assert all(f'href="tg://user?id={user(1).id}"' in m.html for m in calls)  # a mention that notifies
