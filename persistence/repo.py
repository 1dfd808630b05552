"""Repository functions: keyword-only, taking the session; they may flush but never commit.

The caller (the service) owns the transaction, so a move updates the game row, the move log and
the outbox together or not at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import case, delete, exists, func, insert, literal, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased
from sqlmodel import SQLModel, col

from persistence.models import (
    OPEN_STATUSES,
    Chat,
    Game,
    GameStatus,
    Move,
    Outbox,
    Player,
    ProcessedUpdate,
    Rating,
    RatingChange,
    Seat,
    SendBucket,
    utcnow,
)


def dialect_of(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


def _insert(session: AsyncSession, model: type[SQLModel]) -> Any:
    """An INSERT that can say ON CONFLICT, for the session's database (SQLite or PostgreSQL)."""
    return (postgresql.insert if dialect_of(session) == "postgresql" else sqlite.insert)(model)


async def insert_if_missing(*, session: AsyncSession, model: type[SQLModel], key: str, values: dict[str, Any]) -> bool:
    """``INSERT … ON CONFLICT (key) DO NOTHING``: True if this call created the row. Two writers
    creating the same row at once both succeed; exactly one of them creates it."""
    query = _insert(session, model).values(**values).on_conflict_do_nothing(index_elements=[key])
    result: Any = await session.execute(query)
    return bool(result.rowcount)


# ----------------------------------------------------------------------------- chats and players


async def get_chat(*, session: AsyncSession, chat_id: int) -> Chat | None:
    return await session.get(Chat, chat_id)


async def ensure_chat(
    *, session: AsyncSession, chat_id: int, kind: str = "group", title: str = "", turn_seconds: int | None = 86400
) -> Chat:
    """The chat row, created on first sight (with ``turn_seconds``) — an upsert, so two first contacts
    at once both get it; the title is kept up to date."""
    chat = await session.get(Chat, chat_id)
    if chat is None:
        now = utcnow()
        values = {**Chat(id=chat_id, kind=kind, title=title, turn_seconds=turn_seconds).model_dump()}
        values.update(created_at=now, updated_at=now)
        await insert_if_missing(session=session, model=Chat, key="id", values=values)
        chat = await session.get(Chat, chat_id)
        assert chat is not None
    if title and (chat.title != title or chat.kind != kind):
        chat.title, chat.kind, chat.updated_at = title, kind, utcnow()
    return chat


async def get_player(*, session: AsyncSession, player_id: int) -> Player | None:
    return await session.get(Player, player_id)


async def ensure_player(
    *,
    session: AsyncSession,
    player_id: int,
    first_name: str,
    username: str | None = None,
    language: str | None = None,
) -> Player:
    """The player row, created on first sight (an upsert, like :func:`ensure_chat`); name, username
    and language kept up to date."""
    player = await session.get(Player, player_id)
    if player is None:
        values = Player(id=player_id, first_name=first_name, username=username, language=language).model_dump()
        await insert_if_missing(session=session, model=Player, key="id", values=values)
        player = await session.get(Player, player_id)
        assert player is not None
    if (player.first_name, player.username, player.language) != (first_name, username, language or player.language):
        player.first_name, player.username = first_name, username
        player.language = language or player.language
        player.updated_at = utcnow()
    return player


# ----------------------------------------------------------------------------- games and seats


async def get_game(*, session: AsyncSession, game_id: int, lock: bool = False) -> Game | None:
    """A game; with ``lock`` its row is locked until the transaction ends (FOR UPDATE where supported)."""
    query = select(Game).where(col(Game.id) == game_id)
    if lock:
        query = query.with_for_update()
    return (await session.execute(query)).scalar_one_or_none()


async def get_game_and_chat(
    *, session: AsyncSession, game_id: int, lock: bool = False, skip_locked: bool = False
) -> tuple[Game, Chat] | None:
    """A game and its chat in one query; with ``lock``, the game row is locked (FOR UPDATE OF game);
    with ``skip_locked`` too, a row another transaction holds is not waited for: None is returned."""
    query = select(Game, Chat).join(Chat, col(Chat.id) == col(Game.chat_id)).where(col(Game.id) == game_id)
    if lock:
        query = query.with_for_update(of=Game, skip_locked=skip_locked)
    row = (await session.execute(query)).first()
    return None if row is None else (row[0], row[1])


