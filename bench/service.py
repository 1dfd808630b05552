"""Service benchmark: human moves through the game service, end to end against a real database.

    python bench/service.py                       # SQLite file; PostgreSQL too if it answers
    python bench/service.py --json --games 1 100  # one JSON object per line
    python bench/service.py --profile             # where the time of one move goes (cProfile)
    python bench/service.py --breakdown           # engine and game logic vs database access, per move
    python bench/service.py --stored 10000        # also with 10,000 finished games stored
    python bench/service.py --sessions            # database sessions per press, delivery included

Two human players per game (no computers, so one call is one move); each timed call is one
``GameService.play`` — load and lock the game, check the version, apply, log, outbox, commit.
Figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.ai import make_player
from persistence.db import make_engine, make_sessionmaker
from persistence.migrate import upgrade
from shithead_bot.service import GameService, UserInfo

PG_URL = os.environ.get("BENCH_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")


async def new_game(service: GameService, chat_id: int) -> int:
    a, b = UserInfo(chat_id * -10, "A"), UserInfo(chat_id * -10 + 1, "B")
    for u in (a, b):
        await service.see_user(u, can_message=True)
    lobby = await service.open_lobby(chat_id, a)
    await service.join(lobby.game_id, b)
    await service.start(lobby.game_id, a.id)
    return lobby.game_id


async def play_game(service: GameService, game_id: int, latencies: list[float], max_moves: int) -> None:
    bots = [make_player("heuristic", game_id * 2 + i) for i in range(2)]
    for _ in range(max_moves):
        ctx = await service.game_view(game_id)
        if ctx.state is None or ctx.state.is_over:
            return
        seat = ctx.seat(ctx.state.seats_to_act()[0])
        move = bots[seat.number].choose(ctx.state.view(seat.number))
        start = time.perf_counter()
        await service.play(game_id, seat.player_id or 0, move, seat.keyboard_version)
        latencies.append(time.perf_counter() - start)


async def run(url: str, games: int, moves_per_game: int, stored: int) -> dict[str, object]:
    engine = make_engine(url, pool_size=min(max(games, 5), 40))
    service = GameService(make_sessionmaker(engine))
    if stored:
        from tests.persistence.test_indexes import fill

        await fill(make_sessionmaker(engine))
    ids = [await new_game(service, -1_000_000 - i) for i in range(games)]
    latencies: list[float] = []
    start = time.perf_counter()
    await asyncio.gather(*(play_game(service, g, latencies, moves_per_game) for g in ids))
    elapsed = time.perf_counter() - start
    await engine.dispose()
    latencies.sort()
    return {
        "database": url.split("+")[0],
        "concurrent_games": games,
        "stored_games": stored,
        "moves": len(latencies),
        "moves_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 2),
        "p99_ms": round(latencies[int(len(latencies) * 0.99) - 1] * 1000, 2),
    }


def databases() -> list[str]:
    urls = [f"sqlite+aiosqlite:///{tempfile.mkdtemp()}/bench.db"]
    try:
        import asyncpg

        asyncio.run(asyncio.wait_for(asyncpg.connect(PG_URL.replace("+asyncpg", "")), 3))
        urls.append(PG_URL)
    except Exception as exc:
        print(f"(PostgreSQL not reachable: {exc!r})", file=sys.stderr)
    return urls


def fresh(url: str) -> str:
    """A new, migrated database for one measurement."""
    if url.startswith("sqlite"):
        url = f"sqlite+aiosqlite:///{tempfile.mkdtemp()}/bench.db"
    else:
        asyncio.run(_reset_pg(url))
    upgrade(url)
    return url


async def _reset_pg(url: str) -> None:
    from sqlalchemy import text

    engine = make_engine(url)
    async with engine.begin() as conn:  # every table, whatever the migrations added since
        await conn.execute(text("DROP SCHEMA public CASCADE"))
        await conn.execute(text("CREATE SCHEMA public"))
    await engine.dispose()


async def breakdown(url: str, moves: int = 200) -> dict[str, object]:
    """Where a move's time goes: the engine and game logic (loading the snapshot into the engine,
    applying, computers, notices) against database access (SQLAlchemy, driver, server)."""
    import functools

    import shithead_bot.service.play as play
    import shithead_bot.service.unit as unit

    spent = {"logic": 0.0}

    def timed(fn):  # type: ignore[no-untyped-def]
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent["logic"] += time.perf_counter() - start

        return wrapper

    originals = (unit.load_game, play.settle, play.apply)
    unit.load_game = timed(unit.load_game)
    play.settle = timed(play.settle)
    play.apply = timed(play.apply)
    try:
        latencies: list[float] = []
        engine = make_engine(url)
        service = GameService(make_sessionmaker(engine))
        game_id = await new_game(service, -1)
        spent["logic"] = 0.0
        await play_game(service, game_id, latencies, moves)
        await engine.dispose()
    finally:
        unit.load_game, play.settle, play.apply = originals
    total = sum(latencies)
    return {
        "database": url.split("+")[0],
        "moves": len(latencies),
        "mean_ms": round(total / len(latencies) * 1000, 2),
        "engine_and_logic_ms": round(spent["logic"] / len(latencies) * 1000, 2),
        "database_access_share": round(1 - spent["logic"] / total, 2),
    }


async def sessions_per_press(url: str, moves: int = 60) -> dict[str, object]:
    """Database sessions (transactions begun) per button press: the use case and the delivery of
    its notices through the real sender to the fake Bot API (``BotContext.deliver``), two humans
    in a group. The update's once-only check (``take_update``) is one more, not counted here."""
    from sqlalchemy import event
    from sqlalchemy.orm import Session

    from shithead_bot.config import Settings
    from shithead_bot.telegram.startup import api_client
    from shithead_bot.telegram.wiring import bot_context
    from testkit.fakebot import FakeTelegram

    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    service = GameService(sessions)
    begun = [0]

    def count(*_: object) -> None:
        begun[0] += 1

    event.listen(Session, "after_begin", count)
    counts: list[int] = []
    try:
        async with FakeTelegram() as fake:
            bench_group(fake)
            async with api_client(fake.token, fake.base_url, fake.base_file_url) as bot:
                ctx = bot_context(service, bot, Settings(table_edit_seconds=0))
                game_id = await new_game(service, -1)
                await ctx.deliver(game_id)
                bots = [make_player("heuristic", i) for i in range(2)]
                for _ in range(moves):
                    game = await service.game_view(game_id)
                    if game.state is None or game.state.is_over:
                        break
                    seat = game.seat(game.state.seats_to_act()[0])
                    move = bots[seat.number].choose(game.state.view(seat.number))
                    before = begun[0]
                    await service.play(game_id, seat.player_id or 0, move, seat.keyboard_version)
                    await ctx.deliver(game_id)
                    counts.append(begun[0] - before)
    finally:
        event.remove(Session, "after_begin", count)
        await engine.dispose()
    return {
        "database": url.split("+")[0],
        "presses": len(counts),
        "sessions_mean": round(statistics.mean(counts), 2),
        "sessions_max": max(counts),
        "sessions_min": min(counts),
    }


