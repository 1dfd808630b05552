"""Ratings: each finished game updates a rating per player (and computer level) in its chat and
overall; forfeits count as last; rebuilding from the games gives exactly the stored values."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from persistence.models import Rating, RatingChange
from shithead_bot.service import GameService
from shithead_bot.service.ratings import OVERALL, Skill, rate
from testkit.clock import FakeClock
from tests.service.helpers import GROUP, lobby_with, play_humans_to_end, user


def test_a_ranking_moves_ratings_in_its_order() -> None:
    after = rate([("p:1", 1), ("p:2", 2), ("p:3", 3)], {})
    assert after["p:1"].mu > after["p:2"].mu > after["p:3"].mu
    assert all(s.sigma < 25 / 3 for s in after.values())


def test_computers_of_one_level_share_a_rating() -> None:
    after = rate([("p:1", 1), ("c:normal", 2), ("c:normal", 3)], {})
    assert set(after) == {"p:1", "c:normal"}
    alone = rate([("p:1", 1), ("c:normal", 3)], {})
    assert after["c:normal"].mu > alone["c:normal"].mu  # one of the two came second


def test_a_better_player_gains_less_for_beating_a_weaker_one() -> None:
    strong, weak = Skill(35, 3), Skill(15, 3)
    expected = rate([("p:1", 1), ("p:2", 2)], {"p:1": strong, "p:2": weak})
    upset = rate([("p:2", 1), ("p:1", 2)], {"p:1": strong, "p:2": weak})
    assert expected["p:1"].mu - strong.mu < upset["p:2"].mu - weak.mu


async def stored(sessions: async_sessionmaker[AsyncSession]) -> tuple[list[tuple[object, ...]], int]:
    async with sessions() as session:
        rows = (await session.execute(select(Rating).order_by(Rating.chat_id, Rating.subject))).scalars().all()
        changes = len((await session.execute(select(RatingChange))).scalars().all())
    return [(r.chat_id, r.subject, round(r.mu, 9), round(r.sigma, 9), r.games, r.losses) for r in rows], changes


async def test_finished_games_are_rated_in_the_chat_and_overall_and_rebuild_exactly(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    for n in range(3):
        chat = GROUP if n < 2 else GROUP - 7
        game_id = await lobby_with(service, humans=2, computers=1, chat_id=chat)
        await service.start(game_id, user(0).id)
        if n == 1:
            await service.forfeit(game_id, user(1).id)  # leaving counts as last
        await play_humans_to_end(service, game_id, seed=n)
        clock.advance(minutes=5)
    before, changes = await stored(sessions)
    subjects = {(c, s) for c, s, *_ in before}
    assert {(GROUP, f"p:{user(0).id}"), (OVERALL, f"p:{user(0).id}"), (OVERALL, "c:normal")} <= subjects
    overall = {s: games for c, s, _, _, games, _ in before if c == OVERALL}
    assert overall[f"p:{user(0).id}"] == 3
    assert overall["c:normal"] == 3
    assert changes == 2 * 3 * 3  # two scopes × three games × three subjects
    board = await service.chat_ratings(GROUP)
    assert [line.ordinal for line in board] == sorted((line.ordinal for line in board), reverse=True)
    mine = await service.player_ratings(user(0).id)
    assert {line.chat_id for line in mine} == {OVERALL, GROUP, GROUP - 7}
    assert await service.rebuild_ratings() == 3
    assert await stored(sessions) == (before, changes)
