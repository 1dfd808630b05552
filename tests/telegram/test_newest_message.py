"""Each player's newest private message is the one that matters: what asks them to act, or tells
them how the game ended, is a new message (it notifies); a reminder goes once its turn is over; a
forced move made for them is told without a notification."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot

from engine.ai import make_player
from shithead_bot.service import Autoplay, thinking
from shithead_bot.timers.sweeper import Sweeper
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from tests.service.helpers import user
from tests.service.test_levels import slow_hard
from tests.telegram.fakegame import FakeGame

__all__ = ["slow_hard"]  # a fixture


@pytest.mark.slow  # whole games through the fake Bot API: the full run's, not the fast lane's
async def test_at_the_end_each_players_newest_message_is_their_result_and_forced_moves_were_silent(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    """One whole game of three humans, looked at twice (a game through the fake Bot API is the cost
    of this file, so the two observations share it): at the end each player's newest message is
    their result; and a forced move made for a player was told without a notification, while every
    message that notified asked to act or told the end."""
    game = await FakeGame(sessions, clock, fake, bot).start(humans=3)
    await game.play_to_end()
    for n in range(3):
        newest = game.private(user(n).id)[-1]
        assert "Game over" in newest.text, newest.text
        assert not game.live(user(n).id) or game.live(user(n).id) == [newest]  # only Rematch stays
    sent = [m for n in range(3) for m in game.fake.history(user(n).id) if m.from_bot and m.version == 0]
    assert any(m.silent and "You had no other move" in m.text for m in sent)
    for message in sent:  # what notifies asks to act, or tells the end
        if not message.silent:
            assert any(word in message.text for word in ("Your turn", "Swap phase", "Game over")), message.text


async def test_the_first_turn_after_a_swap_timeout_is_a_new_message(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = await FakeGame(sessions, clock, fake, bot).start(autoplay=Autoplay.OFF)
    swaps = {n: game.private(user(n).id)[-1].message_id for n in range(2)}
    sweeper = Sweeper(game.service)
    for _ in range(25 * 6):  # nobody presses Ready: the swap phase times out
        clock.advance(minutes=10)
        await sweeper.sweep()
        await game.deliver()
    _, player_id = await game.to_act()
    newest = game.private(player_id)[-1]
    assert "Your turn" in newest.text
    assert newest.message_id != swaps[player_id - user(0).id]  # not the swap message edited
    assert not newest.silent
    assert game.live(player_id) == [newest]


async def test_a_reminder_says_what_is_asked_and_goes_once_the_turn_is_over(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = await FakeGame(sessions, clock, fake, bot).start(autoplay=Autoplay.OFF)
    sweeper = Sweeper(game.service)
    clock.advance(hours=12, seconds=1)  # half time of the swap phase
    await sweeper.sweep()
    await game.deliver()
    reminder = game.private(user(0).id)[-1]
    assert "⏰" in reminder.text
    assert "Ready" in reminder.text
    assert "your turn" not in reminder.text.lower()  # the swap phase is nobody's turn
    for n in range(2):  # both press Ready: the play starts
        version = (await game.service.game_view(game.game_id)).seat(n).keyboard_version
        await game.service.play(game.game_id, user(n).id, "r", version)
        await game.deliver()
    assert all(m.message_id != reminder.message_id for m in game.private(user(0).id))  # deleted
    clock.advance(hours=12, seconds=1)  # half time of the first turn
    await sweeper.sweep()
    await game.deliver()
    _, player_id = await game.to_act()
    reminder = game.private(player_id)[-1]
    assert "your turn" in reminder.text.lower()
    await game.move()
    assert all(m.message_id != reminder.message_id for m in game.private(player_id))
    assert game.private(player_id)[-1].message_id != reminder.message_id


async def test_against_computers_each_turn_is_a_new_message_and_only_one_keyboard_is_live(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = await FakeGame(sessions, clock, fake, bot).start(humans=1, computers=2)
    me = user(0).id
    for _ in range(12):
        if (await game.service.game_view(game.game_id)).is_over:
            break
        before = game.private(me)[-1].message_id
        await game.move()
        view = await game.service.game_view(game.game_id)
        if view.is_over or not view.may_act(0):
            continue
        newest = game.private(me)[-1]
        if (await game.service.moves(game.game_id))[-1].seat != 0:  # the computers moved in between: a new turn
            assert newest.message_id > before
            assert newest.silent  # she pressed a moment ago: she is looking, no buzz (test_attention.py)
        assert game.live(me) == [newest]


async def test_a_private_game_against_computers_keeps_one_turn_message_the_newest(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    """The new turn tells everything since the last one, so the old one goes (a delete does not
    count against the chat's one send a second: the next turn comes sooner)."""
    game = FakeGame(sessions, clock, fake, bot)
    game.game_id = (await game.service.open_private_game(user(0), computers=2, chat_title="Me")).game_id
    await game.deliver()
    me, seen = user(0).id, 0
    for _ in range(40):
        view = await game.service.game_view(game.game_id)
        if view.is_over:
            break
        await game.move()
        view = await game.service.game_view(game.game_id)
        if view.in_swap_phase or not view.may_act(0):
            continue
        turns = [m for m in game.private(me) if "Your turn" in m.text]
        assert len(turns) == 1, [m.text[:40] for m in turns]
        assert game.live(me) == [game.private(me)[-1]] == turns
        seen += 1
    assert seen > 3


SENDS = {"sendmessage", "editmessagetext", "editmessagereplymarkup", "sendphoto", "editmessagemedia"}


async def test_a_press_the_computers_think_after_costs_one_send_in_a_private_game(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot, slow_hard: list[str]
) -> None:
    """The press is answered first and the computers think after it: the message pressed on is not
    edited to say what was played, since the next turn message (which tells it) replaces it — one
    send of the private chat's one a second, not two, before the player may act again."""
    game = FakeGame(sessions, clock, fake, bot)
    game.game_id = (await game.service.open_private_game(user(0), computers=2, level="hard", chat_title="Me")).game_id
    await game.deliver()
    me, handed_back = user(0).id, 0
    for _ in range(400):
        view = await game.service.game_view(game.game_id)
        if view.is_over or handed_back >= 3:
            break
        assert view.state is not None
        move = make_player("normal", 0).choose(view.state.view(0))
        result = await game.service.play(game.game_id, me, move, view.seat(0).keyboard_version)
        if not result.thinking:
            await game.deliver()
            continue
        fake.calls.clear()
        await game.deliver()  # the press's own notices, while the computers think
        await game.service.play_on(game.game_id)
        await game.deliver()
        after = await game.service.game_view(game.game_id)
        if after.is_over or not after.may_act(0):
            continue
        sends = [c for c in fake.calls if c.method.lower() in SENDS and str(c.params.get("chat_id")) == str(me)]
        assert len(sends) == 1, [c.method for c in sends]
        assert game.live(me) == [game.private(me)[-1]]
        assert "Your turn" in game.private(me)[-1].text
        handed_back += 1
    assert handed_back >= 3


async def test_on_a_busy_machine_the_computers_a_press_hands_back_move_after_it(
    sessions: async_sessionmaker[AsyncSession],
    clock: FakeClock,
    fake: FakeTelegram,
    bot: Bot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A loaded machine spends the inline budget at once: every computer decision after a press is
    handed back to be thought about after the press's answer, and the harness, like the bot, carries
    the computers on (``play_on``) — the private game goes on, one turn message the newest. (It once
    waited for a sweep that never came: "no human to act", under CI's load only.)"""
    monkeypatch.setattr(thinking, "INLINE_BUDGET_SECONDS", -1.0)
    game = FakeGame(sessions, clock, fake, bot)
    game.game_id = (await game.service.open_private_game(user(0), computers=2, chat_title="Me")).game_id
    await game.deliver()
    for _ in range(6):
        await game.move()
    view = await game.service.game_view(game.game_id)
    assert view.is_over or view.may_act(0)
