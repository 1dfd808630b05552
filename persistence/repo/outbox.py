"""The outbox, updates applied once, and the fleet's send rate."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, exists, func, insert, literal, or_, select, text, update
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import col

from persistence.models import (
    ForeignMessage,
    Outbox,
    ProcessedUpdate,
    SendBucket,
)
from persistence.repo.common import _insert, dialect_of, insert_if_missing

# ----------------------------------------------------------------------------- the outbox

# The outbox again, for "another of this game's notices is held": made once. An alias made per
# claim cost more than the rest of the claim's statement building (0.4 ms: it copies every column).
HELD = aliased(Outbox, name="held")


async def insert_outbox(*, session: AsyncSession, rows: list[dict[str, Any]]) -> list[int]:
    """Add notices in one statement; their ids."""
    if not rows:
        return []
    found = await session.execute(insert(Outbox).returning(col(Outbox.id)), rows)
    return [notice_id or 0 for notice_id in found.scalars()]


async def claim_outbox(
    *,
    session: AsyncSession,
    now: datetime,
    lease: timedelta,
    limit: int = 200,
    game_id: int | None = None,
    older_than: timedelta | None = None,
) -> list[Outbox]:
    """Claim undelivered notices for a while (``lease``), game by game in order: a game whose notices
    another worker holds is left alone, so each game's notices go out in order, once."""
    busy = exists().where(col(HELD.game_id) == col(Outbox.game_id), *_held(HELD, now))
    query = (
        select(Outbox)
        .with_for_update(skip_locked=True)  # PostgreSQL: two workers never claim the same rows
        .where(col(Outbox.delivered_at).is_(None))
        .where(or_(col(Outbox.claimed_until).is_(None), col(Outbox.claimed_until) <= now))
        .where(or_(col(Outbox.not_before).is_(None), col(Outbox.not_before) <= now))
        .where(~busy)
        .order_by(col(Outbox.id))
        .limit(limit)
    )
    if game_id is not None:
        query = query.where(col(Outbox.game_id) == game_id)
    if older_than is not None:
        query = query.where(col(Outbox.created_at) <= now - older_than)
    rows = list((await session.execute(query)).scalars())
    if dialect_of(session) == "postgresql":
        rows = await _games_held_alone(session, rows, now)
    if rows:  # one statement for all of them; the rows in hand are told without another flush
        ids = [row.id for row in rows]
        claimed = {"claimed_until": now + lease, "attempts": col(Outbox.attempts) + 1, "last_error": None}
        mark = update(Outbox).where(col(Outbox.id).in_(ids)).values(**claimed)
        await session.execute(mark.execution_options(synchronize_session=False))
        for row in rows:
            set_committed_value(row, "claimed_until", now + lease)
            set_committed_value(row, "attempts", row.attempts + 1)
            set_committed_value(row, "last_error", None)  # held, not waiting after a failure (retry_failed_now)
    return rows


CLAIM_LOCK = 0x5348  # the advisory locks' first key: a game's outbox claim (the second is the game id)


def _held(table: Any, now: datetime) -> tuple[Any, ...]:
    """The pending notices a worker's claim holds now (of ``table``: the outbox, or an alias of it)."""
    return col(table.delivered_at).is_(None), col(table.claimed_until) > now


async def _games_held_alone(session: AsyncSession, rows: list[Outbox], now: datetime) -> list[Outbox]:
    """PostgreSQL: only the rows of games this transaction holds alone. Another worker's claim that is
    not committed yet is invisible to the query's "busy" test, and its rows are skipped as locked,
    not seen: the game's newer notices would be claimed beside it. So a claim takes the game's
    advisory lock (until its transaction ends) — a game whose lock another claim holds is left
    alone — and then asks "busy" again, in a statement that sees every claim committed so far."""
    games = sorted({row.game_id for row in rows if row.game_id is not None})
    locked = {g for g in games if await session.scalar(select(func.pg_try_advisory_xact_lock(CLAIM_LOCK, g)))}
    busy = set()
    if locked:
        held = select(col(Outbox.game_id)).where(col(Outbox.game_id).in_(locked), *_held(Outbox, now))
        busy = set(await session.scalars(held))
    return [row for row in rows if row.game_id is None or (row.game_id in locked and row.game_id not in busy)]