async def set_game_messages(*, session: AsyncSession, game_id: int, **message_ids: int | bool | None) -> None:
    """Remember the lobby/table message ids (and whether the table is a photo), or the topic the
    game lives in (no version bump: buttons stay valid)."""
    allowed = {"lobby_message_id", "table_message_id", "table_is_picture", "message_thread_id"}
    if not set(message_ids) <= allowed:
        raise ValueError(f"not a message id column: {set(message_ids) - allowed}")
    await session.execute(update(Game).where(col(Game.id) == game_id).values(**message_ids))


async def set_reminder_message(*, session: AsyncSession, game_id: int, number: int, message_id: int | None) -> None:
    query = update(Seat).where(col(Seat.game_id) == game_id, col(Seat.number) == number)
    await session.execute(query.values(reminder_message_id=message_id))


async def set_seat_message(
    *, session: AsyncSession, game_id: int, number: int, message_id: int | None, version: int | None = None
) -> None:
    """Remember a seat's private message (and the keyboard version it shows)."""
    values: dict[str, Any] = {"private_message_id": message_id}
    if version is not None:
        values["message_version"] = version
    query = update(Seat).where(col(Seat.game_id) == game_id, col(Seat.number) == number).values(**values)
    await session.execute(query)


async def private_message_ids(*, session: AsyncSession, player_id: int) -> set[int]:
    """The private and reminder message ids recorded for a player's seats in open games."""
    query = (
        select(col(Seat.private_message_id), col(Seat.reminder_message_id))
        .join(Game, col(Game.id) == col(Seat.game_id))
        .where(col(Seat.player_id) == player_id, col(Game.status).in_(OPEN_STATUSES))
    )
    return {int(i) for row in (await session.execute(query)).all() for i in row if i is not None}


async def open_game_in_chat(*, session: AsyncSession, chat_id: int) -> Game | None:
    """The chat's game that is not over yet (there is at most one)."""
    query = select(Game).where(col(Game.chat_id) == chat_id, col(Game.status).in_(OPEN_STATUSES))
    return (await session.execute(query)).scalar_one_or_none()


async def add_game(*, session: AsyncSession, game: Game) -> Game:
    session.add(game)
    await session.flush()
    return game


async def seats_of(*, session: AsyncSession, game_id: int) -> list[Seat]:
    query = select(Seat).where(col(Seat.game_id) == game_id).order_by(col(Seat.number))
    return list((await session.execute(query)).scalars())


@dataclass(frozen=True)
class SeatPlayer:
    """A seat with what the service needs of its player: quiet hours and language."""

    seat: Seat
    quiet_start: int | None
    quiet_end: int | None
    timezone: str | None
    language: str | None


async def seats_with_players(*, session: AsyncSession, game_id: int) -> list[SeatPlayer]:
    """Seats in order, each with its player's quiet hours and language (computers: none)."""
    query = (
        select(Seat, col(Player.quiet_start), col(Player.quiet_end), col(Player.timezone), col(Player.language))
        .outerjoin(Player, col(Player.id) == col(Seat.player_id))
        .where(col(Seat.game_id) == game_id)
        .order_by(col(Seat.number))
    )
    return [SeatPlayer(*row) for row in (await session.execute(query)).all()]


async def add_seat(*, session: AsyncSession, seat: Seat) -> Seat:
    session.add(seat)
    await session.flush()
    return seat


async def delete_seat(*, session: AsyncSession, seat: Seat) -> None:
    await session.delete(seat)
    await session.flush()


@dataclass(frozen=True)
class PlayerGame:
    game: Game
    seat: Seat
    chat: Chat


