"""Scale benchmark: what the queries of a busy bot cost as its history grows (PostgreSQL).

    python bench/scale.py                 # 1k, 10k and 100k finished games (100, 1k, 10k active)
    python bench/scale.py --sizes 1000 10000
    python bench/scale.py --smoke         # a tiny size, a few seconds (the test suite runs it)
    python bench/scale.py --json
    python bench/scale.py --overload      # the outbox and the sender against a scaled-down send rate

Each size is a fresh database: a few real games are played through the service (the templates:
two to four humans, a finished game each, and one game left in play), then their rows — game,
seats, move log, delivered notices — are replicated server-side (``INSERT … SELECT``) into F
finished and F/10 active games, one active game per chat, ten finished ones per chat, four
players per chat. One regular player sits in every tenth finished game (100 games at 1k, 10,000 at
100k), in five chats; a quarter of the regular's games had a stand-in for some moves. Ratings and
their history are derived from the seats. Finished games end at 1,000 a day; their delivered notices
are kept for the newest day's games only (what the hourly pruning keeps: a full history of them
would be 200 rows a game, and minutes to build, and no measured query reads them); then VACUUM
ANALYZE.

Per size, each measured operation's median in ms and its ratio to the smallest size: the sweep's
due query (50 games due), the outbox claim with no backlog and with 200 notices pending in 100
games (rolled back), a press (``service.play`` on an active game), ``/stats`` in a group and in
private (the regular's), the overall leaderboard, the vitals behind ``/metrics``, and the messages
a retried plan must leave alone (``private_message_ids_of`` since a day ago). The goal: no ratio
above 2 at 100 times the history. Figures, not pass/fail.

``--overload``: the outbox and the real sender (``Delivery``) deliver the notices of N games at
once through the fake Bot API, with the global send rate scaled down (``Limits(per_second=2)``)
so that the bot is overloaded; prints sends per second, Jain's fairness index of the sends over
the games, and the longest a game waited for its first send.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlmodel import SQLModel

from bench.service import new_game
from engine.ai import make_player
from persistence import repo
from persistence.db import make_engine, make_sessionmaker
from persistence.migrate import upgrade
from persistence.models import utcnow
from persistence.types import UTCDateTime
from shithead_bot.service import GameService
from shithead_bot.service.ratings import OVERALL

PG_URL = os.environ.get("BENCH_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
DATABASE = f"shithead_scale_{os.getpid()}"  # its own, dropped at the end
TEMPLATE = DATABASE + "_t"  # the played games every size starts from
REGULAR = 999  # the regular player's id
REGULAR_CHATS = 5
PER_DAY = 1000  # finished games a day
DUE = 50  # active games whose timer is due
BACKLOG_GAMES, BACKLOG_PER_GAME = 100, 2
SIZES = ((1_000, 100), (10_000, 1_000), (100_000, 10_000))
SMOKE = ((40, 10), (80, 12))


# ----------------------------------------------------------------------------- the database


def bench_url(base: str) -> str:
    return base.rsplit("/", 1)[0] + "/" + DATABASE


async def recreate(base: str, template: str | None = None) -> str:
    """The bench's database, new (a copy of ``template``'s, or empty)."""
    engine = create_async_engine(base, isolation_level="AUTOCOMMIT")
    async with engine.connect() as conn:
        await conn.execute(text(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)"))
        await conn.execute(text(f"CREATE DATABASE {DATABASE}" + (f" TEMPLATE {template}" if template else "")))
    await engine.dispose()
    return bench_url(base)


async def drop(base: str, *names: str) -> None:
    engine = create_async_engine(base, isolation_level="AUTOCOMMIT")
    async with engine.connect() as conn:
        for name in names:
            await conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
    await engine.dispose()


async def played(base: str) -> tuple[list[int], int]:
    """The template games, played once in the bench's database, which is then renamed to be every
    size's template."""
    url = await recreate(base)
    await asyncio.to_thread(upgrade, url)
    engine = make_engine(url)
    found = await templates(GameService(make_sessionmaker(engine)))
    await engine.dispose()
    admin = create_async_engine(base, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f"ALTER DATABASE {DATABASE} RENAME TO {TEMPLATE}"))
    await admin.dispose()
    return found


# ----------------------------------------------------------------------------- the templates


async def templates(service: GameService) -> tuple[list[int], int]:
    """Real games: finished ones of 2, 3 and 4 humans, and a 3-human game left in play."""
    finished = []
    for n, seats in enumerate((2, 3, 4)):
        game_id = await new_game_of(service, -1 - n, seats)
        await play(service, game_id, seats, 5000)
        finished.append(game_id)
    active = await new_game_of(service, -9, 3)
    await play(service, active, 3, 12)
    return finished, active


