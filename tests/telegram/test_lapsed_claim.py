"""A worker whose claim ran out while a turn message was on its way: once the lease ends another
worker may claim the same notices and send them again, so a copy that comes back (or arrives) after
the claim's end must not stand. Whichever way the two copies' ids fall, the player ends with one
live keyboard, and it is the message the game records. (A bounded chaos run on a loaded machine,
with a 3 s lease, met two live turn messages of one turn.)"""

from __future__ import annotations

import asyncio
import time

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot

from shithead_bot.service import Autoplay, outbox
from shithead_bot.telegram.delivery import executor
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from tests.service.helpers import user
from tests.telegram.fakegame import FakeGame

PLAYERS = [user(n).id for n in range(3)]


async def past_the_swap(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> FakeGame:
    """Three humans, the swap phase over: the next press sends a new turn message."""
    game = await FakeGame(sessions, clock, fake, bot).start(humans=3, autoplay=Autoplay.OFF)
    while (await game.service.game_view(game.game_id)).in_swap_phase:
        await game.move()
    return game


def lease_runs_out(clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker A's claim runs out: on the outbox's clock, so worker B claims the notices again, and on
    the monotonic clock the workers time their claims with."""
    clock.advance(seconds=31)
    for module in (executor, outbox):
        monkeypatch.setattr(module, "_now", lambda: time.monotonic() + 31)


async def live_and_recorded(game: FakeGame) -> tuple[list[int], int | None]:
    """The live keyboards of the player to act, and the message the game records for their seat."""
    number, player = await game.to_act()
    live = [m.message_id for m in game.live(player)]
    return live, (await game.service.game_view(game.game_id)).seat(number).private_message_id


async def plays_on(game: FakeGame) -> None:
    for _ in range(3):
        await game.move()
        assert all(len(game.live(p)) <= 1 for p in PLAYERS)


@pytest.mark.parametrize("late", ["answer", "request"])
async def test_a_turn_message_sent_after_the_claim_ran_out_does_not_stand(
    late: str,
    sessions: async_sessionmaker[AsyncSession],
    clock: FakeClock,
    fake: FakeTelegram,
    bot: Bot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = await past_the_swap(sessions, clock, fake, bot)
    _, mover = await game.to_act()
    others = {str(p) for p in PLAYERS if p != mover}
    release = asyncio.Event()
    # Worker A's new turn message: Telegram takes it and the answer is slow ("answer"), or the
    # request itself is slow on its way and takes effect only later ("request").
    reached = fake.stall_next(
        "sendMessage",
        lambda p: str(p.get("chat_id")) in others and "reply_markup" in p,
        until=release,
        effect_first=late == "answer",
    )
    press = asyncio.ensure_future(game.move())
    await asyncio.wait([press, asyncio.ensure_future(reached.wait())], return_when=asyncio.FIRST_COMPLETED)
    assert reached.is_set(), "the turn message was not sent"
    lease_runs_out(clock, monkeypatch)  # meanwhile
    await game.deliver()  # worker B sends the turn again
    release.set()
    await press  # A hears back (or its message arrives) after its claim ran out
    await game.deliver()
    live, recorded = await live_and_recorded(game)
    assert live == [recorded], (late, live, recorded)
    assert all(len(game.live(p)) <= 1 for p in PLAYERS)
    monkeypatch.undo()
    await plays_on(game)  # and the game plays on from it


async def test_a_report_written_after_the_claim_was_taken_over_does_not_stand(
    sessions: async_sessionmaker[AsyncSession],
    clock: FakeClock,
    fake: FakeTelegram,
    bot: Bot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Worker A sent the turn message in time, but its report reached the database only after its
    lease ended and worker B had claimed and sent the notices again (a slow or faulty database on a
    loaded machine): A's report must not record its copy over B's."""
    game = await past_the_swap(sessions, clock, fake, bot)
    await game.to_act()
    release, reporting = asyncio.Event(), asyncio.Event()
    succeed = outbox.Outbox._succeed

    async def slow_first(self: outbox.Outbox, plan: outbox.Plan, report: outbox.Report) -> object:
        if not reporting.is_set():  # worker A's report: its sends are done, its write is slow
            reporting.set()
            await release.wait()
        return await succeed(self, plan, report)

    monkeypatch.setattr(outbox.Outbox, "_succeed", slow_first)
    press = asyncio.ensure_future(game.move())
    await asyncio.wait([press, asyncio.ensure_future(reporting.wait())], return_when=asyncio.FIRST_COMPLETED)
    assert reporting.is_set(), "the press's delivery wrote no report"
    lease_runs_out(clock, monkeypatch)
    await game.deliver()  # worker B claims the notices and sends them again
    release.set()
    await press  # A's report comes last
    await game.deliver()
    monkeypatch.undo()
    live, recorded = await live_and_recorded(game)
    assert live == [recorded], (live, recorded)
    assert all(len(game.live(p)) <= 1 for p in PLAYERS)
    await plays_on(game)  # and the game plays on from it
