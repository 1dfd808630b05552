"""Digest mode is driven by the database: two workers sweeping a digest player's games at the same
moment send one digest, and what is due survives a restart (it is in the rows, nothing in memory)."""

from __future__ import annotations

import asyncio

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from persistence.db import make_engine, make_sessionmaker
from persistence.models import Outbox
from shithead_bot.service import GameService, Notify, ServiceError
from testkit.clock import FakeClock
from tests.service.helpers import lobby_with, make_service, user


async def digests(sessions: async_sessionmaker[AsyncSession]) -> list[dict[str, object]]:
    async with sessions() as session:
        rows = (await session.execute(select(Outbox.payload).where(Outbox.kind == "inbox"))).scalars()
        return [p for p in rows if p.get("digest")]


async def test_two_workers_sweeping_a_digest_players_games_send_one_digest(
    db_url: str, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    service = make_service(sessions, clock)
    await service.see_user(user(0), can_message=True)
    await service.set_notify(user(0), Notify.DIGEST)
    for n in range(3):
        game_id = await lobby_with(service, humans=2, chat_id=-4000 - n)
        await service.start(game_id, user(0).id)
    clock.advance(seconds=1)
    due = await service.due()
    assert len(due) == 3  # each game: the digest check of its seat, armed when the swap began
    engines = [make_engine(db_url), make_engine(db_url)]
    workers = [GameService(make_sessionmaker(e), clock=clock) for e in engines]
    try:
        results = await asyncio.gather(
            *(worker.fire_due(game_id, version) for worker in workers for game_id, version in due),
            return_exceptions=True,
        )
    finally:
        for engine in engines:
            await engine.dispose()
    assert all(r is None or not isinstance(r, BaseException) or isinstance(r, ServiceError) for r in results)
    assert len(await digests(sessions)) == 1  # one digest for the three games, whoever fired
    restarted = make_service(sessions, clock)  # a new process: nothing more is due, nothing lost
    assert await restarted.due() == []
    assert len(await digests(sessions)) == 1
