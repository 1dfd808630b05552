"""Keyboards that ask nothing are taken off: a paused game's turn messages, a used "👋 I am back",
a used or outdated settings keyboard, a finished game's Rematch once another game started — and a
player removed after timeouts is told so in a message of their own. Through the bot's handlers, on
the fake Bot API."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot

from shithead_bot.i18n import translations
from shithead_bot.service import ServiceError
from shithead_bot.telegram.render.replies import refusal
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from testkit.fakebot.model import SeenMessage
from tests.service.helpers import GROUP, play_humans_to_end, user
from tests.telegram.inbot import InBot

ADMIN = user(0).id  # the group's creator, who opens the games
PLAYERS = (user(0).id, user(1).id)


async def past_the_swap(bot: InBot) -> None:
    """Every player presses Ready, their notices delivered."""
    game = await bot.service.game_view(bot.game_id)
    for seat in game.seats:
        assert seat.player_id is not None
        await bot.service.play(bot.game_id, seat.player_id, "r", seat.keyboard_version)
        await bot.ctx.deliver(bot.game_id)


async def to_act(bot: InBot) -> int:
    """The player whose turn it is."""
    game = await bot.service.game_view(bot.game_id)
    assert game.state is not None
    player = game.seat(game.state.seats_to_act()[0]).player_id
    assert player is not None
    return player


def with_buttons(bot: InBot, player: int) -> list[SeenMessage]:
    return [m for m in bot.private(player) if m.buttons]


async def test_a_paused_games_turn_message_says_so_without_buttons_and_resume_asks_anew(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        await bot.start(humans=2)
        await past_the_swap(bot)
        player = await to_act(bot)
        turn = bot.private(player)[-1]
        assert turn.buttons, turn.text
        assert turn.date_times(), turn.text
        await bot.say(ADMIN, "/pause", GROUP)
        paused = next(m for m in bot.private(player) if m.message_id == turn.message_id)
        assert [with_buttons(bot, p) for p in PLAYERS] == [[], []], paused.text
        assert "The game is paused" in paused.text, paused.text
        assert not paused.date_times(), paused.text  # no deadline runs
        clock.advance(minutes=10)  # the player is not in the chat any more when the game resumes
        await bot.say(ADMIN, "/resume", GROUP)
        newest = bot.private(player)[-1]
        assert newest.message_id != turn.message_id  # a new message: it notifies (nobody is looking)
        assert not newest.silent, newest.text
        assert newest.buttons, newest.text
        assert newest.date_times(), newest.text
        assert [m.message_id for m in with_buttons(bot, player)] == [newest.message_id]


async def test_a_game_paused_in_the_swap_phase_takes_everyones_buttons_off(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        await bot.start(humans=2)
        assert all(with_buttons(bot, p) for p in PLAYERS)
        await bot.say(ADMIN, "/pause", GROUP)
        assert [with_buttons(bot, p) for p in PLAYERS] == [[], []]
        assert all("The game is paused" in bot.private(p)[-1].text for p in PLAYERS)
        await bot.say(user(1).id, "/hand")  # a copy asked for: paused, no buttons either
        assert with_buttons(bot, user(1).id) == [], bot.last_private(user(1).id)
        await bot.say(ADMIN, "/resume", GROUP)
        for p in PLAYERS:
            newest = bot.private(p)[-1]
            assert [m.message_id for m in with_buttons(bot, p)] == [newest.message_id]
            assert not newest.silent


async def test_after_back_no_game_message_keeps_i_am_back(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        await bot.start(humans=2)
        away = user(1).id
        await bot.say(away, "/away 3d")  # the stand-in swaps and is ready for them, told silently
        assert [b.text for m in with_buttons(bot, away) for b in m.buttons] == ["👋 I am back"]
        await bot.say(away, "/back")
        assert with_buttons(bot, away) == [], [m.text for m in with_buttons(bot, away)]


async def test_a_settings_keyboard_is_used_once_and_an_outdated_one_is_refused(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        await bot.say(ADMIN, "/settings", GROUP)
        old = fake.last_message(GROUP, ADMIN, from_bot=True)
        await bot.say(ADMIN, "/settings turn 5m", GROUP)  # a change since that keyboard
        press = await bot.press(ADMIN, old, "1 h")
        await bot.handle()
        answer = await press.answer()
        assert answer is not None
        assert answer.text == "These settings changed since: send /settings again."
        assert (await bot.service.ensure_chat(GROUP, "group", "Friends")).turn_seconds == 300
        assert not next(m for m in fake.messages(GROUP, ADMIN) if m.message_id == old.message_id).buttons
        await bot.say(ADMIN, "/settings", GROUP)
        fresh = fake.last_message(GROUP, ADMIN, from_bot=True)
        await bot.press(ADMIN, fresh, "15 min")
        await bot.handle()
        assert (await bot.service.ensure_chat(GROUP, "group", "Friends")).turn_seconds == 900
        assert not next(m for m in fake.messages(GROUP, ADMIN) if m.message_id == fresh.message_id).buttons


async def test_a_finished_games_rematch_goes_once_another_game_is_dealt_in_the_chat(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        first = await bot.start(humans=2)
        await play_humans_to_end(bot.service, first)
        await bot.ctx.deliver(first)
        assert all("🔁 Rematch" in [b.text for b in bot.private(p)[-1].buttons] for p in PLAYERS)
        second = (await bot.service.rematch(first, ADMIN)).game_id
        await bot.ctx.deliver(second)
        for p in PLAYERS:  # the first game's Rematch is gone: only the new game's swap buttons are live
            assert [b.text for m in with_buttons(bot, p) for b in m.buttons if b.text == "🔁 Rematch"] == []
        await bot.service.abort(second, ADMIN)
        with pytest.raises(ServiceError) as refused:  # the guard behind the buttons: a later game was dealt
            await bot.service.rematch(first, ADMIN)
        assert refusal(refused.value, translations("en")) == "A newer game was played here: start one with /newgame."


async def test_a_player_removed_after_timeouts_is_told_in_a_message_that_notifies(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    """Removed for missing their turns, a player learnt it only from a silent edit of their old
    turn message: now a new message says so, and how to come back next game (it notifies: it is news
    they must not miss)."""
    from shithead_bot.service import Autoplay
    from tests.service.helpers import lobby_with, time_out
    from tests.telegram.fakegame import FakeGame

    game = FakeGame(sessions, clock, fake, bot)
    await game.service.ensure_chat(GROUP, "group", "Friends")
    await game.service.update_chat(GROUP, max_timeouts=1, after_timeouts="remove")
    game.game_id = await lobby_with(game.service, humans=3, autoplay=Autoplay.OFF)
    await game.service.start(game.game_id, user(0).id)
    await game.deliver()
    while (await game.service.game_view(game.game_id)).in_swap_phase:
        await game.move()
    _, idle = await game.to_act()
    await time_out(game.service, clock, game.game_id)
    await game.deliver()
    view = await game.service.game_view(game.game_id)
    assert any(s.player_id == idle and s.forfeited for s in view.seats), "removed at the first missed turn"
    newest = game.private(idle)[-1]
    assert "removed" in newest.text, newest.text
    assert not newest.silent, "it notifies"
    assert not newest.buttons or all(not b.callback_data for b in newest.buttons)
    assert "next game" in newest.text
