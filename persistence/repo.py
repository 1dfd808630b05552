"""Repository functions: keyword-only, taking the session; they may flush but never commit.

The caller (the service) owns the transaction, so a move updates the game row, the move log and
the outbox together or not at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import case, exists, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased
from sqlmodel import col

from persistence.models import OPEN_STATUSES, Chat, Game, GameStatus, Move, Outbox, Player, Seat, utcnow

# ----------------------------------------------------------------------------- chats and players


async def get_chat(*, session: AsyncSession, chat_id: int) -> Chat | None:
    return await session.get(Chat, chat_id)


async def ensure_chat(
    *, session: AsyncSession, chat_id: int, kind: str = "group", title: str = "", turn_seconds: int | None = 86400
) -> Chat:
    """The chat row, created on first sight (with ``turn_seconds``); the title is kept up to date."""
    chat = await session.get(Chat, chat_id)
    if chat is None:
        chat = Chat(id=chat_id, kind=kind, title=title, turn_seconds=turn_seconds)
        session.add(chat)
        await session.flush()
    elif title and (chat.title != title or chat.kind != kind):
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
    """The player row, created on first sight; name, username and language kept up to date."""
    player = await session.get(Player, player_id)
    if player is None:
        player = Player(id=player_id, first_name=first_name, username=username, language=language)
        session.add(player)
        await session.flush()
    elif (player.first_name, player.username, player.language) != (first_name, username, language or player.language):
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


async def set_game_messages(*, session: AsyncSession, game_id: int, **message_ids: int | None) -> None:
    """Remember the lobby/table message ids (no version bump: buttons stay valid)."""
    allowed = {"lobby_message_id", "table_message_id"}
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


async def defer_outbox(*, session: AsyncSession, ids: Sequence[int], until: datetime) -> None:
    """Put notices off until ``until`` without counting it as a failure (e.g. a throttled table edit)."""
    if ids:
        query = update(Outbox).where(col(Outbox.id).in_(ids)).values(not_before=until, claimed_until=None)
        await session.execute(query)


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