async def hold_claim(*, session: AsyncSession, ids: Sequence[int], until: datetime) -> bool:
    """Whether the notices ``ids`` are still claimed until ``until`` (the caller's claim's end): no
    other worker claimed them since its lease ran out. They are locked for the rest of the caller's
    transaction (an update, so SQLite takes its write lock here too), so no claim comes between.
    (Marked delivered meanwhile by the worker whose claim this one took over, they are still held.)"""
    if not ids:
        return True
    held = update(Outbox).where(col(Outbox.id).in_(ids), col(Outbox.claimed_until) == until).values(claimed_until=until)
    result: Any = await session.execute(held.execution_options(synchronize_session=False))
    return int(result.rowcount) == len(set(ids))


async def mark_delivered(*, session: AsyncSession, ids: Sequence[int], now: datetime) -> None:
    if ids:
        await session.execute(update(Outbox).where(col(Outbox.id).in_(ids)).values(delivered_at=now, last_error=None))


async def defer_outbox(*, session: AsyncSession, ids: Sequence[int], until: datetime, uncount: bool = False) -> None:
    """Put notices off until ``until`` without counting it as a failure (e.g. a throttled table edit;
    ``uncount``: the claim that led here is not counted as an attempt either)."""
    if ids:
        values: dict[str, Any] = {"not_before": until, "claimed_until": None}
        if uncount:
            values["attempts"] = (
                func.max(col(Outbox.attempts) - 1, 0)
                if dialect_of(session) == "sqlite"
                else func.greatest(col(Outbox.attempts) - 1, 0)
            )
        await session.execute(update(Outbox).where(col(Outbox.id).in_(ids)).values(**values))


async def supersede_outbox(
    *, session: AsyncSession, game_id: int, kinds: Sequence[str], before_id: int, now: datetime
) -> None:
    """Older pending notices of kinds rendered from the current state (table, lobby) need no sending
    once a newer one went out."""
    query = (
        update(Outbox)
        .where(col(Outbox.game_id) == game_id, col(Outbox.kind).in_(kinds), col(Outbox.id) < before_id)
        .where(col(Outbox.delivered_at).is_(None))
        .values(delivered_at=now)
    )
    await session.execute(query)


async def release_outbox(
    *,
    session: AsyncSession,
    ids: Sequence[int],
    error: str,
    retry_at: datetime,
    give_up_after: int | None,
    give_up_before: datetime,
    now: datetime,
) -> None:
    """Give notices back after a failed delivery; they are tried again from ``retry_at``, unless
    they were tried ``give_up_after`` times already (None: no limit) or were written before
    ``give_up_before``: those are closed, with the error kept."""
    if not ids:
        return
    await session.execute(
        update(Outbox).where(col(Outbox.id).in_(ids)).values(claimed_until=retry_at, last_error=error[:500])
    )
    too_old = col(Outbox.created_at) <= give_up_before
    spent = too_old if give_up_after is None else or_(too_old, col(Outbox.attempts) >= give_up_after)
    gave_up = update(Outbox).where(col(Outbox.id).in_(ids), spent)
    await session.execute(gave_up.values(delivered_at=now, last_error=f"gave up: {error}"[:500]))


async def retry_failed_now(*, session: AsyncSession, now: datetime) -> int:
    """Notices waiting out the pause after a failed try may be claimed now. (A claim clears
    ``last_error``, so a notice another worker holds right now is not touched.)"""
    query = (
        update(Outbox)
        .where(col(Outbox.delivered_at).is_(None), col(Outbox.last_error).is_not(None))
        .where(col(Outbox.claimed_until) > now)
        .values(claimed_until=now)
    )
    result: Any = await session.execute(query)
    return int(result.rowcount or 0)


