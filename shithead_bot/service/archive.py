"""A game as a file, for operators: ``export`` (rules, players, the move log, the deal's commitment,
and the seed, its salt and each move's events — only once the game is over, since they reveal every
hand), which ``replay`` tells and ``verify`` checks."""

from __future__ import annotations

from typing import Any

import engine
from shithead_bot.service.queries import record
from shithead_bot.service.status import GameStatus
from shithead_bot.service.unit import Core

FORMAT = "shithead-bot game"
VERSION = 2  # 2: the deal's commitment and salt, and each move's events
OVER = (GameStatus.FINISHED, GameStatus.ABORTED)


async def export_game(core: Core, game_id: int) -> dict[str, Any]:
    """The game as plain JSON-able data; ``seed`` and ``salt`` are None, and moves have no
    ``events``, until the game is over."""
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
        "salt": game.salt if over else None,
        "commitment": game.commitment,
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
        "moves": [
            {"seq": m.seq, "seat": m.seat, "move": m.move, "actor": m.actor}
            | ({"events": [engine.event_to_dict(e) for e in m.events]} if over else {})
            for m in game.moves
        ],
    }