async def press_costs(url: str, moves: int = 60) -> dict[str, object]:
    """What one button press costs, all of it: the update's once-only check, the use case, the
    delivery of its notices through the real sender and the fleet's send rate (shared in the database
    on PostgreSQL) to the fake Bot API, two humans in a group, the table edited. Per press: database
    transactions (on PostgreSQL counted by the server, pool pings included), SQL statements sent,
    sessions opened, Bot API calls, and CPU seconds of this process (the fake Bot API runs in it too)."""
    from sqlalchemy import event
    from sqlalchemy.orm import Session
    from telegram.ext import ExtBot

    from shithead_bot.config import Settings
    from shithead_bot.telegram.wiring import bot_context, send_rate, share_buckets
    from testkit.fakebot import FakeTelegram

    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    service = GameService(sessions)
    counted = {"sessions": 0, "statements": 0}

    def session_begun(*_: object) -> None:
        counted["sessions"] += 1

    def statement(*_: object) -> None:
        counted["statements"] += 1

    event.listen(Session, "after_begin", session_begun)
    event.listen(engine.sync_engine, "before_cursor_execute", statement)
    postgres = url.startswith("postgresql")
    presses = calls = 0
    cpu = view_xacts = 0.0
    press = {"sessions": 0, "statements": 0}
    try:
        async with FakeTelegram() as fake:
            bench_group(fake)
            settings = Settings(
                send_per_second=1000, group_sends_per_minute=6000, private_sends_per_second=1000, table_edit_seconds=0
            )
            rate = send_rate(settings)
            share_buckets(rate, service)  # on PostgreSQL, in the database as for a fleet
            urls = {"base_url": fake.base_url, "base_file_url": fake.base_file_url}
            async with ExtBot(fake.token, rate_limiter=rate, **urls) as bot:
                ctx = bot_context(service, bot, settings)
                game_id = await new_game(service, -1)
                await ctx.deliver(game_id)
                bots = [make_player("heuristic", i) for i in range(2)]
                view_xacts = 0.0
                if postgres:  # what reading the button's game costs the server, to leave it out below
                    before = await _transactions(url)
                    for _ in range(20):
                        await service.game_view(game_id)
                    view_xacts = (await _transactions(url) - before) / 20
                xacts_before = await _transactions(url) if postgres else 0
                fake.reset_calls()
                press = {"sessions": 0, "statements": 0}
                for update_id in range(moves):
                    game = await service.game_view(game_id)  # the press's button: not counted
                    if game.state is None or game.state.is_over:
                        break
                    seat = game.seat(game.state.seats_to_act()[0])
                    move = bots[seat.number].choose(game.state.view(seat.number))
                    was = dict(counted)
                    start = time.process_time()
                    await service.take_update(1_000 + update_id)
                    await service.play(game_id, seat.player_id or 0, move, seat.keyboard_version)
                    await ctx.deliver(game_id)
                    cpu += time.process_time() - start
                    for key in press:
                        press[key] += counted[key] - was[key]
                    presses += 1
                calls = len([c for c in fake.calls if c.method.lower() != "answercallbackquery"])
    finally:
        event.remove(Session, "after_begin", session_begun)
        event.remove(engine.sync_engine, "before_cursor_execute", statement)
        await engine.dispose()
    xacts = (await _transactions(url) - xacts_before - view_xacts * presses) if postgres else None
    return {
        "database": url.split("+")[0],
        "presses": presses,
        "transactions": None if xacts is None else round(xacts / presses, 2),
        "statements": round(press["statements"] / presses, 2),
        "sessions": round(press["sessions"] / presses, 2),
        "bot_api_calls": round(calls / presses, 2),
        "cpu_ms": round(cpu / presses * 1000, 1),
    }


