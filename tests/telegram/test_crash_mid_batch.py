"""A worker that dies half-way through a game's batch of sends: after the restart the batch goes out
again, and nobody is asked to act twice.

The message ids a batch posts are recorded when its report is written, after its last send. So a
batch sends what asks a player to act (a new message, it notifies) last: dying before the report
repeats only edits, deletions and the group's posts, and a turn message is sent twice only if the
process dies in the moment between its send and the report's write.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot

from shithead_bot.service import Autoplay
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from tests.service.helpers import GROUP, user
from tests.telegram.fakegame import FakeGame

PLAYERS = [user(n).id for n in range(3)]
GROUP_CALLS = ("editMessageText", "editMessageCaption", "editMessageMedia", "sendMessage", "sendPhoto")


def stall_group(fake: FakeTelegram) -> list[asyncio.Event]:
    """The next call into the group takes effect, and the bot never hears back."""
    return [fake.stall_next(method, lambda p: str(p.get("chat_id")) == str(GROUP)) for method in GROUP_CALLS]


def stall_private(fake: FakeTelegram, player_id: int) -> list[asyncio.Event]:
    """The next edit in the player's private chat takes effect, and the bot never hears back."""
    return [fake.stall_next("editMessageText", lambda p: str(p.get("chat_id")) == str(player_id))]


async def crash_during(game: FakeGame, stalled: list[asyncio.Event], press: asyncio.Task[None]) -> bool:
    """The worker dies while a stalled call hangs (False: nothing stalled, the press went through)."""
    waits = [asyncio.ensure_future(event.wait()) for event in stalled]
    done, pending = await asyncio.wait([press, *waits], return_when=asyncio.FIRST_COMPLETED)
    for task in [*pending, *done]:
        task.cancel()
    await asyncio.gather(press, *waits, return_exceptions=True)
    game.fake.cancel_stalls()
    return any(event.is_set() for event in stalled)


def turn_sends(fake: FakeTelegram, player_id: int) -> int:
    """Messages sent to the player that bring buttons (a turn, a swap, a rematch)."""
    return sum(
        1
        for call in fake.calls_of("sendMessage")
        if str(call.params.get("chat_id")) == str(player_id) and "reply_markup" in call.params
    )


@pytest.mark.parametrize("where", ["group", "mover"])
async def test_a_worker_dying_mid_batch_asks_nobody_twice(
    where: str, sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = await FakeGame(sessions, clock, fake, bot).start(humans=3, autoplay=Autoplay.OFF)
    while (await game.service.game_view(game.game_id)).in_swap_phase:
        await game.move()
    crashes = 0
    for _ in range(30):
        _, mover = await game.to_act()
        stalled = stall_group(fake) if where == "group" else stall_private(fake, mover)
        before = {p: turn_sends(fake, p) for p in PLAYERS}
        if not await crash_during(game, stalled, asyncio.ensure_future(game.move())):
            continue
        crashes += 1
        clock.advance(seconds=31)  # the dead worker's lease runs out: the batch goes out again
        await game.deliver()
        _, next_player = await game.to_act()
        if next_player != mover:
            assert turn_sends(fake, next_player) - before[next_player] == 1, f"after {where} stalled"
        assert game.live(next_player), "the player to act has a keyboard"
        assert all(len(game.live(p)) <= 1 for p in PLAYERS)
        if crashes == 3:
            return
    pytest.fail(f"no call into the {where} stalled in 30 moves")