async def games_of_player(*, session: AsyncSession, player_id: int, open_only: bool = True) -> list[PlayerGame]:
    """A player's games (newest first), with their seat and chat."""
    query = (
        select(Game, Seat, Chat)
        .join(Seat, col(Seat.game_id) == col(Game.id))
        .join(Chat, col(Chat.id) == col(Game.chat_id))
        .where(col(Seat.player_id) == player_id)
        .order_by(col(Game.updated_at).desc())
    )
    if open_only:
        query = query.where(col(Game.status).in_(OPEN_STATUSES))
    return [PlayerGame(g, s, c) for g, s, c in (await session.execute(query)).all()]


async def due_games(*, session: AsyncSession, now: datetime, limit: int = 100, skip_locked: bool = False) -> list[Game]:
    """Games whose next timer event is due, oldest first. With ``skip_locked`` (PostgreSQL) the rows
    are claimed FOR UPDATE SKIP LOCKED, so two workers never take the same one."""
    query = (
        select(Game)
        .where(col(Game.due_at).is_not(None), col(Game.due_at) <= now)
        .order_by(col(Game.due_at))
        .limit(limit)
    )
    if skip_locked:
        query = query.with_for_update(skip_locked=True)
    return list((await session.execute(query)).scalars())


async def due_game_versions(*, session: AsyncSession, now: datetime, limit: int = 100) -> list[tuple[int, int]]:
    """(id, version) of games whose timer is due, oldest first (the partial index ix_game_due)."""
    query = (
        select(col(Game.id), col(Game.version))
        .where(col(Game.due_at).is_not(None), col(Game.due_at) <= now)
        .order_by(col(Game.due_at))
        .limit(limit)
    )
    return [(int(i or 0), int(v)) for i, v in (await session.execute(query)).all()]


async def next_due_at(*, session: AsyncSession) -> datetime | None:
    """The earliest pending timer event of any game."""
    return (await session.execute(select(func.min(col(Game.due_at))))).scalar_one_or_none()


async def migrate_chat(*, session: AsyncSession, old_id: int, new_id: int, title: str = "") -> Chat:
    """A group became a supergroup: its settings and games follow the new chat id."""
    old = await session.get(Chat, old_id)
    new = await ensure_chat(
        session=session, chat_id=new_id, kind="supergroup", title=title or (old.title if old else "")
    )
    if old is not None:
        for name in ("game_kind", "preset", "house_rules", "turn_seconds", "reminders", "max_timeouts", "language"):
            setattr(new, name, getattr(old, name))
        new.deadlines_skip_quiet = old.deadlines_skip_quiet
        old.migrated_to = new_id
    await session.execute(update(Game).where(col(Game.chat_id) == old_id).values(chat_id=new_id))
    await session.flush()
    return new


# ----------------------------------------------------------------------------- the move log


async def insert_moves(*, session: AsyncSession, rows: list[dict[str, Any]]) -> None:
    """Append rows to the move log in one statement."""
    if rows:
        await session.execute(insert(Move), rows)


async def moves_of(*, session: AsyncSession, game_id: int) -> list[Move]:
    query = select(Move).where(col(Move.game_id) == game_id).order_by(col(Move.seq))
    return list((await session.execute(query)).scalars())


async def last_moves(*, session: AsyncSession, game_id: int, count: int) -> list[Move]:
    """The newest ``count`` moves, oldest first."""
    query = select(Move).where(col(Move.game_id) == game_id).order_by(col(Move.seq).desc()).limit(count)
    return list(reversed((await session.execute(query)).scalars().all()))


# ----------------------------------------------------------------------------- the outbox


async def insert_outbox(*, session: AsyncSession, rows: list[dict[str, Any]]) -> None:
    """Add notices in one statement."""
    if rows:
        await session.execute(insert(Outbox), rows)


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
    held = aliased(Outbox)
    busy = exists().where(
        col(held.game_id) == col(Outbox.game_id), col(held.delivered_at).is_(None), col(held.claimed_until) > now
    )
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
    for row in rows:
        row.claimed_until = now + lease
        row.attempts += 1
    await session.flush()
    return rows


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
    *, session: AsyncSession, ids: Sequence[int], error: str, retry_at: datetime, give_up_after: int, now: datetime
) -> None:
    """Give notices back after a failed delivery; they are tried again from ``retry_at``, unless
    they were tried ``give_up_after`` times already: those are closed, with the error kept."""
    if not ids:
        return
    await session.execute(
        update(Outbox).where(col(Outbox.id).in_(ids)).values(claimed_until=retry_at, last_error=error[:500])
    )
    gave_up = update(Outbox).where(col(Outbox.id).in_(ids), col(Outbox.attempts) >= give_up_after)
    await session.execute(gave_up.values(delivered_at=now, last_error=f"gave up: {error}"[:500]))


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