async def _transactions(url: str) -> int:
    """Transactions the server counted in this database so far (after every session closed)."""
    import asyncpg

    await asyncio.sleep(1.5)  # backends report their counts when idle
    conn = await asyncpg.connect(url.replace("+asyncpg", ""))
    try:
        row = await conn.fetchrow(
            "SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()"
        )
        own = 1  # this query's
        return int(row["n"]) + own if row else 0
    finally:
        await conn.close()


def bench_group(fake: Any) -> None:
    """The group of the press benches on the fake Bot API: two players who started the bot, seated
    as :func:`new_game` seats them in chat -1."""
    players = [UserInfo(10 + i, f"P{i}") for i in range(2)]
    for p in players:
        fake.add_user(p.id, p.first_name)
        fake.start_bot(p.id)
    fake.add_group(-1, "Bench", [p.id for p in players])


def profile(url: str) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    asyncio.run(run(fresh(url), 1, 150, 0))
    profiler.disable()
    stats = pstats.Stats(profiler).sort_stats("cumulative")
    stats.print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--games", type=int, nargs="+", default=[1, 100])
    parser.add_argument("--moves", type=int, default=60, help="moves per game at most")
    parser.add_argument("--stored", type=int, nargs="+", default=[0], help="finished games stored beforehand")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--breakdown", action="store_true", help="engine and logic vs database access")
    parser.add_argument("--sessions", action="store_true", help="database sessions per press, delivery included")
    parser.add_argument("--press", action="store_true", help="transactions, statements and CPU per press, all of it")
    args = parser.parse_args()
    urls = databases()
    if args.press:
        for url in urls:
            row = asyncio.run(press_costs(fresh(url), args.moves))
            print(json.dumps(row) if args.json else "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
        return
    if args.sessions:
        for url in urls:
            row = asyncio.run(sessions_per_press(fresh(url)))
            print(json.dumps(row) if args.json else "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
        return
    if args.profile:
        profile(urls[0])
        return
    if args.breakdown:
        for url in urls:
            row = asyncio.run(breakdown(fresh(url)))
            print(json.dumps(row) if args.json else "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
        return
    for url in urls:
        for stored in args.stored:
            for games in args.games:
                row = asyncio.run(run(fresh(url), games, args.moves, stored))
                print(json.dumps(row) if args.json else "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
