"""A clean-up that fails never sends anything again: once a message went out, a later step of the same
notice failing (a delete, a keyboard taken off, an unpin) does not send it a second time. The clean-up
is tried again alone, later, and the game goes on meanwhile.

Real Telegram answers deletes with a 5xx now and then; before this, the whole notice was retried and
the new, notifying message went out again with every try (6 identical messages in 9 s), each copy
keeping live buttons."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot

from shithead_bot.service import Autoplay
from shithead_bot.timers.sweeper import Sweeper
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from tests.service.helpers import user
from tests.telegram.fakegame import FakeGame

PLAYERS = [user(n).id for n in range(3)]


def asks(fake: FakeTelegram, player_id: int) -> int:
    """New messages with buttons sent to the player (each one buzzes their phone)."""
    return sum(
        1
        for call in fake.calls_of("sendMessage")
        if str(call.params.get("chat_id")) == str(player_id) and "reply_markup" in call.params
    )


async def test_a_failed_delete_after_a_swap_tap_sends_the_swap_message_once(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = await FakeGame(sessions, clock, fake, bot).start(humans=3, autoplay=Autoplay.OFF)
    view = await game.service.game_view(game.game_id)
    assert view.state is not None
    assert view.in_swap_phase
    before = asks(fake, PLAYERS[0])
    fake.fail_next("deleteMessage", times=6, error_code=500, description="Internal Server Error")
    swap = next(m for m in view.state.legal_moves(0) if str(m) != "r")
    await game.service.play(game.game_id, PLAYERS[0], swap, view.seat(0).keyboard_version)
    await game.deliver()
    await game.sweep_for(15 * 60)  # the outbox tries again for a quarter of an hour
    sent = asks(fake, PLAYERS[0]) - before
    assert sent <= 1, f"the swap message went out {sent} times"
    assert len(game.live(PLAYERS[0])) == 1, "one live keyboard once the delete went through"
    assert await game.given_up() == []


async def test_a_failed_reminder_delete_does_not_hold_the_next_turn_nor_send_it_twice(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = await FakeGame(sessions, clock, fake, bot).start(humans=3, autoplay=Autoplay.OFF)
    while (await game.service.game_view(game.game_id)).in_swap_phase:
        await game.move()
    _, mover = await game.to_act()
    clock.advance(hours=12, seconds=1)  # the mover gets a reminder
    await Sweeper(game.service).sweep()
    await game.deliver()
    assert "⏰" in game.private(mover)[-1].text
    before = {p: asks(fake, p) for p in PLAYERS}
    fake.fail_next("deleteMessage", times=6, error_code=500, description="Internal Server Error")
    await game.move()  # the reminder's delete fails: the next player's turn goes out all the same
    _, next_player = await game.to_act()
    assert asks(fake, next_player) - before[next_player] == 1, "the next turn went out at once"
    await game.sweep_for(30 * 60)
    assert asks(fake, next_player) - before[next_player] == 1, "and only once"
    assert all(len(game.live(p)) <= 1 for p in PLAYERS)
    assert not [m for m in game.private(mover) if "⏰" in m.text], "the reminder went, tried again alone"


@pytest.mark.slow  # whole games through the fake Bot API: the full run's, not the fast lane's
async def test_a_game_ends_with_one_live_keyboard_each_while_deletes_fail_for_good(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    """Deletes failing for the whole game (a soak once left a player 73 live keyboards, and 6 of 7
    games unfinished): every turn goes out once, and the game ends."""
    game = await FakeGame(sessions, clock, fake, bot).start(humans=3, autoplay=Autoplay.OFF)
    fake.fail_next("deleteMessage", times=100_000, error_code=502, description="Bad Gateway")
    for _ in range(3000):
        if (await game.service.game_view(game.game_id)).is_over:
            break
        await game.move()
        clock.advance(seconds=5)
        assert all(len(game.live(p)) <= 1 for p in PLAYERS), {p: len(game.live(p)) for p in PLAYERS}
    assert (await game.service.game_view(game.game_id)).is_over