async def play(service: GameService, game_id: int, seats: int, moves: int) -> None:
    bots = [make_player("heuristic", game_id * 10 + i) for i in range(seats)]
    for _ in range(moves):
        view = await service.game_view(game_id)
        if view.state is None or view.state.is_over:
            return
        seat = view.seat(view.state.seats_to_act()[0])
        move = bots[seat.number].choose(view.state.view(seat.number))
        await service.play(game_id, seat.player_id or 0, move, seat.keyboard_version)


async def new_game_of(service: GameService, chat_id: int, seats: int) -> int:
    if seats == 2:
        return await new_game(service, chat_id)
    from shithead_bot.service import UserInfo

    users = [UserInfo(chat_id * -10 + i, f"T{i}") for i in range(seats)]
    for u in users:
        await service.see_user(u, can_message=True)
    lobby = await service.open_lobby(chat_id, users[0])
    for u in users[1:]:
        await service.join(lobby.game_id, u)
    await service.start(lobby.game_id, users[0].id)
    return lobby.game_id


# ----------------------------------------------------------------------------- replication


def columns(table: str) -> list[Any]:
    return list(SQLModel.metadata.tables[table].columns)


def copy_sql(table: str, source: str, subs: dict[str, str], *, skip: tuple[str, ...] = ()) -> str:
    """INSERT INTO table SELECT every column of the template row ``t`` (times shifted by ``r.shift``),
    with ``subs`` for some: whatever columns the schema has now."""
    names, values = [], []
    for column in columns(table):
        if column.name in skip:
            continue
        names.append(column.name)
        if column.name in subs:
            values.append(subs[column.name])
        elif isinstance(column.type, UTCDateTime):
            values.append(f"t.{column.name} + r.shift")
        else:
            values.append(f"t.{column.name}")
    return f'INSERT INTO "{table}" ({", ".join(names)}) SELECT {", ".join(values)} {source}'


