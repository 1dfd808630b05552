"""A copy of a player's private message asked for again (/hand, its button, a bare /start, an
unblock) goes out through the game's outbox, in order: after a batch still being sent, never beside
it, so the player never holds two live keyboards for one turn."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot

from engine.ai import make_player
from shithead_bot.service import Autoplay, NeedsPrivateChatError, NotAPlayerError
from shithead_bot.service.report import Plan, Report
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from tests.service.helpers import GROUP, user
from tests.telegram.fakegame import FakeGame


async def ask_again(game: FakeGame, player_id: int) -> None:
    """What /hand does: a fresh copy of the player's message, asked for through the service."""
    await game.service.ask_again(game.game_id, player_id)
    await game.deliver()


async def in_play(game: FakeGame) -> FakeGame:
    """Three players past the swap phase, each pressing their own buttons (no forced moves)."""
    await game.start(humans=3, autoplay=Autoplay.OFF)
    while (await game.service.game_view(game.game_id)).in_swap_phase:
        await game.move()
    return game


async def test_a_copy_asked_for_while_a_batch_is_sent_comes_after_it(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = await in_play(FakeGame(sessions, clock, fake, bot))
    sent, report_written = asyncio.Event(), asyncio.Event()

    async def slow_report(plan: Plan) -> Report:  # sent, and the report not written yet
        report = await game.delivery(plan)
        sent.set()
        await report_written.wait()
        return report

    mover_seat, mover = await game.to_act()
    view = await game.service.game_view(game.game_id)
    assert view.state is not None
    move = make_player("normal", mover_seat).choose(view.state.view(mover_seat))
    await game.service.play(game.game_id, mover, move, view.seat(mover_seat).keyboard_version)
    batch = asyncio.ensure_future(game.outbox.deliver(slow_report))
    await sent.wait()
    _, next_player = await game.to_act()
    assert len(game.live(next_player)) == 1
    await ask_again(game, next_player)  # the batch's new turn message is not recorded yet
    report_written.set()
    await batch
    await game.deliver()
    live = game.live(next_player)
    assert len(live) == 1, [m.text for m in live]
    assert live == [game.private(next_player)[-1]], "the newest message is the live one"


async def test_a_copy_is_the_newest_message_and_the_old_one_loses_its_buttons(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = await in_play(FakeGame(sessions, clock, fake, bot))
    _, player = await game.to_act()
    old = game.live(player)
    await ask_again(game, player)
    newest = game.private(player)[-1]
    assert game.live(player) == [newest]
    assert newest.message_id != old[0].message_id
    assert not newest.silent, "a copy asked for notifies like the turn it shows"
    await game.move()  # its buttons work: the turn goes on
    _, to_act = await game.to_act()
    waiting = next(p for p in (user(n).id for n in range(3)) if p not in (player, to_act))
    assert await game.service.ask_again(game.game_id, waiting, to_act_only=True) is False
    await ask_again(game, waiting)  # not their turn: a copy all the same, without buttons
    copy = game.private(waiting)[-1]
    assert "Your hand" in copy.text
    assert [b.text for b in copy.buttons] == ["🌴 Away…"], "no move to press while others play"


async def test_a_player_the_bot_may_not_write_to_gets_no_copy(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = await FakeGame(sessions, clock, fake, bot).start(humans=3, autoplay=Autoplay.OFF)
    player = user(1).id
    fake.block_bot(player)
    before = len(fake.messages(GROUP, as_user=user(0).id))
    await ask_again(game, player)  # the bot learns it by sending
    assert not await game.service.may_message(player)
    assert len(fake.messages(GROUP, as_user=user(0).id)) == before, (
        "the asker is answered where they asked, not by a group post"
    )
    with pytest.raises(NeedsPrivateChatError):  # now known: nothing is written
        await game.service.ask_again(game.game_id, player)
    with pytest.raises(NotAPlayerError):
        await game.service.ask_again(game.game_id, user(7).id)
