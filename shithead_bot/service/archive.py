"""A game as a file, for operators: ``export`` (rules, players, the move log, and the seed — only
once the game is over, since the seed reveals every hand) and the checks ``replay`` makes on one."""

from __future__ import annotations

from typing import Any

from persistence import repo
from persistence.models import GameStatus
from shithead_bot.service.errors import GameNotFoundError
from shithead_bot.service.snapshot import moves_of
from shithead_bot.service.unit import Core

FORMAT = "shithead-bot game"
VERSION = 1
OVER = (GameStatus.FINISHED, GameStatus.ABORTED)


async def export_game(core: Core, game_id: int) -> dict[str, Any]:
    """The game as plain JSON-able data; ``seed`` is None until the game is over."""
    async with core.sessions() as session:
        game = await repo.get_game(session=session, game_id=game_id)
        if game is None:
            raise GameNotFoundError(f"no game {game_id}")
        seats = await repo.seats_of(session=session, game_id=game_id)
        log = moves_of(await repo.moves_of(session=session, game_id=game_id))
    status = GameStatus(game.status)
    over = status in OVER
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game.id,
        "kind": game.kind,
        "status": str(status),
        "dealt": game.snapshot is not None,
        "rules": dict(game.rules),
        "dealer": game.dealer,
        "seed": game.seed if over else None,
        "players": [
            {
                "seat": s.number,
                "name": s.name,
                "computer": s.computer_level,
                "place": s.place,
                "loser": s.is_loser,
                "forfeited": s.forfeited,
            }
            for s in seats
        ],
        "moves": [{"seq": m.seq, "seat": m.seat, "move": m.move, "actor": m.actor} for m in log],
    }
