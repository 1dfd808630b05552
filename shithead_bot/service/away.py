"""Away, not gone: a player goes away until a time, and a stand-in (a computer at the chat's
``standin_level``) plays their turns at once in every game where they have a seat, from their
seat's view only, until that time or until they come back. While away they get no reminders and
no timeouts are counted. See :meth:`~shithead_bot.service.unit.GameTx.chain_levels`: a stood-in
seat is one more seat of the computers' chain."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from engine import Phase
from persistence import repo
from shithead_bot.service.deadlines import restart_clock
from shithead_bot.service.errors import ServiceError
from shithead_bot.service.notices import Announcement, AnnouncePayload, NoticeKind, Tidy, TidyPayload, TurnPayload
from shithead_bot.service.snapshot import ACTIVE
from shithead_bot.service.status import GameStatus
from shithead_bot.service.turns import settle
from shithead_bot.service.unit import Core, GameTx, Result, UserInfo

AWAY_MIN = timedelta(minutes=10)
AWAY_MAX = timedelta(days=60)


class AwayTooLongError(ServiceError):
    """An away time shorter than :data:`AWAY_MIN` or longer than :data:`AWAY_MAX`."""

    code = "away_too_long"


@dataclass(frozen=True)
class Away:
    """What going away (or coming back) did: until when, and the games it touched."""

    until: datetime | None  # None: not away (back, or never was)
    results: list[Result] = field(default_factory=list)

    @property
    def game_ids(self) -> list[int]:
        return [r.game_id for r in self.results]


async def go_away(core: Core, user: UserInfo, duration: timedelta) -> Away:
    """Away for ``duration`` from now: each of the player's games is told once, and where they are
    to act the stand-in plays now (the swap phase: its swaps, then ready). A duration, not an end:
    an end the caller computed from its clock would be a little nearer by the time it is checked,
    and the shortest time allowed would be refused."""
    if not AWAY_MIN <= duration <= AWAY_MAX:
        raise AwayTooLongError(f"away for {duration}: between 10 minutes and 60 days")
    async with core.transaction() as session:
        until = core.clock() + duration
        player = await core.player(session, user)
        player.away_until = until
        await session.flush()  # the games below read it
        results = []
        for found in await repo.games_of_player(session=session, player_id=user.id):
            if found.game.status == GameStatus.LOBBY or found.seat.forfeited or found.seat.place is not None:
                continue
            tx = await core.load(session, found.game.id or 0)
            tx.announce(AnnouncePayload(Announcement.AWAY, until=until), found.seat.number)
            if tx.status in ACTIVE:
                settle(tx, core.settings)
            else:
                tx.notify(NoticeKind.TABLE)
            results.append(await core.commit(tx))
        return Away(until, results)


async def come_back(core: Core, user_id: int) -> Away | None:
    """Back before the time: the stand-in stops, the table loses the 🤖, and where the player is
    to act (a stand-in that was still thinking) they take the turn over with fresh buttons. None
    when they were not away (nothing written)."""
    async with core.sessions() as session:
        player = await repo.get_player(session=session, player_id=user_id)
        if player is None or player.away_until is None or player.away_until <= core.clock():
            return None
    async with core.transaction() as session:
        player = await repo.get_player(session=session, player_id=user_id)
        if player is None:
            return None
        player.away_until = None
        await session.flush()
        results = []
        for found in await repo.games_of_player(session=session, player_id=user_id):
            if found.game.status not in (*ACTIVE, GameStatus.PAUSED) or found.seat.forfeited:
                continue
            tx = await core.load(session, found.game.id or 0)
            if not (tx.status in ACTIVE and take_over(tx, found.seat.number)):
                drop_back_button(tx, found.seat.number, user_id)
            tx.notify(NoticeKind.TABLE)
            results.append(await core.commit(tx))
        return Away(None, results)


def take_over(tx: GameTx, number: int) -> bool:
    """The player is back at a seat that is to act: their buttons are live again, their clock starts
    (a new turn message: the previous one, with its "I am back", loses its buttons). False when the
    seat is not to act."""
    state = tx.state
    if state is None or tx.stood_in(number) or number not in state.seats_to_act():
        return False
    seat = tx.seat(number)
    seat.keyboard_version = tx.game.version
    swapping = state.phase is Phase.SWAP
    tx.notify(NoticeKind.SWAP if swapping else NoticeKind.TURN, number, TurnPayload(tx.game.version))
    tx.computers_pending = False
    restart_clock(tx)
    return True


def drop_back_button(tx: GameTx, number: int, player_id: int) -> None:
    """The seat's game message told a stand-in's move with "👋 I am back": that button goes (the
    message asks nothing more; a seat to act gets a new turn message instead)."""
    message_id = tx.seat(number).private_message_id
    if message_id is not None:
        tx.notify(NoticeKind.TIDY, None, TidyPayload(Tidy.DROP_KEYBOARD, player_id, message_id))


async def away_until(core: Core, user_id: int) -> datetime | None:
    """Until when the player is away (None: they are not)."""
    async with core.sessions() as session:
        player = await repo.get_player(session=session, player_id=user_id)
    if player is None or player.away_until is None or player.away_until <= core.clock():
        return None
    return player.away_until
