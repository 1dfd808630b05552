"""A game as a file, for operators: ``export`` (rules, players, the move log, and the seed — only
once the game is over, since the seed reveals every hand) and the checks ``replay`` makes on one."""

from __future__ import annotations

from typing import Any

from persistence.models import GameStatus
from shithead_bot.service.queries import record
from shithead_bot.service.unit import Core

FORMAT = "shithead-bot game"
VERSION = 1
OVER = (GameStatus.FINISHED, GameStatus.ABORTED)


async def export_game(core: Core, game_id: int) -> dict[str, Any]:
    """The game as plain JSON-able data; ``seed`` is None until the game is over."""
    game = await record(core, game_id)
    over = game.status in OVER
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game.id,
        "kind": game.kind,
        "status": str(game.status),
        "dealt": game.dealt,
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
            for s in game.seats
        ],
        "moves": [{"seq": m.seq, "seat": m.seat, "move": m.move, "actor": m.actor} for m in game.moves],
    }
