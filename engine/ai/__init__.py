"""Computer players. Each decides from its own seat's view only (it cannot peek).

Levels are data: ``LEVELS`` lists them weakest first, ``STRONGEST`` names the best, and
``make_player`` builds any of them the same way. The older names ``random`` and ``heuristic`` are
accepted as aliases of ``easy`` and ``normal`` (games stored before the levels were renamed).

``easy`` plays uniformly at random; ``normal`` is the heuristic (:mod:`engine.ai.heuristic`);
``hard`` searches (:mod:`engine.ai.search`): about 320 heuristic playouts per decision over worlds
dealt from its view, capped at 0.1 s of wall time. A new player per decision is fine: what it
remembers of the game (the cards it saw a seat pick up) is in the view, not in the player.

>>> from engine import new_game
>>> from engine.ai import make_player
>>> game = new_game("shithead", seats=2, seed=1)
>>> bot = make_player("normal", seed=1)
>>> move = bot.choose(game.view(0))
>>> move in game.legal_moves(0)
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from engine.ai.heuristic import HeuristicPlayer
from engine.ai.randomplayer import RandomPlayer
from engine.ai.search import SearchPlayer
from engine.errors import RulesError
from engine.moves import Move
from engine.views import NeighborView, ShitheadView


class Player(Protocol):
    """Anything that picks a legal move from a view."""

    def choose(self, view: ShitheadView | NeighborView) -> Move: ...


# Weakest first. Each entry builds a player from a seed.
REGISTRY: dict[str, Callable[[int], Player]] = {
    "easy": RandomPlayer,
    "normal": HeuristicPlayer,
    "hard": SearchPlayer,
}
LEVELS: tuple[str, ...] = tuple(REGISTRY)
STRONGEST = LEVELS[-1]
DEFAULT_LEVEL = "normal"
ALIASES = {"random": "easy", "heuristic": "normal"}


def level_name(level: str) -> str:
    """The level's current name (``heuristic`` → ``normal``); raises ``RulesError`` when unknown."""
    name = ALIASES.get(level, level)
    if name not in REGISTRY:
        raise RulesError(f"unknown computer level {level!r}; choose one of {', '.join(LEVELS)}")
    return name


def make_player(level: str, seed: int = 0) -> Player:
    """A computer player of that level, deterministic for a seed."""
    return REGISTRY[level_name(level)](seed)


__all__ = [
    "ALIASES",
    "DEFAULT_LEVEL",
    "LEVELS",
    "STRONGEST",
    "HeuristicPlayer",
    "Player",
    "RandomPlayer",
    "SearchPlayer",
    "level_name",
    "make_player",
]
