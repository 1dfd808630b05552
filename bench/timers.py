"""Timer benchmark: what one sweep costs with many games stored and few due.

    python bench/timers.py                      # 100,000 and 1,000,000 stored, 1,000 due
    python bench/timers.py --stored 100000 --due 1000 --json

Half the stored games are finished, half are paused (their timer is 30 days away); the due ones are
real games whose swap-phase deadline just passed. Prints the time to find a batch of due games (the
query the sweep repeats) and the time of a whole sweep that fires them all, on SQLite and on
PostgreSQL when it answers. The query must grow with the number due, not the number stored.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import insert, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bench.service import databases, fresh
from persistence.db import make_engine, make_sessionmaker
from persistence.models import Chat, Game, utcnow
from shithead_bot.service import GameService, UserInfo
from shithead_bot.timers.sweeper import Sweeper

CHUNK = 20_000


async def fill(sessions: async_sessionmaker[AsyncSession], stored: int) -> None:
    """Finished and paused games, each in a chat of its own, inserted in bulk."""
    now = utcnow()
    async with sessions() as session, session.begin():
        for start in range(0, stored, CHUNK):
            ids = range(start, min(start + CHUNK, stored))
            await session.execute(insert(Chat), [{"id": -10_000_000 - i, "title": "t", "kind": "group"} for i in ids])
            await session.execute(
                insert(Game),
                [
                    {
                        "chat_id": -10_000_000 - i,
                        "status": "finished" if i % 2 else "paused",
                        "rules": {"name": "standard"},
                        "due_at": None if i % 2 else now + timedelta(days=30),
                    }
                    for i in ids
                ],
            )


async def add_due(service: GameService, sessions: async_sessionmaker[AsyncSession], due: int) -> None:
    """Real two-player games in the swap phase whose deadline has just passed."""
    alice, bob = UserInfo(1, "Alice"), UserInfo(2, "Bob")
    for user in (alice, bob):
        await service.see_user(user, can_message=True)
    for n in range(due):
        lobby = await service.open_lobby(-n - 1, alice)
        await service.join(lobby.game_id, bob)
        await service.start(lobby.game_id, alice.id)
    just_passed = utcnow() - timedelta(seconds=1)
    async with sessions() as session, session.begin():
        await session.execute(
            update(Game).where(Game.status == "swapping").values(deadline_at=just_passed, due_at=just_passed)
        )


async def measure(url: str, stored: int, due: int) -> dict[str, object]:
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)  # the bench's own, for the bulk rows (the service hands out none)
    service = GameService(sessions)
    started = time.perf_counter()
    await fill(sessions, stored)
    await add_due(service, sessions, due)
    setup = time.perf_counter() - started
    queries = []
    for _ in range(20):
        start = time.perf_counter()
        found = await service.due(100)
        queries.append(time.perf_counter() - start)
    assert len(found) == min(100, due)
    start = time.perf_counter()
    report = await Sweeper(service).sweep()
    sweep = time.perf_counter() - start
    await engine.dispose()
    return {
        "database": url.split("+")[0],
        "stored_games": stored + due,
        "due": due,
        "fired": report.fired,
        "due_query_ms": round(statistics.median(queries) * 1000, 2),
        "sweep_ms": round(sweep * 1000),
        "per_due_game_ms": round(sweep * 1000 / max(1, report.fired), 2),
        "setup_s": round(setup, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stored", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--due", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    for url in databases():
        for stored in args.stored:
            target = fresh(url if not url.startswith("sqlite") else f"sqlite+aiosqlite:///{tempfile.mkdtemp()}/t.db")
            row = asyncio.run(measure(target, stored - args.due, args.due))
            print(json.dumps(row) if args.json else "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