async def replicate(engine: AsyncEngine, finished: int, active: int, done: list[int], live: int) -> None:
    chats, due = active, due_of(active)
    now = utcnow()
    async with engine.begin() as conn:
        x = conn.execute
        await x(text("CREATE UNLOGGED TABLE rep (id bigint, template bigint, chat bigint, shift interval, "
                     "regular boolean, standin boolean, due timestamptz, recent boolean)"))  # fmt: skip
        t0, t1, t2 = done
        at = f"'{now.isoformat()}'::timestamptz"
        # Finished games: one in ten the regular's (in five chats), the others in the other chats.
        await x(
            text(
                f"""
                INSERT INTO rep
                SELECT 100000 + i, (ARRAY[{t0}, {t1}, {t2}])[1 + i % 3],
                       CASE WHEN i % 10 = 0 THEN (i / 10) % {REGULAR_CHATS}
                            ELSE {REGULAR_CHATS} + i % ({chats - REGULAR_CHATS}) END,
                       ({at} - ({finished} - i) * interval '{86400 / PER_DAY} seconds')
                         - (SELECT finished_at FROM game WHERE id = (ARRAY[{t0}, {t1}, {t2}])[1 + i % 3]),
                       i % 10 = 0, i % 40 = 0, NULL::timestamptz, i >= {finished - PER_DAY}
                FROM generate_series(0, {finished - 1}) AS i
                """
            )
        )
        # Active games: one per chat, the last move made up to a day ago; DUE of them due now.
        await x(
            text(
                f"""
                INSERT INTO rep
                SELECT 100000 + {finished} + i, {live}, i,
                       ({at} - (i % 1440) * interval '1 minute') - (SELECT updated_at FROM game WHERE id = {live}),
                       false, false,
                       CASE WHEN i < {due} THEN {at} - interval '1 minute'
                            ELSE {at} + (i % 1440) * interval '1 minute' END, true
                FROM generate_series(0, {active - 1}) AS i
                """
            )
        )
        await x(text(copy_sql("chat", f"FROM generate_series(0, {chats - 1}) AS c, chat t, "
                              "(SELECT interval '0' AS shift) r WHERE t.id = -1",
                              {"id": "-1000000 - c", "title": "'chat ' || c"})))  # fmt: skip
        await x(
            text(
                copy_sql(
                    "player",
                    f"FROM generate_series(0, {4 * chats}) AS p, player t, (SELECT interval '0' AS shift) r "
                    "WHERE t.id = 10",
                    {"id": f"CASE WHEN p = {4 * chats} THEN {REGULAR} ELSE 1000000 + p END", "first_name": "'P' || p"},
                )
            )
        )
        player = (
            f"CASE WHEN t.player_id IS NULL THEN NULL WHEN r.regular AND t.number = 0 THEN {REGULAR} "
            "ELSE 1000000 + 4 * r.chat + (t.number + r.id) % 4 END"
        )
        src = "FROM rep r JOIN {} t ON t.{} = r.template"
        game_subs = {"id": "r.id", "chat_id": "-1000000 - r.chat", "due_at": "r.due", "deadline_at": "r.due",
                     "created_by": "NULL", "rematch_of": "NULL"}  # fmt: skip
        await x(text(copy_sql("game", src.format("game", "id"), game_subs)))
        await x(text(copy_sql("seat", src.format("seat", "game_id"), {"game_id": "r.id", "player_id": player},
                              skip=("id",))))  # fmt: skip
        actor = "CASE WHEN r.standin AND t.seat = 0 AND t.seq % 4 = 0 THEN 'standin' ELSE t.actor END"
        await x(text(copy_sql("move", src.format("move", "game_id"), {"game_id": "r.id", "actor": actor},
                              skip=("id",))))  # fmt: skip
        delivered = "coalesce(t.delivered_at, t.created_at) + r.shift"
        recent = src.format("outbox", "game_id") + " WHERE r.recent"  # older ones: pruned
        await x(text(copy_sql("outbox", recent, {"game_id": "r.id", "delivered_at": delivered,
                              "claimed_until": "NULL", "not_before": "NULL"}, skip=("id",))))  # fmt: skip
        await ratings(conn)
        await x(text("DROP TABLE rep"))
        for table in ("game", "seat", "move", "outbox", "rating_change"):
            await x(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"))
    async with make_sessionmaker(engine)() as session, session.begin():
        rebuild = getattr(repo, "rebuild_player_records", None)
        if rebuild is not None:  # the players' records kept as counters (after the fix)
            await rebuild(session=session, status="finished", stand_in="standin")


async def ratings(conn: Any) -> None:
    """Each finished replica's rating changes (in its chat and overall), and the ratings they lead to."""
    subject = "CASE WHEN s.player_id IS NULL THEN 'c:' || s.computer_level ELSE 'p:' || s.player_id END"
    for scope in ("-1000000 - r.chat", "0"):
        await conn.execute(
            text(
                f"""
                INSERT INTO rating_change (game_id, chat_id, subject, place, mu_before, sigma_before, mu_after,
                                           sigma_after, created_at)
                SELECT r.id, {scope}, {subject}, coalesce(s.place, 4), 25 + random() * 10 - 5, 2 + random() * 6,
                       25 + random() * 10 - 5, 2 + random() * 6, g.finished_at
                FROM rep r JOIN game g ON g.id = r.id JOIN seat s ON s.game_id = r.id
                WHERE g.status = 'finished'
                """
            )
        )
    await conn.execute(
        text(
            """
            INSERT INTO rating (chat_id, subject, mu, sigma, games, losses, updated_at)
            SELECT chat_id, subject, 25 + random() * 10 - 5, 2 + random() * 6, count(*),
                   count(*) FILTER (WHERE place > 2), max(created_at)
            FROM rating_change GROUP BY chat_id, subject
            ON CONFLICT DO NOTHING
            """
        )
    )
    await conn.execute(
        text(
            "INSERT INTO rating (chat_id, subject, mu, sigma, games, losses, updated_at) "
            "SELECT 0, 'c:' || l, 20 + n * 4, 1.5, 1000, 300, now() FROM unnest(ARRAY['easy', 'normal', 'hard']) "
            "WITH ORDINALITY AS u(l, n) ON CONFLICT DO NOTHING"
        )
    )


def due_of(active: int) -> int:
    return min(DUE, active // 2)


async def backlog(engine: AsyncEngine, first_active: int, games: int) -> None:
    async with engine.begin() as conn:
        await conn.execute(
            text(
                "INSERT INTO outbox (game_id, kind, payload, created_at, attempts) "
                f"SELECT {first_active} + g, 'table', '{{}}'::jsonb, now(), 0 "
                f"FROM generate_series(0, {games - 1}) AS g, generate_series(1, {BACKLOG_PER_GAME}) AS n"
            )
        )


async def vacuum(engine: AsyncEngine) -> None:
    async with engine.connect() as conn:
        await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.execute(text("VACUUM ANALYZE"))


async def table_bytes(engine: AsyncEngine) -> int:
    async with engine.connect() as conn:
        return int((await conn.execute(text("SELECT pg_database_size(current_database())"))).scalar_one())


# ----------------------------------------------------------------------------- measuring


async def median_ms(op: Callable[[], Awaitable[object]], repeat: int) -> float:
    await op()  # warm
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        await op()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 3)


async def presses(service: GameService, first: int, count: int) -> float:
    """The median of one press on each of ``count`` active games (each's first press from the template's state)."""
    times = []
    for game_id in range(first, first + count):
        view = await service.game_view(game_id)
        assert view.state is not None
        seat = view.seat(view.state.seats_to_act()[0])
        move = make_player("heuristic", game_id).choose(view.state.view(seat.number))
        start = time.perf_counter()
        await service.play(game_id, seat.player_id or 0, move, seat.keyboard_version)
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 3)


