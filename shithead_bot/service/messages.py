"""What the front end tells the service about the messages it keeps editing, and the fleet's
shared send rate. None of these bumps a game's version: buttons stay valid."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from persistence import repo
from shithead_bot.service.errors import GameNotFoundError, NeedsPrivateChatError
from shithead_bot.service.notices import NoticeKind
from shithead_bot.service.unit import Core


async def ask_again(core: Core, game_id: int, user_id: int, *, to_act_only: bool = False) -> bool:
    """A player asks for their private message of a game again (/hand, its button, a bare /start,
    an unblock): a HAND notice, sent in the game's order — after a batch another delivery is still
    sending, so the fresh copy is the newest message and the only one with buttons. ``to_act_only``:
    only if they may act now. Returns whether a copy was asked for. NotAPlayerError if they have no
    seat; NeedsPrivateChatError if the bot may not write to them (never started, or blocked)."""
    async with core.transaction() as session:
        tx = await core.read(session, game_id, lock=False)
        if tx is None:
            raise GameNotFoundError(f"no game {game_id}")
        seat = tx.seat_or_raise(user_id)
        player = await repo.get_player(session=session, player_id=user_id)
        if player is None or not player.can_message:
            raise NeedsPrivateChatError(user_id, game_id)
        if to_act_only and not tx.snapshot().may_act(seat.number):
            return False
        tx.notify(NoticeKind.HAND, seat.number)
        await core.commit(tx)  # read, not loaded for writing: the version stays, and the buttons with it
        return True


async def may_message(core: Core, player_id: int) -> bool:
    """Has the player started the bot, and not blocked it since (as far as the bot knows)?"""
    async with core.sessions() as session:
        player = await repo.get_player(session=session, player_id=player_id)
        return player is not None and player.can_message


async def record_game_messages(core: Core, /, game_id: int, **message_ids: int | bool | None) -> None:
    """Remember the lobby/table message ids the front end keeps editing (``table_is_picture``: the
    table message is a photo)."""
    async with core.transaction() as session:
        await repo.set_game_messages(session=session, game_id=game_id, **message_ids)


async def record_private_message(
    core: Core, game_id: int, seat: int, message_id: int | None, version: int | None = None
) -> None:
    """A seat's private game message (and the keyboard version it shows)."""
    async with core.transaction() as session:
        await repo.set_seat_message(
            session=session, game_id=game_id, number=seat, message_id=message_id, version=version
        )


async def record_reminder_message(core: Core, game_id: int, seat: int, message_id: int | None) -> None:
    async with core.transaction() as session:
        await repo.set_reminder_message(session=session, game_id=game_id, number=seat, message_id=message_id)


async def known_private_messages(core: Core, player_id: int) -> set[int]:
    """Ids of the messages the bot keeps track of in a player's private chat (open games)."""
    async with core.sessions() as session:
        return await repo.private_message_ids(session=session, player_id=player_id)


async def reserve_send(
    core: Core,
    buckets: Sequence[tuple[str, float, float]],
    max_wait: float,
    now: datetime | None = None,
    amounts: Sequence[float] | None = None,
) -> tuple[float, bool]:
    """A token from each of the fleet's send buckets ``(key, capacity, per_second)`` (PostgreSQL),
    unless the send would wait longer than ``max_wait``: the seconds to wait, and whether it was
    taken. One statement in autocommit: no transaction, no lock held past it."""
    async with core.sessions() as session:
        await session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        return await repo.reserve_send(session=session, buckets=buckets, max_wait=max_wait, now=now, amounts=amounts)


async def hold_sends(core: Core, key: str, seconds: float, per_second: float, now: datetime | None = None) -> None:
    """Nobody in the fleet sends on bucket ``key`` for ``seconds`` (Telegram said 429)."""
    async with core.sessions() as session:
        await session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        await repo.hold_sends(session=session, key=key, seconds=seconds, per_second=per_second, now=now)
