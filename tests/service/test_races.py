"""Two writers, one move: exactly one wins, the other is told its button is out of date."""

from __future__ import annotations

import asyncio
import sys
import time
from asyncio.subprocess import PIPE
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from persistence.db import make_engine, make_sessionmaker
from persistence.models import Move
from shithead_bot.service import GameService, StaleVersionError
from testkit.clock import FakeClock
from tests.service.helpers import lobby_with, make_service, user

ROOT = Path(__file__).resolve().parents[2]


async def ready_moves(sessions: async_sessionmaker[AsyncSession], game_id: int) -> list[Move]:
    async with sessions() as session:
        query = select(Move).where(Move.game_id == game_id, Move.move == "r", Move.seat == 0)
        return list((await session.execute(query)).scalars())


async def test_two_connections_race_the_same_move(
    db_url: str, service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    for round_ in range(5):
        game_id = await lobby_with(service, humans=2, chat_id=-2000 - round_)
        await service.start(game_id, user(0).id)
        version = (await service.game_view(game_id)).seat(0).keyboard_version
        engines = [make_engine(db_url), make_engine(db_url)]
        racers = [GameService(make_sessionmaker(e), clock=clock) for e in engines]
        results = await asyncio.gather(
            *(r.play(game_id, user(0).id, "r", version) for r in racers), return_exceptions=True
        )
        for e in engines:
            await e.dispose()
        won = [r for r in results if not isinstance(r, BaseException)]
        stale = [r for r in results if isinstance(r, StaleVersionError)]
        assert (len(won), len(stale)) == (1, 1), results
        assert len(await ready_moves(sessions, game_id)) == 1


@pytest.mark.slow
async def test_two_processes_race_on_postgresql(pg_db_url: str, clock: FakeClock) -> None:
    db_url = pg_db_url
    engine = make_engine(db_url)
    sessions = make_sessionmaker(engine)
    service = make_service(sessions, clock)
    for round_ in range(3):
        game_id = await lobby_with(service, humans=2, chat_id=-3000 - round_)
        await service.start(game_id, user(0).id)
        version = (await service.game_view(game_id)).seat(0).keyboard_version
        start_at = time.time() + 1.5
        args = [sys.executable, "-m", "tests.service.race_worker", db_url, str(game_id), str(user(0).id)]
        procs = [
            await asyncio.create_subprocess_exec(*args, str(version), str(start_at), cwd=ROOT, stdout=PIPE)
            for _ in range(2)
        ]
        outputs = sorted([(await asyncio.wait_for(p.communicate(), 60))[0].decode().strip() for p in procs])
        assert outputs == ["stale", "won"]
        assert len(await ready_moves(sessions, game_id)) == 1
    await engine.dispose()


async def test_a_lost_race_leaves_no_half_change(service: GameService, game_id: int) -> None:
    before = await service.game_view(game_id)
    await service.play(game_id, user(0).id, "r", before.seat(0).keyboard_version)
    middle = await service.game_view(game_id)
    with pytest.raises(StaleVersionError):
        await service.play(game_id, user(0).id, "r", before.seat(0).keyboard_version)
    after = await service.game_view(game_id)
    assert after.game.version == middle.game.version
    assert after.game.move_count == middle.game.move_count == 1