async def pending_outbox_count(*, session: AsyncSession) -> int:
    query = select(func.count()).select_from(Outbox).where(col(Outbox.delivered_at).is_(None))
    return int((await session.execute(query)).scalar_one())


# ----------------------------------------------------------------------------- statistics


@dataclass(frozen=True)
class StatsRow:
    player_id: int
    name: str
    games: int
    firsts: int
    losers: int
    average_place: float

    @property
    def win_rate(self) -> float:
        return self.firsts / self.games if self.games else 0.0


def _stats_query(*conditions: Any) -> Any:
    return (
        select(
            col(Seat.player_id),
            func.max(col(Player.first_name)),
            func.count(),
            func.sum(case((col(Seat.place) == 1, 1), else_=0)),
            func.sum(case((col(Seat.is_loser), 1), else_=0)),
            func.avg(col(Seat.place)),
        )
        .join(Game, col(Game.id) == col(Seat.game_id))
        .join(Player, col(Player.id) == col(Seat.player_id))
        .where(col(Game.status) == GameStatus.FINISHED, col(Seat.player_id).is_not(None), *conditions)
        .group_by(col(Seat.player_id))
    )


def _rows(result: Any) -> list[StatsRow]:
    return [
        StatsRow(int(pid), name or "", int(games), int(firsts or 0), int(losers or 0), round(float(avg or 0), 2))
        for pid, name, games, firsts, losers, avg in result
    ]


async def chat_leaderboard(*, session: AsyncSession, chat_id: int, min_games: int = 3) -> list[StatsRow]:
    """Players of a chat with at least ``min_games`` finished games: best average place first."""
    query = _stats_query(col(Game.chat_id) == chat_id).having(func.count() >= min_games)
    rows = _rows(await session.execute(query))
    return sorted(rows, key=lambda r: (r.average_place, -r.firsts, r.losers, r.name))


async def player_stats(*, session: AsyncSession, player_id: int) -> StatsRow | None:
    """One player's record across every chat."""
    rows = _rows(await session.execute(_stats_query(col(Seat.player_id) == player_id)))
    return rows[0] if rows else None


@dataclass(frozen=True)
class PresetRow:
    kind: str
    preset: str
    games: int
    average_moves: float


async def preset_stats(*, session: AsyncSession, chat_id: int | None = None) -> list[PresetRow]:
    """Finished games per game kind and preset (in a chat, or everywhere)."""
    preset = col(Game.rules)["name"].as_string()
    query = (
        select(col(Game.kind), preset, func.count(), func.avg(col(Game.move_count)))
        .where(col(Game.status) == GameStatus.FINISHED)
        .group_by(col(Game.kind), preset)
    )
    if chat_id is not None:
        query = query.where(col(Game.chat_id) == chat_id)
    result = await session.execute(query)
    return sorted(
        (PresetRow(kind, name or "", int(n), round(float(avg or 0), 1)) for kind, name, n, avg in result),
        key=lambda r: (-r.games, r.kind, r.preset),
    )


# ----------------------------------------------------------------------------- updates applied once


async def take_update(*, session: AsyncSession, update_id: int, now: datetime) -> bool:
    """Claim a Telegram update id: True the first time, False for a redelivery (on any worker)."""
    values = {"update_id": update_id, "taken_at": now}
    return await insert_if_missing(session=session, model=ProcessedUpdate, key="update_id", values=values)


async def purge_updates(*, session: AsyncSession, before: datetime) -> int:
    """Forget update ids taken before ``before`` (Telegram redelivers an update for a day at most)."""
    result: Any = await session.execute(delete(ProcessedUpdate).where(col(ProcessedUpdate.taken_at) < before))
    return int(result.rowcount or 0)


# ----------------------------------------------------------------------------- the fleet's send rate