async def next_outbox_due(*, session: AsyncSession, now: datetime, limit: int = 500) -> datetime | None:
    """When the soonest undelivered notice may be claimed (put off, held by a lease, or now)."""
    query = (
        select(col(Outbox.claimed_until), col(Outbox.not_before))
        .where(col(Outbox.delivered_at).is_(None))
        .order_by(col(Outbox.id))
        .limit(limit)
    )
    rows = (await session.execute(query)).all()
    return min((max(now, claimed or now, later or now) for claimed, later in rows), default=None)


async def purge_outbox(*, session: AsyncSession, before: datetime, limit: int) -> int:
    """Delete up to ``limit`` notices delivered before ``before``, the oldest first (read in the
    primary key's order: the old rows come first, the pending ones are never touched); returns how
    many. The caller repeats it, a transaction a batch, until fewer come back."""
    oldest = select(col(Outbox.id)).where(col(Outbox.delivered_at) < before).order_by(col(Outbox.id)).limit(limit)
    ids = list((await session.execute(oldest)).scalars())
    if ids:  # by their keys: one index lookup each, whatever the size of the table
        await session.execute(delete(Outbox).where(col(Outbox.id).in_(ids)))
    return len(ids)


async def pending_outbox_count(*, session: AsyncSession) -> int:
    query = select(func.count()).select_from(Outbox).where(col(Outbox.delivered_at).is_(None))
    return int((await session.execute(query)).scalar_one())


# ----------------------------------------------------------------------------- updates applied once


async def take_update(*, session: AsyncSession, update_id: int, now: datetime) -> bool:
    """Claim a Telegram update id: True the first time, False for a redelivery (on any worker)."""
    values = {"update_id": update_id, "taken_at": now}
    return await insert_if_missing(session=session, model=ProcessedUpdate, key="update_id", values=values)


async def purge_updates(*, session: AsyncSession, before: datetime) -> int:
    """Forget update ids taken before ``before`` (Telegram redelivers an update for a day at most)."""
    result: Any = await session.execute(delete(ProcessedUpdate).where(col(ProcessedUpdate.taken_at) < before))
    return int(result.rowcount or 0)


# ----------------------------------------------------------------------------- messages that are no game's


async def note_foreign_messages(
    *, session: AsyncSession, player_id: int, message_ids: Sequence[int], now: datetime
) -> None:
    """Messages in the player's private chat that belong to no game (noted once; again is fine)."""
    if message_ids:
        rows = [{"player_id": player_id, "message_id": m, "noted_at": now} for m in sorted(set(message_ids))]
        query = _insert(session, ForeignMessage).values(rows).on_conflict_do_nothing()
        await session.execute(query)


async def foreign_message_ids_of(
    *, session: AsyncSession, player_ids: Sequence[int], above: int = 0
) -> dict[int, set[int]]:
    """The noted messages of these players' private chats (with an id above ``above``)."""
    found: dict[int, set[int]] = {player_id: set() for player_id in player_ids}
    if player_ids:
        query = select(col(ForeignMessage.player_id), col(ForeignMessage.message_id)).where(
            col(ForeignMessage.player_id).in_(player_ids), col(ForeignMessage.message_id) > above
        )
        for player_id, message_id in (await session.execute(query)).all():
            found[int(player_id)].add(int(message_id))
    return found


async def purge_foreign_messages(*, session: AsyncSession, before: datetime) -> int:
    """Forget messages noted before ``before`` (a crash's clean-up looks only at the newest)."""
    result: Any = await session.execute(delete(ForeignMessage).where(col(ForeignMessage.noted_at) < before))
    return int(result.rowcount or 0)


# ----------------------------------------------------------------------------- the fleet's send rate


