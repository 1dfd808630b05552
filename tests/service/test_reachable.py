"""Whether the bot may write to a player is decided by the newest evidence: a /start (or an unblock)
that came while a plan was out is not undone by that plan's report of the 403 it met before."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shithead_bot.service import GameService, Outbox
from shithead_bot.service.report import Plan, Report
from testkit.clock import FakeClock
from tests.service.helpers import lobby_with, user


async def test_a_start_during_the_plan_that_met_the_block_keeps_the_player_reachable(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    """The soak's race: Bob blocked the bot, the game's first plan met the 403 and asked the group to
    get him; he opened the link (/start) before that plan's report was written, and the report marked
    him unreachable again — so his /start was answered "Open a private chat with me first"."""
    game_id = await lobby_with(service, humans=2)
    await service.start(game_id, user(0).id)
    bob = user(1)

    async def blocked_then_started(plan: Plan) -> Report:
        clock.advance(seconds=1)  # the send to Bob met 403 here
        clock.advance(seconds=1)
        assert await service.see_user(bob, can_message=True)  # his /start, committed meanwhile
        clock.advance(seconds=1)
        return Report(plan.game_id, unreachable={bob.id})

    await Outbox(sessions, clock=clock).deliver(blocked_then_started, game_id=game_id)
    assert await service.see_user(bob), "the /start came after the 403: he may be written to"


async def test_a_block_met_after_the_last_start_marks_the_player_unreachable(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    game_id = await lobby_with(service, humans=2)
    await service.start(game_id, user(0).id)
    bob = user(1)
    assert await service.see_user(bob, can_message=True)  # his /start, before the plan
    clock.advance(seconds=5)

    async def blocked(plan: Plan) -> Report:
        clock.advance(seconds=1)
        return Report(plan.game_id, unreachable={bob.id})

    await Outbox(sessions, clock=clock).deliver(blocked, game_id=game_id)
    assert not await service.see_user(bob), "nothing newer than the 403: he blocked the bot"
