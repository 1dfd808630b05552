"""Computer players. Each decides from its own seat's view only (it cannot peek).

>>> from engine import new_game
>>> from engine.ai import make_player
>>> game = new_game("shithead", seats=2, seed=1)
>>> bot = make_player("heuristic", seed=1)
>>> move = bot.choose(game.view(0))
>>> move in game.legal_moves(0)
True
"""

from __future__ import annotations

from typing import Protocol

from engine.ai.heuristic import HeuristicPlayer
from engine.ai.randomplayer import RandomPlayer
from engine.errors import RulesError
from engine.moves import Move
from engine.views import NeighborView, ShitheadView

LEVELS = ("random", "heuristic")


class Player(Protocol):
    """Anything that picks a legal move from a view."""

    def choose(self, view: ShitheadView | NeighborView) -> Move: ...


def make_player(level: str, seed: int = 0) -> Player:
    """A computer player of that level (``random`` or ``heuristic``), deterministic for a seed."""
    if level == "random":
        return RandomPlayer(seed)
    if level == "heuristic":
        return HeuristicPlayer(seed)
    raise RulesError(f"unknown computer level {level!r}; choose one of {', '.join(LEVELS)}")


__all__ = ["LEVELS", "HeuristicPlayer", "Player", "RandomPlayer", "make_player"]