async def measure(url: str, finished: int, active: int, repeat: int, done: list[int], live: int) -> dict[str, Any]:
    started = time.perf_counter()
    url = await recreate(url, TEMPLATE)
    engine = make_engine(url)
    service = GameService(make_sessionmaker(engine))
    await replicate(engine, finished, active, done, live)
    await vacuum(engine)
    built = time.perf_counter() - started
    first_active = 100000 + finished
    sessions = make_sessionmaker(engine)
    now = utcnow()
    regular_chat = -1000000 - REGULAR_CHATS  # an ordinary chat: ten finished games and one in play

    async def due() -> object:
        async with sessions() as session:
            return await repo.due_game_versions(session=session, now=now, limit=100)

    async def claim() -> object:
        async with sessions() as session, session.begin():
            rows = await repo.claim_outbox(session=session, now=utcnow(), lease=timedelta(seconds=30))
            await session.rollback()
            return rows

    async def group_stats() -> object:
        return await service.chat_ratings(regular_chat), await service.games_per_preset(regular_chat)

    async def private_stats() -> object:
        mine = await service.player_ratings(REGULAR)
        board = await service.chat_ratings(OVERALL)
        return mine, board, await service.player_record(REGULAR)

    async def known() -> object:
        async with sessions() as session:
            since = utcnow() - timedelta(days=1)
            return await repo.private_message_ids_of(session=session, player_ids=[REGULAR], since=since)

    row: dict[str, Any] = {"finished": finished, "active": active}
    row["due_ms"] = await median_ms(due, repeat)
    row["claim_ms"] = await median_ms(claim, repeat)
    await backlog(engine, first_active, min(BACKLOG_GAMES, active))
    async with engine.connect() as conn:
        await conn.execute(text("ANALYZE outbox"))
    row["claim_backlog_ms"] = await median_ms(claim, repeat)
    row["press_ms"] = await presses(service, first_active + due_of(active), min(repeat, active - due_of(active)))
    row["group_stats_ms"] = await median_ms(group_stats, repeat)
    row["private_stats_ms"] = await median_ms(private_stats, repeat)
    row["leaderboard_ms"] = await median_ms(lambda: service.chat_ratings(OVERALL), repeat)
    row["vitals_ms"] = await median_ms(service.vitals, repeat)
    row["known_messages_ms"] = await median_ms(known, repeat)
    record = await service.player_record(REGULAR)
    row["regular_games"] = record.games if record else 0
    row["database_mb"] = round(await table_bytes(engine) / 1e6)
    row["build_s"] = round(built, 1)
    await engine.dispose()
    return row


TIMED = ("due_ms", "claim_ms", "claim_backlog_ms", "press_ms", "group_stats_ms", "private_stats_ms",
         "leaderboard_ms", "vitals_ms", "known_messages_ms")  # fmt: skip


def with_ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    base = rows[0]
    for row in rows:
        for key in TIMED:
            row[key.removesuffix("_ms") + "_x"] = round(row[key] / base[key], 2) if base[key] else None
    return rows


