"""With 10,000 finished and 1,000 active games stored, the queries a move makes use their indexes.

Every statement the service runs while opening a game and applying a move is captured, then
explained by the database itself (``EXPLAIN QUERY PLAN`` on SQLite, ``EXPLAIN`` on PostgreSQL after
ANALYZE): none may scan a whole table of games, seats, moves or notices. (Timings are in
``bench/service.py``; tests assert behaviour only.)
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import event, insert, inspect, text, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from persistence import repo
from persistence.db import make_engine, make_sessionmaker
from persistence.models import Chat, Game, Move, Outbox, Player, Rating, Seat, utcnow
from testkit.clock import FakeClock
from tests.service.helpers import lobby_with, make_service, user

FINISHED, ACTIVE = 10_000, 1_000
BIG_TABLES = ("game", "seat", "move", "outbox")
# Partial indexes hold only due games / pending notices: reading one whole is bounded by what is due.
PARTIAL = ("ix_game_due", "ix_outbox_undelivered")


async def fill(sessions: async_sessionmaker[AsyncSession]) -> None:
    """Thousands of games, their seats, moves and delivered notices, inserted in bulk."""
    now = utcnow()
    chats = [{"id": -10_000 - i, "title": f"chat {i}", "kind": "group"} for i in range(FINISHED + ACTIVE)]
    players = [{"id": 10_000 + i, "first_name": f"P{i}", "can_message": True} for i in range(500)]
    games, seats, moves, notices = [], [], [], []
    for i in range(FINISHED + ACTIVE):
        active = i >= FINISHED
        games.append(
            {
                "id": 10_000 + i,
                "chat_id": -10_000 - i,
                "kind": "shithead",
                "status": "playing" if active else "finished",
                "rules": {"name": "standard"},
                "version": 5,
                "move_count": 3,
                "due_at": now + timedelta(hours=i % 48) if active else None,
            }
        )
        for n in range(3):
            player = 10_000 + (i + n) % 500
            ended = None if active else now - timedelta(days=2)
            seats.append({"game_id": 10_000 + i, "number": n, "player_id": player, "name": "P", "ended_at": ended})
        moves.extend({"game_id": 10_000 + i, "seq": s, "seat": s % 3, "move": "r", "events": []} for s in range(1, 4))
        notices.append({"game_id": 10_000 + i, "kind": "table", "payload": {}, "delivered_at": now})
    async with sessions() as session, session.begin():
        for model, rows in (
            (Chat, chats),
            (Player, players),
            (Game, games),
            (Seat, seats),
            (Move, moves),
            (Outbox, notices),
        ):
            for start in range(0, len(rows), 5000):
                await session.execute(insert(model), rows[start : start + 5000])


def capture(engine: AsyncEngine) -> list[tuple[str, Any]]:
    statements: list[tuple[str, Any]] = []

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool) -> None:
        if statement.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE")):
            statements.append((statement, parameters[0] if _many else parameters))

    return statements


async def plans(engine: AsyncEngine, statements: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    sqlite = engine.dialect.name == "sqlite"
    found = []
    async with engine.connect() as conn:
        if not sqlite:
            await conn.execute(text("ANALYZE"))
            raw = (await conn.get_raw_connection()).driver_connection
        for statement, parameters in statements:
            if sqlite:
                rows = (await conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)).all()
            else:  # asyncpg itself: SQLAlchemy expects no rows back from an UPDATE
                rows = await raw.fetch("EXPLAIN " + statement, *parameters)  # type: ignore[union-attr]
            found.append((statement, "\n".join(str(r[-1]) for r in rows)))
    return found


def full_scans(plan: str, sqlite: bool) -> list[str]:
    lines = [line for line in plan.splitlines() if not any(f"USING INDEX {p}" in line for p in PARTIAL)]
    if sqlite:  # "SCAN game" reads all of it (even "USING INDEX"); "SEARCH game USING INDEX …" seeks
        return [t for t in BIG_TABLES if any(line == f"SCAN {t}" or line.startswith(f"SCAN {t} ") for line in lines)]
    return [t for t in BIG_TABLES if f"Seq Scan on {t} " in plan or plan.endswith(f"Seq Scan on {t}")]


async def test_move_queries_use_indexes(db_url: str, clock: FakeClock) -> None:
    engine = make_engine(db_url)
    sessions = make_sessionmaker(engine)
    await fill(sessions)
    service = make_service(sessions, clock)
    statements = capture(engine)
    game_id = await lobby_with(service, humans=2, chat_id=-5)
    await service.start(game_id, user(0).id)
    ctx = await service.game_view(game_id)
    await service.play(game_id, user(0).id, "r", ctx.seat(0).keyboard_version)
    async with sessions() as session:
        await repo.due_game_versions(session=session, now=clock.now, limit=10)
        await repo.games_of_player(session=session, player_id=user(0).id)
        await repo.claim_outbox(session=session, now=clock.now, lease=timedelta(seconds=5))
        await session.rollback()
    explained = await plans(engine, list(statements))
    sqlite = engine.dialect.name == "sqlite"
    scans = {statement: full_scans(plan, sqlite) for statement, plan in explained if full_scans(plan, sqlite)}
    await engine.dispose()
    assert len(explained) > 10
    plans_of = dict(explained)
    assert scans == {}, "\n\n".join(f"{s}\n-> {t}\n{plans_of[s]}" for s, t in scans.items())


async def fill_ratings_and_backlog(sessions: async_sessionmaker[AsyncSession]) -> None:
    """Every player rated overall and in a few chats; 200 notices pending in 100 active games."""
    now = utcnow()
    ratings = [
        {"chat_id": chat, "subject": f"p:{10_000 + p}", "mu": 20 + p % 17, "sigma": 1 + p % 7, "updated_at": now}
        for p in range(500)
        for chat in (0, -10_000 - p, -10_000 - p - 1)
    ]
    pending = [{"game_id": 10_000 + FINISHED + g, "kind": "table", "payload": {}} for g in range(100) for _ in "ab"]
    async with sessions() as session, session.begin():
        await session.execute(insert(Rating), ratings)
        await session.execute(update(Outbox).values(delivered_at=now - timedelta(days=2)))  # to be pruned
        await session.execute(insert(Outbox), pending)


async def test_history_queries_use_indexes(db_url: str, clock: FakeClock) -> None:
    """The leaderboard, a player's ratings and record, the messages a retried plan leaves alone, the
    vitals of the open games, the outbox's claim and next due with a backlog: by index, on SQLite and
    on PostgreSQL (where the pruning reads the outbox in its key's order, and the leaderboard the
    ordinal's index)."""
    engine = make_engine(db_url)
    sessions = make_sessionmaker(engine)
    await fill(sessions)
    await fill_ratings_and_backlog(sessions)
    statements = capture(engine)
    player = 10_007
    async with sessions() as session:
        await repo.top_ratings(session=session, chat_id=0)
        await repo.ratings_of_subject(session=session, subject=f"p:{player}")
        await repo.player_stats(session=session, player_id=player)
        await repo.private_message_ids_of(session=session, player_ids=[player], since=clock.now - timedelta(days=1))
        await repo.private_message_ids(session=session, player_id=player)
        await repo.games_of_player(session=session, player_id=player)
        await repo.vitals(session=session, now=clock.now, ended=False)
        await repo.next_outbox_due(session=session, now=clock.now)
        await repo.claim_outbox(session=session, now=clock.now, lease=timedelta(seconds=5))
        await session.rollback()
    sqlite = engine.dialect.name == "sqlite"
    if not sqlite:
        async with sessions() as session:
            await repo.purge_outbox(session=session, before=utcnow() - timedelta(days=1), limit=100)
            await session.rollback()
    explained = await plans(engine, list(statements))
    await engine.dispose()
    tables = (*BIG_TABLES, "rating")
    scans = {}
    for statement, plan in explained:
        found = [t for t in tables if t in full_scans_of(plan, sqlite, tables)]
        if found:
            scans[statement] = (found, plan)
    assert scans == {}, "\n\n".join(f"{s}\n-> {t}\n{p}" for s, (t, p) in scans.items())
    if not sqlite:
        plan_of = {s.split(" FROM ")[0][-60:] + s.split(" WHERE ")[0][-30:]: p for s, p in explained}
        joined = "\n".join(plan_of.values())
        for index in ("ix_rating_ordinal", "ix_rating_subject", "ix_seat_player_ended", "ix_game_open_status"):
            assert index in joined, index
        pruning = [
            p for s, p in explained if "outbox.delivered_at <" in s or s.lstrip().startswith("DELETE FROM outbox")
        ]
        assert len(pruning) == 2
        assert all("outbox_pkey" in p for p in pruning), pruning


def full_scans_of(plan: str, sqlite: bool, tables: tuple[str, ...]) -> list[str]:
    lines = [line for line in plan.splitlines() if not any(f"USING INDEX {p}" in line for p in PARTIAL)]
    if sqlite:
        return [t for t in tables if any(line == f"SCAN {t}" or line.startswith(f"SCAN {t} ") for line in lines)]
    return [t for t in tables if f"Seq Scan on {t} " in plan or plan.endswith(f"Seq Scan on {t}")]


async def test_send_bucket_updates_touch_no_index(db_url: str) -> None:
    """A bucket is updated at every send: only its key is indexed (so PostgreSQL's updates are HOT),
    and on PostgreSQL its pages keep room for them (fillfactor 50)."""
    engine = make_engine(db_url)
    async with engine.connect() as conn:
        indexes = await conn.run_sync(lambda c: inspect(c).get_indexes("send_bucket"))
        options = None
        if engine.dialect.name == "postgresql":
            query = text("SELECT reloptions FROM pg_class WHERE relname = 'send_bucket'")
            options = (await conn.execute(query)).scalar_one()
    await engine.dispose()
    assert indexes == []  # the primary key's is not listed
    if engine.dialect.name == "postgresql":
        assert options == ["fillfactor=50"]
