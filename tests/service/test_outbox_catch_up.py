"""The sweep delivers a game's leftovers; notices the game's own delivery could not take meanwhile
(the game was busy: the sweep held its older ones) go out with them, not two seconds later."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shithead_bot.service import GameService, Notice, Outbox
from shithead_bot.service.report import Plan, Report
from testkit.clock import FakeClock
from tests.service.helpers import lobby_with, user


class MovingSender:
    """While the sweep's first batch is out, a player moves, and the move's own delivery runs."""

    def __init__(self, service: GameService, outbox: Outbox, game_id: int) -> None:
        self.service, self.outbox, self.game_id = service, outbox, game_id
        self.batches: list[list[Notice]] = []
        self.own_delivery: int | None = None

    async def __call__(self, plan: Plan) -> Report:
        self.batches.append(list(plan.notices))
        if self.own_delivery is None:
            await self.service.start(self.game_id, user(0).id)
            self.own_delivery = await self.outbox.deliver(self.record, game_id=self.game_id)
        return Report(plan.game_id)

    async def record(self, plan: Plan) -> Report:
        self.batches.append(list(plan.notices))
        return Report(plan.game_id)


async def test_the_sweep_takes_along_what_a_busy_game_left_behind(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    game_id = await lobby_with(service, humans=2)
    outbox = Outbox(sessions, clock=clock)
    clock.advance(seconds=5)  # the lobby's notices are leftovers now
    sender = MovingSender(service, outbox, game_id)
    await outbox.deliver(sender, older_than=timedelta(seconds=2))
    assert sender.own_delivery == 0  # the game was busy: its own delivery left it alone
    assert len(sender.batches) == 2  # the sweep took the start's notices along
    assert "table" in {str(n.kind) for n in sender.batches[1]}
    assert await outbox.pending() == 0
