"""The ``hard`` level: determinized Monte Carlo search over worlds consistent with its view.

For each decision it deals the hidden cards again at random (:mod:`engine.ai.worlds`), plays every
candidate move in each such world, finishes the game with the fast heuristic policy
(:mod:`engine.ai.rollout`) and keeps the move with the best average result. The same worlds serve
every candidate (common random numbers), so the comparison is fair at a small budget.

It receives a view, never the state: it cannot read hidden cards, and its decision does not change
when they are shuffled (tests/engine/test_ai.py). The budget is a number of playouts, so a seed
fixes every decision; ``time_limit`` is only an upper cap for a loaded machine. Forced moves, the
swap phase and Neighbor go to the ``normal`` level.
"""

from __future__ import annotations

import random
import time

from engine.ai import neighbor_search
from engine.ai.heuristic import HeuristicPlayer
from engine.ai.rollout import playout
from engine.ai.worlds import hidden_cards, sample_world
from engine.common import Outcome, Phase
from engine.errors import NotYourTurnError
from engine.moves import Move
from engine.shithead import ShitheadState
from engine.views import NeighborView, ShitheadView

DEFAULT_PLAYOUTS = 160
DEFAULT_TIME_LIMIT = 0.1  # seconds: a cap, reached only when the machine is slow or busy


def score(outcome: Outcome | None, state: ShitheadState, seat: int) -> float:
    """How good the end is for ``seat``: 0 for the loser, up to 2 for first place."""
    n = state.seats
    if outcome is None:  # a playout that ran too long: judge by cards left
        left = [state.hand_count[s] + len(state.face_up[s]) + state.fd_count[s] for s in range(n)]
        place = 1 + sum(1 for s in range(n) if left[s] < left[seat])
        loser = all(left[s] < left[seat] for s in range(n) if s != seat)
    else:
        place = outcome.places[seat]
        loser = outcome.loser == seat
    return (0.0 if loser else 1.0) + (n - place) / (n - 1)


class SearchPlayer:
    """Determinized Monte Carlo: ``playouts`` playouts per decision, spread over the candidates."""

    def __init__(
        self, seed: int = 0, playouts: int = DEFAULT_PLAYOUTS, time_limit: float | None = DEFAULT_TIME_LIMIT
    ) -> None:
        self._rng = random.Random(seed)
        self._normal = HeuristicPlayer(seed)
        self.playouts = playouts
        self.time_limit = time_limit

    def choose(self, view: ShitheadView | NeighborView) -> Move:
        if not view.legal_moves:
            raise NotYourTurnError(f"seat {view.seat} has no move to make now")
        fallback = self._normal.choose(view)
        if isinstance(view, NeighborView):
            return neighbor_search.choose(view, fallback, self._rng)
        if view.phase is not Phase.PLAY or len(view.legal_moves) == 1:
            return fallback
        candidates = [fallback, *(m for m in view.legal_moves if m != fallback)]
        totals = self.evaluate(view, candidates)
        best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
        return candidates[best]

    def evaluate(self, view: ShitheadView, candidates: list[Move]) -> list[float]:
        """The summed playout score of each candidate over the same sampled worlds."""
        assert view.seat is not None
        seat, rng = view.seat, self._rng
        rnd = rng.random
        pool = hidden_cards(view)
        worlds = max(2, self.playouts // len(candidates))
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        totals = [0.0] * len(candidates)
        for _ in range(worlds):
            world = sample_world(view, rng, pool)
            for i, move in enumerate(candidates):
                trial = world.copy()
                trial.apply(seat, move)
                outcome = playout(trial, rnd)
                totals[i] += score(outcome, trial, seat)
            if deadline is not None and time.perf_counter() > deadline:
                break
        return totals