# One statement, its own transaction (run it in autocommit): the buckets' rows are locked in key
# order while it runs and no longer. Each bucket is refilled to now; when every one of them pays
# this send within :max_wait seconds, one token is taken from each (a bucket not stored yet is full,
# and stored here); else nothing is taken. Returns the wait either way.
RESERVE_SEND = text(
    """
    WITH wanted AS (
        SELECT * FROM unnest(
            CAST(:keys AS text[]), CAST(:capacities AS float8[]), CAST(:rates AS float8[]), CAST(:amounts AS float8[])
        ) AS w(key, capacity, per_second, amount)
    ), clock AS (
        SELECT COALESCE(CAST(:now AS timestamptz), clock_timestamp()) AS now
    ), stored AS (
        SELECT key, tokens, updated_at FROM send_bucket
        WHERE key = ANY(CAST(:keys AS text[])) ORDER BY key FOR UPDATE
    ), levels AS (
        SELECT w.key, w.per_second, w.amount, s.key IS NOT NULL AS stored, LEAST(w.capacity, COALESCE(
            s.tokens + CAST(EXTRACT(EPOCH FROM clock.now - s.updated_at) AS float8) * w.per_second, w.capacity
        )) AS level
        FROM wanted w CROSS JOIN clock LEFT JOIN stored s ON s.key = w.key
    ), verdict AS (
        SELECT MAX(GREATEST(0, (amount - level) / per_second)) AS wait FROM levels
    ), taken AS (
        UPDATE send_bucket b SET tokens = l.level - l.amount, updated_at = clock.now
        FROM levels l, verdict v, clock
        WHERE b.key = l.key AND l.stored AND v.wait <= CAST(:max_wait AS float8)
        RETURNING b.key
    ), added AS (
        INSERT INTO send_bucket (key, tokens, updated_at)
        SELECT l.key, l.level - l.amount, clock.now FROM levels l, verdict v, clock
        WHERE NOT l.stored AND v.wait <= CAST(:max_wait AS float8)
        ON CONFLICT (key) DO UPDATE  -- another worker's first take, just now: from what it left
        SET tokens = send_bucket.tokens - (SELECT w.amount FROM wanted w WHERE w.key = EXCLUDED.key)
        RETURNING send_bucket.key
    )
    SELECT wait, wait <= CAST(:max_wait AS float8) AS taken FROM verdict
    """
)


async def reserve_send(
    *,
    session: AsyncSession,
    buckets: Sequence[tuple[str, float, float]],
    max_wait: float,
    now: datetime | None = None,
    amounts: Sequence[float] | None = None,
) -> tuple[float, bool]:
    """Reserve a send in shared buckets, each ``(key, capacity, per_second)`` (PostgreSQL; the
    database's clock for every worker, unless ``now`` is given): the seconds to wait before sending —
    0 while every bucket has a token, else until the last debt is paid — and whether the tokens were
    taken: a send that would wait longer than ``max_wait`` takes none (the caller puts it off and
    asks again), so retries add no debt and reservations queue in order up to ``max_wait`` ahead.
    ``amounts``: tokens to take from each bucket (1 each by default: a plan's sends reserved at once).
    One statement: run it outside a transaction (autocommit) so that no lock outlives it."""
    params = {
        "keys": [key for key, _, _ in buckets],
        "capacities": [float(capacity) for _, capacity, _ in buckets],
        "rates": [float(rate) for _, _, rate in buckets],
        "amounts": [float(a) for a in amounts] if amounts is not None else [1.0] * len(buckets),
        "max_wait": float(max_wait),
        "now": now,
    }
    wait, taken = (await session.execute(RESERVE_SEND, params)).one()
    return float(wait), bool(taken)


async def hold_sends(
    *, session: AsyncSession, key: str, seconds: float, per_second: float, now: datetime | None = None
) -> None:
    """Telegram said "retry after N s" (429): nobody in the fleet sends on this bucket until then.
    One statement, like :func:`reserve_send`."""
    at = func.clock_timestamp() if now is None else literal(now)
    bucket = SendBucket.__table__  # type: ignore[attr-defined]
    debt = -seconds * per_second
    stmt = postgresql.insert(bucket).values(key=key, tokens=debt, updated_at=at)
    elapsed = func.extract("epoch", at - bucket.c.updated_at)
    stmt = stmt.on_conflict_do_update(
        index_elements=["key"],
        set_={"tokens": func.least(literal(debt), bucket.c.tokens + elapsed * per_second), "updated_at": at},
    )
    await session.execute(stmt)


async def purge_send_buckets(*, session: AsyncSession, before: datetime) -> None:
    """Buckets untouched since ``before`` are full again: their rows can go."""
    await session.execute(delete(SendBucket).where(col(SendBucket.updated_at) < before))
