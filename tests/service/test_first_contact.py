"""Simultaneous first contacts: create-if-missing is an upsert, so nobody sees an error."""

from __future__ import annotations

import asyncio

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from persistence.db import make_engine, make_sessionmaker
from shithead_bot.service import AlreadyOpenError, GameService, UserInfo
from testkit.clock import FakeClock
from tests.service.helpers import make_service


async def racers(db_url: str, clock: FakeClock, n: int = 4) -> tuple[list[GameService], list[object]]:
    engines = [make_engine(db_url) for _ in range(n)]
    return [GameService(make_sessionmaker(e), clock=clock) for e in engines], engines


async def test_a_new_user_seen_by_many_connections_at_once(db_url: str, clock: FakeClock) -> None:
    services, engines = await racers(db_url, clock)
    try:
        for round_ in range(5):
            who = UserInfo(id=7000 + round_, first_name="Newcomer")
            results = await asyncio.gather(
                *(s.see_user(who, can_message=True) for s in services), return_exceptions=True
            )
            assert results == [True] * len(services), results
    finally:
        for engine in engines:
            await engine.dispose()  # type: ignore[attr-defined]


async def test_a_new_group_seen_by_many_connections_at_once(db_url: str, clock: FakeClock) -> None:
    services, engines = await racers(db_url, clock)
    try:
        for round_ in range(5):
            chat_id = -9000 - round_
            calls = [s.ensure_chat(chat_id, "group", "Friends") for s in services[:2]]
            calls += [s.bot_added(chat_id, "group", "Friends") for s in services[2:]]
            results = await asyncio.gather(*calls, return_exceptions=True)
            assert not [r for r in results if isinstance(r, BaseException)], results
    finally:
        for engine in engines:
            await engine.dispose()  # type: ignore[attr-defined]


async def test_two_newgames_at_once_one_lobby_and_already_open(
    db_url: str, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    """The bot added to a group and two /newgame at once, by two new users: one lobby; the other
    is told that a game is already open (not "out of date", not an error)."""
    services, engines = await racers(db_url, clock)
    try:
        for round_ in range(5):
            chat_id = -9500 - round_
            users = [UserInfo(id=8000 + 10 * round_ + i, first_name=f"P{i}") for i in range(3)]
            calls = [s.open_lobby(chat_id, u, chat_title="Friends") for s, u in zip(services, users, strict=False)]
            results = await asyncio.gather(*calls, services[3].bot_added(chat_id, "group", "F"), return_exceptions=True)
            opened = [r for r in results[:3] if not isinstance(r, BaseException)]
            refused = [r for r in results[:3] if isinstance(r, AlreadyOpenError)]
            assert (len(opened), len(refused)) == (1, 2), results
            assert all(r.game_id == opened[0].game_id for r in refused)  # type: ignore[union-attr]
            assert not isinstance(results[3], BaseException), results[3]
        game = await make_service(sessions, clock).open_game(-9500)
        assert game is not None
    finally:
        for engine in engines:
            await engine.dispose()  # type: ignore[attr-defined]