async def reserve_send(*, session: AsyncSession, key: str, capacity: float, per_second: float) -> float:
    """Take one token from a shared bucket (PostgreSQL; the database's clock for every worker) and
    return how long to wait before sending: 0 while the bucket has tokens, else the time until the
    debt is paid. Reservations queue in order, so N workers together keep the rate."""
    now = func.clock_timestamp()
    bucket = SendBucket.__table__  # type: ignore[attr-defined]
    elapsed = func.extract("epoch", now - bucket.c.updated_at)
    refilled = func.least(literal(capacity), bucket.c.tokens + elapsed * per_second)
    stmt = (
        postgresql.insert(bucket)
        .values(key=key, tokens=capacity - 1, updated_at=now)
        .on_conflict_do_update(index_elements=["key"], set_={"tokens": refilled - 1, "updated_at": now})
        .returning(bucket.c.tokens)
    )
    tokens = float((await session.execute(stmt)).scalar_one())
    return max(0.0, -tokens / per_second)


async def hold_sends(*, session: AsyncSession, key: str, seconds: float, per_second: float) -> None:
    """Telegram said "retry after N s" (429): nobody in the fleet sends on this bucket until then."""
    now = func.clock_timestamp()
    bucket = SendBucket.__table__  # type: ignore[attr-defined]
    debt = -seconds * per_second
    stmt = postgresql.insert(bucket).values(key=key, tokens=debt, updated_at=now)
    elapsed = func.extract("epoch", now - bucket.c.updated_at)
    stmt = stmt.on_conflict_do_update(
        index_elements=["key"],
        set_={"tokens": func.least(literal(debt), bucket.c.tokens + elapsed * per_second), "updated_at": now},
    )
    await session.execute(stmt)


async def purge_send_buckets(*, session: AsyncSession, before: datetime) -> None:
    """Buckets untouched since ``before`` are full again: their rows can go."""
    await session.execute(delete(SendBucket).where(col(SendBucket.updated_at) < before))


# ----------------------------------------------------------------------------- operations


@dataclass(frozen=True)
class Vitals:
    """What an operator watches: games by status, moves so far, the outbox backlog, overdue timers."""

    games: dict[str, int]
    moves: int
    outbox_pending: int
    outbox_oldest: datetime | None
    overdue_since: datetime | None  # the oldest timer that is due and not fired yet


async def vitals(*, session: AsyncSession, now: datetime) -> Vitals:
    """A few cheap statements (each on an index): a metrics scrape may run them every few seconds."""
    games = dict((await session.execute(select(col(Game.status), func.count()).group_by(col(Game.status)))).all())
    moves = (await session.execute(select(func.max(col(Move.id))))).scalar_one_or_none() or 0
    pending, oldest = (
        await session.execute(
            select(func.count(), func.min(col(Outbox.created_at))).where(col(Outbox.delivered_at).is_(None))
        )
    ).one()
    overdue = (
        await session.execute(
            select(func.min(col(Game.due_at))).where(col(Game.due_at).is_not(None), col(Game.due_at) <= now)
        )
    ).scalar_one_or_none()
    return Vitals({str(k): int(v) for k, v in games.items()}, int(moves), int(pending), oldest, overdue)


async def ping(*, session: AsyncSession) -> None:
    """The database answers."""
    await session.execute(select(literal(1)))


# ----------------------------------------------------------------------------- ratings


@dataclass(frozen=True)
class RatingUpdate:
    subject: str
    place: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    lost: bool


async def ratings_of(*, session: AsyncSession, chat_id: int, subjects: Sequence[str]) -> dict[str, Rating]:
    """The ratings, locked until the transaction ends (two games finishing at once with a player in
    common are rated one after the other, never from the same old value)."""
    query = (
        select(Rating)
        .where(col(Rating.chat_id) == chat_id, col(Rating.subject).in_(subjects))
        .order_by(col(Rating.subject))
        .with_for_update()
    )
    return {r.subject: r for r in (await session.execute(query)).scalars()}


