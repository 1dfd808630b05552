"""Reading: snapshots of games for rendering, a player's games, the move log, replays, statistics.
Every answer is a frozen value (see :mod:`snapshot`); nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta

import engine
from engine import AnyState, rules_from_dict
from persistence import repo
from shithead_bot.service.errors import GameNotFoundError
from shithead_bot.service.snapshot import (
    ChatSnapshot,
    GameInfo,
    GameRecord,
    GameSnapshot,
    MoveLine,
    SeatSnapshot,
    moves_of,
)
from shithead_bot.service.status import OPEN_STATUSES, GameStatus
from shithead_bot.service.unit import Core


@dataclass(frozen=True)
class PlayerGame:
    """One of a player's games: the game, their seat, and the chat it is played in."""

    game: GameInfo
    seat: SeatSnapshot
    chat: ChatSnapshot


@dataclass(frozen=True)
class PlayerRecord:
    """A player's finished games across every chat."""

    games: int
    firsts: int
    losers: int
    average_place: float
    stood_in_moves: int = 0  # moves a stand-in made for the player (away, or after timeouts)
    stood_in_games: int = 0  # …in this many of the games


@dataclass(frozen=True)
class PresetCount:
    """How many finished games were played with a preset of a game kind, and their average length."""

    kind: str
    preset: str
    games: int
    average_moves: float


async def game_view(core: Core, game_id: int) -> GameSnapshot:
    """A game, its seats and chat, as they are now."""
    async with core.sessions() as session:
        return (await core.load(session, game_id, write=False)).snapshot()


async def game_and_moves(core: Core, game_id: int, count: int = 40) -> GameSnapshot:
    """A game with its newest moves (for delivering notices), read in one session."""
    async with core.sessions() as session:
        tx = await core.load(session, game_id, write=False)
        return tx.snapshot(moves_of(await repo.last_moves(session=session, game_id=game_id, count=count)))


async def open_game(core: Core, chat_id: int) -> GameInfo | None:
    """The chat's game that is not over yet, if any."""
    async with core.sessions() as session:
        game = await repo.open_game_in_chat(session=session, chat_id=chat_id)
        return GameInfo.of(game) if game is not None else None


async def games_of(core: Core, player_id: int, *, open_only: bool = True) -> list[PlayerGame]:
    """A player's games, newest first."""
    async with core.sessions() as session:
        found = await repo.games_of_player(session=session, player_id=player_id, open_only=open_only)
        return [PlayerGame(GameInfo.of(g.game), SeatSnapshot.of(g.seat), ChatSnapshot.of(g.chat)) for g in found]


async def recent_moves(core: Core, game_id: int, count: int = 30) -> tuple[MoveLine, ...]:
    async with core.sessions() as session:
        return moves_of(await repo.last_moves(session=session, game_id=game_id, count=count))


async def moves(core: Core, game_id: int) -> tuple[MoveLine, ...]:
    async with core.sessions() as session:
        return moves_of(await repo.moves_of(session=session, game_id=game_id))


async def record(core: Core, game_id: int) -> GameRecord:
    """Rules, seed, seats and the whole move log: what replays the game."""
    async with core.sessions() as session:
        game = await repo.get_game(session=session, game_id=game_id)
        if game is None:
            raise GameNotFoundError(f"no game {game_id}")
        seats = await repo.seats_of(session=session, game_id=game_id)
        log = moves_of(await repo.moves_of(session=session, game_id=game_id))
    names = tuple(s.name for s in seats)
    dealt = game.snapshot is not None
    return GameRecord(
        id=game.id or 0,
        kind=game.kind,
        rules=dict(game.rules),
        seed=game.seed,
        dealer=game.dealer,
        status=GameStatus(game.status),
        dealt=dealt,
        names=names,
        moves=log,
        seats=tuple(SeatSnapshot.of(s) for s in seats),
        salt=game.deal_salt,
        commitment=game.deal_commitment,
    )


async def rebuild(core: Core, game_id: int) -> AnyState:
    """The game replayed from its seed and move log (equal to the stored snapshot)."""
    found = await record(core, game_id)
    if not found.dealt:
        raise GameNotFoundError(f"game {game_id} has not been dealt")
    rules = rules_from_dict(found.kind, found.rules)
    played = [(m.seat, m.move) for m in found.moves]
    return engine.replay(found.kind, rules, len(found.names), found.seed, played, found.dealer)


ENDED_COUNTED_EVERY = timedelta(minutes=10)


async def vitals(core: Core) -> repo.Vitals:
    """Games by status, moves, the outbox backlog and overdue timers (for metrics). The open games
    are counted every time; the ended ones (finished, aborted: the whole history) every
    :data:`ENDED_COUNTED_EVERY`, in between the last count is given again."""
    now = core.clock()
    counted = core.ended_games
    again = counted is None or now - counted[0] >= ENDED_COUNTED_EVERY
    async with core.sessions() as session:
        found = await repo.vitals(session=session, now=now, ended=again)
    if again:
        counted = core.ended_games = (now, {s: n for s, n in found.games.items() if s not in OPEN_STATUSES})
    assert counted is not None
    return replace(found, games={**counted[1], **found.games})


async def ping(core: Core) -> None:
    """Raises if the database does not answer (for the health check)."""
    async with core.sessions() as session:
        await repo.ping(session=session)


async def player_record(core: Core, player_id: int) -> PlayerRecord | None:
    """A player's finished games across every chat."""
    async with core.sessions() as session:
        row = await repo.player_stats(session=session, player_id=player_id)
    if row is None:
        return None
    return PlayerRecord(row.games, row.firsts, row.losers, row.average_place, row.stood_in_moves, row.stood_in_games)


async def games_per_preset(core: Core, chat_id: int) -> list[PresetCount]:
    """The chat's finished games per game kind and preset, most played first."""
    async with core.sessions() as session:
        rows = await repo.preset_stats(session=session, status=GameStatus.FINISHED, chat_id=chat_id)
    return [PresetCount(row.kind, row.preset, row.games, row.average_moves) for row in rows]
