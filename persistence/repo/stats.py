"""Statistics, the operators' vitals, and ratings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, delete, func, insert, literal, literal_column, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from persistence.models import (
    OPEN_SQL,
    ORDINAL_SQL,
    Chat,
    Game,
    Move,
    Outbox,
    Player,
    PlayerRecord,
    Rating,
    RatingChange,
    Seat,
)
from persistence.repo.common import _insert

# ----------------------------------------------------------------------------- statistics


@dataclass(frozen=True)
class StatsRow:
    player_id: int
    name: str
    games: int
    firsts: int
    losers: int
    average_place: float
    stood_in_moves: int = 0  # moves a stand-in made for the player (away, or after timeouts)
    stood_in_games: int = 0  # …in this many of the games


def _stats_query(status: str, *conditions: Any) -> Any:
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
        .where(col(Game.status) == status, col(Seat.player_id).is_not(None), *conditions)
        .group_by(col(Seat.player_id))
    )


def _rows(result: Any) -> list[StatsRow]:
    return [
        StatsRow(int(pid), name or "", int(games), int(firsts or 0), int(losers or 0), round(float(avg or 0), 2))
        for pid, name, games, firsts, losers, avg in result
    ]


async def chat_leaderboard(*, session: AsyncSession, chat_id: int, status: str, min_games: int = 3) -> list[StatsRow]:
    """Players of a chat with at least ``min_games`` games of ``status`` (the service passes its finished
    status): best average place first."""
    query = _stats_query(status, col(Game.chat_id) == chat_id).having(func.count() >= min_games)
    rows = _rows(await session.execute(query))
    return sorted(rows, key=lambda r: (r.average_place, -r.firsts, r.losers, r.name))


async def player_stats(*, session: AsyncSession, player_id: int) -> StatsRow | None:
    """One player's record across every chat: their finished games, and the moves a stand-in made in
    them — the counters :func:`count_finished_game` keeps (one row, whatever the player's history)."""
    query = select(PlayerRecord, col(Player.first_name)).join(Player, col(Player.id) == col(PlayerRecord.player_id))
    found = (await session.execute(query.where(col(PlayerRecord.player_id) == player_id))).first()
    if found is None or found[0].games == 0:
        return None
    record, name = found
    average = round(record.place_sum / record.placed, 2) if record.placed else 0.0
    return StatsRow(
        player_id, name or "", record.games, record.firsts, record.losers, average, record.stood_in_moves,
        record.stood_in_games,
    )  # fmt: skip


def _record_values(seat: Seat, stood_in: int) -> dict[str, int]:
    return {
        "games": 1,
        "firsts": int(seat.place == 1),
        "losers": int(seat.is_loser),
        "place_sum": seat.place or 0,
        "placed": int(seat.place is not None),
        "stood_in_moves": stood_in,
        "stood_in_games": int(stood_in > 0),
    }


async def count_finished_game(*, session: AsyncSession, game_id: int, stand_in: str) -> None:
    """Add a game that has just finished (its seats placed, its moves logged) to its players' records;
    ``stand_in``: the stored value of the service's stand-in actor."""
    seats = select(Seat).where(col(Seat.game_id) == game_id, col(Seat.player_id).is_not(None))
    stood_in = select(col(Move.seat), func.count()).where(col(Move.game_id) == game_id, col(Move.actor) == stand_in)
    moves = dict((await session.execute(stood_in.group_by(col(Move.seat)))).all())
    table = PlayerRecord.__table__  # type: ignore[attr-defined]
    for seat in (await session.execute(seats)).scalars():
        values = _record_values(seat, int(moves.get(seat.number, 0)))
        stmt = _insert(session, PlayerRecord).values(player_id=seat.player_id, **values)
        added = {name: table.c[name] + value for name, value in values.items()}
        await session.execute(stmt.on_conflict_do_update(index_elements=["player_id"], set_=added))


async def rebuild_player_records(*, session: AsyncSession, status: str, stand_in: str) -> None:
    """Every player's record counted again from the games of ``status`` (the service's finished
    status) and the moves of actor ``stand_in`` in them."""
    per_seat = (
        select(col(Move.game_id), col(Move.seat), func.count().label("moves"))
        .where(col(Move.actor) == stand_in)
        .group_by(col(Move.game_id), col(Move.seat))
        .subquery()
    )
    moves = per_seat.c.moves
    query = (
        select(
            col(Seat.player_id),
            func.count(),
            func.sum(case((col(Seat.place) == 1, 1), else_=0)),
            func.sum(case((col(Seat.is_loser), 1), else_=0)),
            func.coalesce(func.sum(col(Seat.place)), 0),
            func.count(col(Seat.place)),
            func.coalesce(func.sum(moves), 0),
            func.sum(case((moves > 0, 1), else_=0)),
        )
        .join(Game, col(Game.id) == col(Seat.game_id))
        .join(Player, col(Player.id) == col(Seat.player_id))
        .outerjoin(per_seat, (per_seat.c.game_id == col(Seat.game_id)) & (per_seat.c.seat == col(Seat.number)))
        .where(col(Game.status) == status, col(Seat.player_id).is_not(None))
        .group_by(col(Seat.player_id))
    )
    names = ["player_id", "games", "firsts", "losers", "place_sum", "placed", "stood_in_moves", "stood_in_games"]
    await session.execute(delete(PlayerRecord))
    await session.execute(insert(PlayerRecord).from_select(names, query))


@dataclass(frozen=True)
class PresetRow:
    kind: str
    preset: str
    games: int
    average_moves: float


async def preset_stats(*, session: AsyncSession, status: str, chat_id: int | None = None) -> list[PresetRow]:
    """Games of ``status`` (the service's finished status) per game kind and preset (in a chat, or
    everywhere)."""
    preset = col(Game.rules)["name"].as_string()
    query = (
        select(col(Game.kind), preset, func.count(), func.avg(col(Game.move_count)))
        .where(col(Game.status) == status)
        .group_by(col(Game.kind), preset)
    )
    if chat_id is not None:
        query = query.where(col(Game.chat_id) == chat_id)
    result = await session.execute(query)
    return sorted(
        (PresetRow(kind, name or "", int(n), round(float(avg or 0), 1)) for kind, name, n, avg in result),
        key=lambda r: (-r.games, r.kind, r.preset),
    )


# ----------------------------------------------------------------------------- operations


@dataclass(frozen=True)
class Vitals:
    """What an operator watches: games by status, moves so far, the outbox backlog, overdue timers."""

    games: dict[str, int]
    moves: int
    outbox_pending: int
    outbox_oldest: datetime | None
    overdue_since: datetime | None  # the oldest timer that is due and not fired yet


async def vitals(*, session: AsyncSession, now: datetime, ended: bool = True) -> Vitals:
    """A few cheap statements (each on an index): a metrics scrape may run them every few seconds.
    The open games are counted on their own index; ``ended``: the games that are over too (a count
    of the whole history: the caller does it now and then)."""
    by_status = select(col(Game.status), func.count()).group_by(col(Game.status))
    if not ended:
        by_status = by_status.where(OPEN_SQL)  # as ix_game_open_status says it
    games = dict((await session.execute(by_status)).all())
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
    """A scope's ratings, best ordinal (mu - 3 sigma) first (read in the order of ix_rating_ordinal)."""
    order: Any = literal_column(f"({ORDINAL_SQL})").desc()
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


async def finished_games(*, session: AsyncSession, status: str) -> list[tuple[Game, list[Seat]]]:
    """Every game of ``status`` (the service's finished status) with its seats, in the order they were
    rated (games finished before ratings existed: in the order they finished) — for rebuilding ratings."""
    first_rated = (
        select(func.min(col(RatingChange.id)))
        .where(col(RatingChange.game_id) == col(Game.id))
        .correlate(Game)
        .scalar_subquery()
    )
    query = (
        select(Game)
        .where(col(Game.status) == status)
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