async def save_ratings(
    *, session: AsyncSession, game_id: int, chat_id: int, changes: Sequence[RatingUpdate], when: Any
) -> None:
    """The game's rating changes in one scope: the history rows, and each rating upserted."""
    if not changes:
        return
    await session.execute(
        insert(RatingChange),
        [
            {
                "game_id": game_id,
                "chat_id": chat_id,
                "subject": c.subject,
                "place": c.place,
                "mu_before": c.mu_before,
                "sigma_before": c.sigma_before,
                "mu_after": c.mu_after,
                "sigma_after": c.sigma_after,
                "created_at": when,
            }
            for c in changes
        ],
    )
    table = Rating.__table__  # type: ignore[attr-defined]
    for c in changes:
        stmt = _insert(session, Rating).values(
            chat_id=chat_id, subject=c.subject, mu=c.mu_after, sigma=c.sigma_after, games=1, losses=int(c.lost),
            updated_at=when,
        )  # fmt: skip
        stmt = stmt.on_conflict_do_update(
            index_elements=["chat_id", "subject"],
            set_={
                "mu": c.mu_after,
                "sigma": c.sigma_after,
                "games": table.c.games + 1,
                "losses": table.c.losses + int(c.lost),
                "updated_at": when,
            },
        )
        await session.execute(stmt)


async def top_ratings(*, session: AsyncSession, chat_id: int, limit: int = 20) -> list[Rating]:
    """A scope's ratings, best ordinal (mu - 3 sigma) first."""
    order = (col(Rating.mu) - 3 * col(Rating.sigma)).desc()
    query = select(Rating).where(col(Rating.chat_id) == chat_id).order_by(order, col(Rating.subject)).limit(limit)
    return list((await session.execute(query)).scalars())


async def ratings_of_subject(*, session: AsyncSession, subject: str) -> list[tuple[Rating, str]]:
    """A subject's rating in every scope, with the chat's title ("" overall)."""
    query = (
        select(Rating, func.coalesce(col(Chat.title), ""))
        .outerjoin(Chat, col(Chat.id) == col(Rating.chat_id))
        .where(col(Rating.subject) == subject)
        .order_by(col(Rating.chat_id))
    )
    return [(r, str(t)) for r, t in (await session.execute(query)).all()]


async def recent_changes(*, session: AsyncSession, chat_id: int, subject: str, count: int = 5) -> list[RatingChange]:
    """A subject's latest rating changes in a scope, oldest first."""
    query = (
        select(RatingChange)
        .where(col(RatingChange.chat_id) == chat_id, col(RatingChange.subject) == subject)
        .order_by(col(RatingChange.id).desc())
        .limit(count)
    )
    return list(reversed((await session.execute(query)).scalars().all()))


async def clear_ratings(*, session: AsyncSession) -> None:
    await session.execute(delete(RatingChange))
    await session.execute(delete(Rating))


async def finished_games(*, session: AsyncSession) -> list[tuple[Game, list[Seat]]]:
    """Every finished game with its seats, in the order they were rated (games finished before
    ratings existed: in the order they finished) — for rebuilding ratings."""
    first_rated = (
        select(func.min(col(RatingChange.id)))
        .where(col(RatingChange.game_id) == col(Game.id))
        .correlate(Game)
        .scalar_subquery()
    )
    query = (
        select(Game)
        .where(col(Game.status) == GameStatus.FINISHED)
        .order_by(first_rated.is_(None), first_rated, col(Game.finished_at), col(Game.id))
    )
    games = list((await session.execute(query)).scalars())
    seats: dict[int, list[Seat]] = {g.id or 0: [] for g in games}
    if games:
        of_games = select(Seat).where(col(Seat.game_id).in_(list(seats))).order_by(col(Seat.game_id), col(Seat.number))
        for seat in (await session.execute(of_games)).scalars():
            seats[seat.game_id].append(seat)
    return [(g, seats[g.id or 0]) for g in games]


async def player_names(*, session: AsyncSession, player_ids: Sequence[int]) -> dict[int, str]:
    if not player_ids:
        return {}
    query = select(col(Player.id), col(Player.first_name)).where(col(Player.id).in_(player_ids))
    return {int(i): str(n) for i, n in (await session.execute(query)).all()}
