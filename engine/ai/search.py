"""The ``hard`` level: determinized Monte Carlo search over worlds consistent with its view.

For each decision it deals the hidden cards again at random (:mod:`engine.ai.worlds`), plays every
candidate move in each such world, finishes the game with the fast heuristic policy
(:mod:`engine.ai.rollout`) and keeps the move with the best average result. The same worlds serve
every candidate (common random numbers), so the comparison is fair at a small budget.

It receives a view, never the state: it cannot read hidden cards, and its decision does not change
when they are shuffled (tests/engine/test_ai.py). The budget is a number of playouts, so a seed
fixes every decision; ``time_limit`` is only an upper cap for a loaded machine. Forced moves and the
choice of a face-down slot (all alike to anybody) go to the ``normal`` level, the swap to
:mod:`engine.ai.swap_search` (its own budget, whole games), Neighbor to :mod:`engine.ai.neighbor_search`.
"""

from __future__ import annotations

import random
import time

from engine.ai import neighbor_search, swap_search
from engine.ai.heuristic import HeuristicPlayer
from engine.ai.montecarlo import halving, score
from engine.ai.rollout import playout
from engine.ai.worlds import hidden_cards, sample_world
from engine.common import Phase
from engine.errors import NotYourTurnError
from engine.moves import Move, PlayFaceDown
from engine.shithead import ShitheadState
from engine.views import NeighborView, ShitheadView

DEFAULT_PLAYOUTS = 320
DEFAULT_TIME_LIMIT = 0.1  # seconds: a cap, reached only when the machine is slow or busy
FIRST_BONUS = 1.0  # what first place is worth above the even steps between places (montecarlo.score)


class SearchPlayer:
    """Determinized Monte Carlo: about ``playouts`` playouts per decision, spread over the candidates."""

    def __init__(
        self,
        seed: int = 0,
        playouts: int = DEFAULT_PLAYOUTS,
        time_limit: float | None = DEFAULT_TIME_LIMIT,
        neighbor_samples: int = neighbor_search.SAMPLES,
        swap_playouts: int = swap_search.PLAYOUTS,
    ) -> None:
        self._rng = random.Random(seed)
        self._normal = HeuristicPlayer(seed)
        self.playouts = playouts
        self.time_limit = time_limit
        self.neighbor_samples = neighbor_samples
        self.swap_playouts = swap_playouts

    def choose(self, view: ShitheadView | NeighborView) -> Move:
        if not view.legal_moves:
            raise NotYourTurnError(f"seat {view.seat} has no move to make now")
        fallback = self._normal.choose(view)
        if isinstance(view, NeighborView):
            return neighbor_search.choose(view, fallback, self._rng, self.neighbor_samples)
        if len(view.legal_moves) == 1 or all(isinstance(m, PlayFaceDown) for m in view.legal_moves):
            return fallback  # forced, or face-down slots that nobody can tell apart
        if view.phase is Phase.SWAP:
            searched = self.swap_playouts and len(view.seats) <= swap_search.MAX_SEATS
            return swap_search.choose(view, self.swap_playouts) if searched else fallback
        if view.phase is not Phase.PLAY:
            return fallback
        candidates = [fallback, *(m for m in view.legal_moves if m != fallback)]
        return candidates[self.best(view, candidates)]

    def best(self, view: ShitheadView, candidates: list[Move]) -> int:
        """The index of the best candidate (:func:`~engine.ai.montecarlo.halving`), each played in
        the same sampled worlds with the same playout random numbers."""
        assert view.seat is not None
        seat, rng = view.seat, self._rng
        pool = hidden_cards(view)
        worlds: list[tuple[ShitheadState, int]] = []  # and the seed of the world's playouts

        def trial(i: int, k: int) -> float:
            if k == len(worlds):
                worlds.append((sample_world(view, rng, pool), rng.getrandbits(64)))
            world, playout_seed = worlds[k]
            state = world.copy()
            state.apply(seat, candidates[i])
            return score(playout(state, random.Random(playout_seed).random), state, seat, FIRST_BONUS)

        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        return halving(len(candidates), trial, self.playouts, deadline)
