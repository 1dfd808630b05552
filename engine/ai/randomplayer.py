"""A computer player that picks uniformly among its legal moves."""

from __future__ import annotations

import random

from engine.errors import NotYourTurnError
from engine.moves import Move
from engine.views import NeighborView, ShitheadView


class RandomPlayer:
    """Uniformly random legal moves, from a seeded RNG."""

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: ShitheadView | NeighborView) -> Move:
        if not view.legal_moves:
            raise NotYourTurnError(f"seat {view.seat} has no move to make now")
        return self._rng.choice(view.legal_moves)
