"""Chats, players, games, seats and the move log.

A game is "open" when its stored status is one of :data:`persistence.models.OPEN_STATUSES` — the schema's
own notion (the partial unique index of a chat's open game), so the queries of open games use it rather
than take statuses from the service."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, case, exists, func, insert, or_, select, union_all, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from persistence.models import (
    OPEN_STATUSES,
    Chat,
    Game,
    Move,
    Outbox,
    Player,
    Seat,
    utcnow,
)
from persistence.repo.common import insert_if_missing

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


async def set_away(*, session: AsyncSession, player_id: int, until: datetime | None) -> None:
    """Until when a stand-in plays for the player (None: they are back)."""
    await session.execute(update(Player).where(col(Player.id) == player_id).values(away_until=until))


async def touch_player(*, session: AsyncSession, player_id: int, when: datetime) -> None:
    """The player pressed or wrote in their private chat just now: they are looking."""
    await session.execute(update(Player).where(col(Player.id) == player_id).values(last_active_at=when))


async def set_inbox_message(
    *, session: AsyncSession, player_id: int, message_id: int | None, was: int | None = None, only_if: bool = False
) -> None:
    """A player's live inbox message; ``only_if``: only while it is ``was`` still (a deleted one is
    forgotten, unless another replaced it meanwhile)."""
    query = update(Player).where(col(Player.id) == player_id)
    if only_if:
        query = query.where(col(Player.inbox_message_id) == was)
    await session.execute(query.values(inbox_message_id=message_id))


async def claim_digest(*, session: AsyncSession, player_id: int, now: datetime, since: datetime) -> bool:
    """Digest mode: take the player's digest now unless one went after ``since`` (one statement: two
    workers, or two games of theirs, never both send one)."""
    query = (
        update(Player)
        .where(col(Player.id) == player_id)
        .where(or_(col(Player.digested_at).is_(None), col(Player.digested_at) <= since))
        .values(digested_at=now)
    )
    return bool((await session.execute(query)).rowcount)  # type: ignore[attr-defined]


async def arm_nudge(*, session: AsyncSession, game_id: int, number: int, version: int, at: datetime) -> None:
    """A turn went out silently: one nudge at ``at`` if the seat still holds that keyboard then (the
    game's ``due_at`` brings the sweep, by its index)."""
    seat = update(Seat).where(
        col(Seat.game_id) == game_id, col(Seat.number) == number, col(Seat.keyboard_version) == version
    )
    if (await session.execute(seat.values(nudge_at=at))).rowcount:  # type: ignore[attr-defined]
        due = case((or_(col(Game.due_at).is_(None), col(Game.due_at) > at), at), else_=col(Game.due_at))
        await session.execute(update(Game).where(col(Game.id) == game_id).values(due_at=due))


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
    """A game and its chat in one query; with ``lock``, the game row is locked (FOR UPDATE OF game)
    and read afresh — an object of it the session read before the lock (a listing of games) would
    otherwise keep its older values, its version among them; with ``skip_locked`` too, a row
    another transaction holds is not waited for: None is returned. Flush pending changes first."""
    query = select(Game, Chat).join(Chat, col(Chat.id) == col(Game.chat_id)).where(col(Game.id) == game_id)
    if lock:
        query = query.with_for_update(of=Game, skip_locked=skip_locked).execution_options(populate_existing=True)
    row = (await session.execute(query)).first()
    return None if row is None else (row[0], row[1])


async def set_game_messages(
    *, session: AsyncSession, game_id: int, **message_ids: int | bool | datetime | None
) -> None:
    """Remember the lobby/table message ids (and whether the table is a photo, and when it was last
    edited), or the topic the game lives in (no version bump: buttons stay valid)."""
    allowed = {"lobby_message_id", "table_message_id", "table_is_picture", "table_edited_at", "message_thread_id"}
    if not set(message_ids) <= allowed:
        raise ValueError(f"not a message id column: {set(message_ids) - allowed}")
    await session.execute(update(Game).where(col(Game.id) == game_id).values(**message_ids))


async def set_reminder_message(*, session: AsyncSession, game_id: int, number: int, message_id: int | None) -> None:
    query = update(Seat).where(col(Seat.game_id) == game_id, col(Seat.number) == number)
    await session.execute(query.values(reminder_message_id=message_id))


async def set_seat_called(*, session: AsyncSession, game_id: int, number: int, version: int) -> None:
    """The group was asked to get this seat's player (the bot cannot write to them) for the turn of
    keyboard ``version``: not again that turn, whichever worker sends its next notice."""
    query = update(Seat).where(
        col(Seat.game_id) == game_id, col(Seat.number) == number, col(Seat.called_version) < version
    )
    await session.execute(query.values(called_version=version))


async def set_photos_refused(*, session: AsyncSession, chat_id: int, until: datetime | None) -> None:
    """The chat refused the bot a picture: its tables are text until then (None: pictures again)."""
    await session.execute(update(Chat).where(col(Chat.id) == chat_id).values(photos_refused_until=until))


async def set_seat_message(
    *, session: AsyncSession, game_id: int, number: int, message_id: int | None, version: int | None = None
) -> None:
    """Remember a seat's private message (and the keyboard version it shows)."""
    values: dict[str, Any] = {"private_message_id": message_id}
    if version is not None:
        values["message_version"] = version
    query = update(Seat).where(col(Seat.game_id) == game_id, col(Seat.number) == number).values(**values)
    await session.execute(query)


async def set_seat_messages(*, session: AsyncSession, game_id: int, messages: dict[int, tuple[int, int]]) -> None:
    """Remember several seats' private messages and keyboard versions (seat -> (message, version)),
    in one statement."""
    if not messages:
        return
    seat = Seat.__table__  # type: ignore[attr-defined]
    query = (
        update(seat)
        .where(seat.c.game_id == bindparam("b_game"), seat.c.number == bindparam("b_number"))
        .values(private_message_id=bindparam("b_message"), message_version=bindparam("b_version"))
    )
    rows = [
        {"b_game": game_id, "b_number": number, "b_message": message, "b_version": version}
        for number, (message, version) in sorted(messages.items())
    ]
    await session.execute(query, rows)


async def private_message_ids(*, session: AsyncSession, player_id: int) -> set[int]:
    """The private and reminder message ids recorded for a player's seats in open games (found by
    ix_seat_player_ended, whatever the player's history)."""
    query = (
        select(col(Seat.private_message_id), col(Seat.reminder_message_id))
        .join(Game, col(Game.id) == col(Seat.game_id))
        .where(col(Seat.player_id) == player_id, col(Seat.ended_at).is_(None), col(Game.status).in_(OPEN_STATUSES))
    )
    return {int(i) for row in (await session.execute(query)).all() for i in row if i is not None}


async def private_message_ids_of(
    *, session: AsyncSession, player_ids: Sequence[int], since: datetime | None = None, but: int | None = None
) -> dict[int, set[int]]:
    """:func:`private_message_ids` of several players, in one query (``since``: also of the games
    that ended since then — their last messages, a Rematch among them; ``but``: not of this game).
    Their open and recent seats are found by ix_seat_player_ended: the players' older games are not read."""
    found: dict[int, set[int]] = {player_id: set() for player_id in player_ids}
    if not player_ids:
        return found
    columns = (col(Seat.player_id), col(Seat.private_message_id), col(Seat.reminder_message_id))
    mine: Any = col(Seat.player_id).in_(player_ids)
    if but is not None:
        mine = mine & (col(Seat.game_id) != but)
    open_seats = select(*columns).join(Game, col(Game.id) == col(Seat.game_id))
    query: Any = open_seats.where(mine, col(Seat.ended_at).is_(None), col(Game.status).in_(OPEN_STATUSES))
    if since is not None:
        query = union_all(query, select(*columns).where(mine, col(Seat.ended_at) >= since))
    for player_id, private_id, reminder_id in (await session.execute(query)).all():
        if player_id is not None:
            found[int(player_id)].update(int(i) for i in (private_id, reminder_id) if i is not None)
    return found


async def open_game_in_chat(*, session: AsyncSession, chat_id: int) -> Game | None:
    """The chat's game that is not over yet (there is at most one)."""
    query = select(Game).where(col(Game.chat_id) == chat_id, col(Game.status).in_(OPEN_STATUSES))
    return (await session.execute(query)).scalar_one_or_none()


async def last_dealt_game_in_chat(*, session: AsyncSession, chat_id: int) -> Game | None:
    """The chat's most recently dealt game, over or not."""
    query = (
        select(Game)
        .where(col(Game.chat_id) == chat_id, col(Game.started_at).is_not(None))
        .order_by(col(Game.id).desc())
        .limit(1)
    )
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
    """A seat with what the service needs of its player: quiet hours, language, autoplay."""

    seat: Seat
    quiet_start: int | None
    quiet_end: int | None
    timezone: str | None
    language: str | None
    autoplay: str | None
    away_until: datetime | None = None
    last_active_at: datetime | None = None
    notify: str | None = None
    inbox_message_id: int | None = None
    digest_seconds: int | None = None
    delivery_pending: bool = False  # a notice of the game was undelivered when the seats were read


async def seats_with_players(*, session: AsyncSession, game_id: int, fresh: bool = False) -> list[SeatPlayer]:
    """Seats in order, each with its player's quiet hours, language, autoplay and away time
    (computers: none); ``fresh``: seats the session read before are read again (its game is locked).
    In the same statement, so as of the same moment: whether a notice of the game is undelivered
    (a delivery whose report may still record message ids in these seats)."""
    pending = exists().where(col(Outbox.game_id) == game_id, col(Outbox.delivered_at).is_(None))
    query = (
        select(
            Seat,
            col(Player.quiet_start),
            col(Player.quiet_end),
            col(Player.timezone),
            col(Player.language),
            col(Player.autoplay),
            col(Player.away_until),
            col(Player.last_active_at),
            col(Player.notify),
            col(Player.inbox_message_id),
            col(Player.digest_seconds),
            pending.label("delivery_pending"),
        )
        .outerjoin(Player, col(Player.id) == col(Seat.player_id))
        .where(col(Seat.game_id) == game_id)
        .order_by(col(Seat.number))
        .execution_options(populate_existing=fresh)
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
        query = query.where(col(Seat.ended_at).is_(None), col(Game.status).in_(OPEN_STATUSES))
    return [PlayerGame(g, s, c) for g, s, c in (await session.execute(query)).all()]


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
