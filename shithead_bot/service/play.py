"""Playing: a player's move (swap, ready, play, pick up, keep or swap…) and leaving for good."""

from __future__ import annotations

from engine import Forfeit, Move
from persistence import repo
from shithead_bot.service.errors import StaleVersionError, WrongStateError
from shithead_bot.service.snapshot import ACTIVE
from shithead_bot.service.status import Actor, GameStatus
from shithead_bot.service.turns import apply, chain_waiting, settle
from shithead_bot.service.unit import Core, Result


async def play(
    core: Core,
    game_id: int,
    user_id: int,
    move: Move | str,
    version: int | None = None,
    *,
    message_id: int | None = None,
) -> Result:
    """A player's move; ``version`` is their button's (an older one is refused as stale).

    ``message_id``: the private message the button was on. One newer than the seat's recorded
    message is a turn message whose id was never recorded (the database failed, or the bot died,
    right after Telegram took it): it becomes the seat's message, so it is the one edited now and
    no live keyboard is left behind on it."""
    async with core.transaction() as session:
        tx = await core.load(session, game_id)
        tx.require(*ACTIVE)
        seat = tx.seat_or_raise(user_id)
        if version is not None and version != seat.keyboard_version:
            raise StaleVersionError(f"button version {version}, seat is at {seat.keyboard_version}")
        if message_id is not None and message_id > (seat.private_message_id or 0):
            seat.private_message_id, seat.message_version = message_id, seat.keyboard_version
        await repo.touch_player(session=session, player_id=user_id, when=tx.now)  # they are looking
        tx.active[seat.number] = tx.now
        if tx.away.pop(seat.number, None) is not None:  # a press on their game message: they are back
            await repo.set_away(session=session, player_id=user_id, until=None)
        apply(tx, seat.number, move, Actor.HUMAN)
        seat.timeouts_in_row = 0
        tx.hand_back = True  # the press is answered before a computer thinks: see play_on
        settle(tx, core.settings)
        tx.hand_over = True  # its delivery plans from what this commits (unit.Handed)
        return await core.commit(tx)


async def play_on(core: Core, game_id: int) -> Result | None:
    """The computers move (and forced moves are made) where a press handed the chain back: thought
    out off the event loop, then one transaction. None when nothing waits (another worker, or the
    timer sweep, carried on first)."""
    async with core.transaction() as session:
        tx = await core.read(session, game_id, lock=True)
        if tx is None or not chain_waiting(tx):
            return None
        core.bump(tx)
        settle(tx, core.settings)
        return await core.commit(tx)


async def forfeit(core: Core, game_id: int, user_id: int) -> Result:
    """Leave the game for good: the worst place still free (RULES.md §1.10)."""
    async with core.transaction() as session:
        tx = await core.load(session, game_id)
        tx.require(*ACTIVE, GameStatus.PAUSED)
        seat = tx.seat_or_raise(user_id)
        if seat.forfeited or seat.place is not None:
            raise WrongStateError("you are no longer in this game", tx.game.status)
        apply(tx, seat.number, Forfeit(), Actor.HUMAN)
        settle(tx, core.settings)
        return await core.commit(tx)
