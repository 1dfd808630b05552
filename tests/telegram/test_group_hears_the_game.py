"""The group hears only the game: whatever commands its members send, the bot's posts there notify
for a game's start and its end only. A settings change is told in one quiet line; the whole list
of settings answers a bare ``/settings``; a refusal meant for one person goes to that person."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from engine.ai import make_player
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from testkit.fakebot.model import SeenMessage
from tests.conftest import SQLITE_ONLY
from tests.service.helpers import GROUP, user
from tests.telegram.inbot import InBot

ADMIN, MEMBER = user(0).id, user(1).id  # the group's creator, and one of its members


def posted(fake: FakeTelegram, chat_id: int = GROUP) -> list[SeenMessage]:
    """The bot's new messages in the chat (first versions: an edit never notifies)."""
    return [m for m in fake.history(chat_id) if m.from_bot and m.version == 0]


def loud(fake: FakeTelegram, chat_id: int = GROUP) -> list[str]:
    return [m.text.splitlines()[0] for m in posted(fake, chat_id) if not m.silent]


async def move(bot: InBot) -> bool:
    """One heuristic move of the human to act, its notices delivered; False once the game is over."""
    game = await bot.service.game_view(bot.game_id)
    if game.is_over:
        return False
    assert game.state is not None
    number = game.state.seats_to_act()[0]
    seat = game.seat(number)
    assert seat.player_id is not None
    choice = make_player("normal", number).choose(game.state.view(number))
    await bot.service.play(bot.game_id, seat.player_id, choice, seat.keyboard_version)
    await bot.ctx.deliver(bot.game_id)
    return True


CHATTER = [  # (who, what they write in the group), one line at every few moves
    (ADMIN, "/settings turn 15m"),
    (MEMBER, "/settings turn 1m"),  # not an admin: refused
    (ADMIN, "/settings turn 99x"),  # unreadable
    (ADMIN, "/settings"),
    (MEMBER, "/abort"),  # not the creator nor an admin: refused
    (ADMIN, "/settings reminders off"),
    (MEMBER, "/help"),
    (MEMBER, "/stats"),
    (ADMIN, "/settings nonsense here"),
    (MEMBER, "/pause"),  # a vote
    (MEMBER, "/verify"),
    (ADMIN, "/settings table text"),
]


# Which posts notify is the planner's and the renderer's, not the database's: the settings and votes
# chatted here are stored by code tested on both databases (tests/service/).
@pytest.mark.slow  # whole games through the fake Bot API: the full run's, not the fast lane's
@SQLITE_ONLY
async def test_a_game_with_settings_chatter_and_refusals_notifies_the_group_for_its_start_and_end_only(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        await bot.start(humans=3)
        said = iter(CHATTER)
        for moves in range(3000):
            if moves % 4 == 0 and (line := next(said, None)) is not None:
                await bot.say(line[0], line[1], GROUP)
            if not await move(bot):
                break
        assert next(said, None) is None, "the game ended before all was said"
        assert (await bot.service.game_view(bot.game_id)).is_over
        assert len(posted(fake)) > 8  # the bot did answer in the group: quietly
        lobby = (await bot.service.game_view(bot.game_id)).game.lobby_message_id
        # The start is the lobby (it asks the group to join; the deal is told quietly), then the end.
        notified = [m for m in posted(fake) if not m.silent]
        assert [m.message_id for m in notified][:1] == [lobby], [m.text[:30] for m in notified]
        assert len(notified) == 2, [m.text[:30] for m in notified]
        assert "Game over" in notified[1].text


async def test_a_settings_change_is_one_quiet_line_and_a_bare_settings_shows_them_all(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        await bot.say(ADMIN, "/settings turn 15m", GROUP)
        await bot.say(ADMIN, "/settings turn 5m", GROUP)
        changed = posted(fake)[-1]
        assert changed.text == "⚙️ Turn time: 5 min (was 15 min).", changed.text
        assert changed.silent
        await bot.say(ADMIN, "/settings turn 5m", GROUP)
        assert posted(fake)[-1].text == "⚙️ Turn time: 5 min (unchanged).", posted(fake)[-1].text
        await bot.say(ADMIN, "/settings preset smelly", GROUP)
        assert posted(fake)[-1].text.startswith("⚙️ Preset: smelly (was "), posted(fake)[-1].text
        await bot.say(ADMIN, "/settings", GROUP)
        full = posted(fake)[-1]
        assert full.text.startswith("⚙️ Settings of this chat")
        assert "Turn time: 5 min" in full.text
        assert "/settings@" in full.text  # how to change them: only here
        assert full.silent


async def test_a_refusal_meant_for_one_person_goes_to_that_person(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        await bot.start(humans=3)
        before = len(posted(fake))
        await bot.say(MEMBER, "/settings turn 1m", GROUP)
        assert "Only a chat admin" in bot.last_private(MEMBER)
        await bot.say(ADMIN, "/settings turn 99x", GROUP)
        assert "99x" in bot.last_private(ADMIN)
        await bot.say(MEMBER, "/abort", GROUP)
        assert "creator" in bot.last_private(MEMBER)
        assert len(posted(fake)) == before, [m.text for m in posted(fake)[before:]]


async def test_the_greeting_of_a_new_group_is_quiet(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        fake.add_group(-1002, "Others", [ADMIN, MEMBER])
        await bot.handle()
        greeting = posted(fake, -1002)
        assert len(greeting) == 1
        assert greeting[0].silent