def print_rows(rows: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        for row in rows:
            print(json.dumps(row), flush=True)
        return
    print(f"{'':>22}" + "".join(f"{row['finished']:>12,}" for row in rows))
    print(f"{'active games':>22}" + "".join(f"{row['active']:>12,}" for row in rows))
    for key in TIMED:
        cells = "".join(f"{row[key]:>8.2f}{'(' + format(row[key.removesuffix('_ms') + '_x'], '.1f') + ')':>4}"
                        for row in rows)  # fmt: skip
        print(f"{key:>22}" + cells)
    for key in ("regular_games", "database_mb", "build_s"):
        print(f"{key:>22}" + "".join(f"{row[key]:>12}" for row in rows))
    print("(median ms, and in brackets the ratio to the smallest size)")


# ----------------------------------------------------------------------------- overload


async def overload(url: str, games: int, per_second: float, seconds: float) -> dict[str, Any]:
    """``games`` group games of two players, each with its start's notices to deliver, through the
    outbox and the real sender against the fake Bot API, the global rate ``per_second``."""
    from telegram.ext import ExtBot

    from shithead_bot.config import Settings
    from shithead_bot.telegram.wiring import bot_context, send_rate
    from testkit.fakebot import FakeTelegram

    url = await recreate(url)
    await asyncio.to_thread(upgrade, url)
    engine = make_engine(url, pool_size=10)
    sessions = make_sessionmaker(engine)
    service = GameService(sessions)
    sends: list[tuple[float, int]] = []
    async with FakeTelegram() as fake:
        ids = []
        for n in range(games):
            a, b = 10 + 2 * n, 11 + 2 * n
            for user in (a, b):
                fake.add_user(user, f"P{user}")
                fake.start_bot(user)
            fake.add_group(-1 - n, f"G{n}", [a, b])
            ids.append(await new_game(service, -1 - n))
        chat_game = {-1 - n: game for n, game in enumerate(ids)}
        seat_game = {user: game for n, game in enumerate(ids) for user in (10 + 2 * n, 11 + 2 * n)}
        original = fake._record

        def record(call: Any) -> None:
            original(call)
            chat = call.params.get("chat_id")
            if call.method.startswith(("send", "edit")) and chat is not None:
                game = chat_game.get(int(chat)) or seat_game.get(int(chat))
                if game is not None:
                    sends.append((time.perf_counter(), game))

        fake._record = record  # type: ignore[method-assign]
        settings = Settings(send_per_second=per_second, table_edit_seconds=0)  # the other limits: the bot's own
        limiter = send_rate(settings)
        bot: ExtBot[Any] = ExtBot(
            fake.token, base_url=fake.base_url, base_file_url=fake.base_file_url, rate_limiter=limiter
        )
        async with bot:
            ctx = bot_context(service, bot, settings)
            delivery, outbox = ctx.delivery, ctx.outbox
            start = time.perf_counter()
            deadline = start + seconds
            while time.perf_counter() < deadline:
                try:
                    left = max(0.1, deadline - time.perf_counter())
                    await asyncio.wait_for(outbox.deliver(delivery, limit=10_000), timeout=left)
                except TimeoutError:
                    break
                if await service_pending(sessions) == 0:
                    break
            elapsed = time.perf_counter() - start
    await engine.dispose()
    per_game = dict.fromkeys(ids, 0)
    first: dict[int, float] = {}
    for at, game in sends:
        per_game[game] += 1
        first.setdefault(game, at - start)
    counts = list(per_game.values())
    jain = sum(counts) ** 2 / (len(counts) * sum(c * c for c in counts)) if any(counts) else 0.0
    waited = max((first.get(game, elapsed) for game in ids), default=0.0)
    return {
        "games": games,
        "global_per_second": per_second,
        "seconds": round(elapsed, 1),
        "sends": len(sends),
        "sends_per_s": round(len(sends) / elapsed, 2),
        "fairness": round(jain, 3),
        "longest_wait_s": round(waited, 1),
        "games_never_sent": sum(1 for game in ids if game not in first),
    }


async def service_pending(sessions: Any) -> int:
    async with sessions() as session:
        return await repo.pending_outbox_count(session=session)


# ----------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", help="finished games per size (active: a tenth)")
    parser.add_argument("--smoke", action="store_true", help="two tiny sizes (seconds)")
    parser.add_argument("--repeat", type=int, default=21, help="timings per operation (the median is shown)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--overload", action="store_true", help="send rate, fairness and waits, overloaded")
    parser.add_argument("--games", type=int, default=40, help="--overload: games delivering at once")
    parser.add_argument("--seconds", type=float, default=30.0, help="--overload: how long to run")
    args = parser.parse_args()
    try:
        if args.overload:
            games, seconds = (4, 5.0) if args.smoke else (args.games, args.seconds)
            row = asyncio.run(overload(PG_URL, games, 2.0, seconds))
            print(json.dumps(row) if args.json else "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
            return
        sizes = SMOKE if args.smoke else tuple((f, max(f // 10, 10)) for f in args.sizes) if args.sizes else SIZES
        repeat = 3 if args.smoke else args.repeat
        rows = []
        done, live = asyncio.run(played(PG_URL))
        for finished, active in sizes:
            rows.append(asyncio.run(measure(PG_URL, finished, active, repeat, done, live)))
            print(f"(built and measured {finished:,} finished games)", file=sys.stderr, flush=True)
        print_rows(with_ratios(rows), args.json)
    finally:
        asyncio.run(drop(PG_URL, DATABASE, TEMPLATE))


if __name__ == "__main__":
    main()
