"""Small builders for service tests."""

from __future__ import annotations

import itertools

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from engine.ai import make_player
from shithead_bot.config import Settings
from shithead_bot.service import Autoplay, GameService, Result, UserInfo
from testkit.clock import FakeClock

GROUP = -1001


def user(n: int) -> UserInfo:
    return UserInfo(id=100 + n, first_name=f"User{n}", username=f"user{n}", language="en")


def make_service(sessions: async_sessionmaker[AsyncSession], clock: FakeClock, **settings: object) -> GameService:
    seeds = itertools.count(1000)
    return GameService(sessions, Settings(**settings), clock=clock, seed_source=lambda: next(seeds))  # type: ignore[arg-type]


async def lobby_with(
    service: GameService,
    humans: int,
    computers: int = 0,
    *,
    chat_id: int = GROUP,
    kind: str | None = None,
    preset: str | None = None,
    level: str = "heuristic",
    autoplay: Autoplay | None = None,
) -> int:
    """A lobby with ``humans`` players (who all started the bot) and ``computers`` computer seats
    (``autoplay``: the players' setting, for tests of what happens to a move that is theirs)."""
    for n in range(humans):
        await service.see_user(user(n), can_message=True)
        if autoplay is not None:
            await service.set_autoplay(user(n), autoplay)
    result = await service.open_lobby(chat_id, user(0), kind=kind, preset=preset, chat_title="Friends")
    for n in range(1, humans):
        await service.join(result.game_id, user(n))
    for _ in range(computers):
        await service.add_computer(result.game_id, user(0).id, level)
    return result.game_id


async def play_humans_to_end(service: GameService, game_id: int, *, seed: int = 0, limit: int = 20_000) -> int:
    """Every human seat plays heuristic moves through the service until the game ends."""
    moves = 0
    bots = {}
    while moves < limit:
        ctx = await service.game_view(game_id)
        if ctx.game.status not in ("swapping", "playing"):
            return moves
        assert ctx.state is not None
        number = next(s for s in ctx.state.seats_to_act() if not ctx.seat(s).computer_level)
        seat = ctx.seat(number)
        bot = bots.setdefault(number, make_player("heuristic", seed + number))
        move = bot.choose(ctx.state.view(number))
        assert seat.player_id is not None
        result = await service.play(game_id, seat.player_id, move, seat.keyboard_version)
        if result.thinking:  # the computers think before they move: they play on, as after a press
            await service.play_on(game_id)
        moves += 1
    raise AssertionError(f"game {game_id} did not end within {limit} human moves")


def kinds(result: Result) -> list[str]:
    return [str(n.kind) for n in result.notices]


async def time_out(service: GameService, clock: FakeClock, game_id: int, version: int | None = None) -> Result:
    """What the timer sweep does at a turn's deadline: the clock reaches it and the game's due timer
    fires (``version``: the one the sweep saw; the game's current one by default)."""
    ctx = await service.game_view(game_id)
    assert ctx.game.deadline_at is not None
    clock.now = max(clock.now, ctx.game.deadline_at)
    result = await service.fire_due(game_id, ctx.game.version if version is None else version)
    assert result is not None
    return result
