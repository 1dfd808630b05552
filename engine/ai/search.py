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

import math
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

DEFAULT_PLAYOUTS = 320
DEFAULT_TIME_LIMIT = 0.1  # seconds: a cap, reached only when the machine is slow or busy


def score(outcome: Outcome | None, state: ShitheadState, seat: int) -> float:
    """How good the end is for ``seat``: its finishing place, 1 for first down to 0 for last.

    At 4 seats each place up is worth the same (at 2 seats it is simply a win or a loss). A bonus
    for first place, 0.5 or 1.5 above the even steps, won no more first places against three
    ``normal`` players and lost some safety (the deals of bench/ai.py, 200–400 games each), so
    there is none.
    """
    n = state.seats
    if outcome is None:  # a playout that ran too long: judge by cards left
        left = [state.hand_count[s] + len(state.face_up[s]) + state.fd_count[s] for s in range(n)]
        place = 1 + sum(1 for s in range(n) if left[s] < left[seat])
    else:
        place = outcome.places[seat]
    return (n - place) / (n - 1)


class SearchPlayer:
    """Determinized Monte Carlo: about ``playouts`` playouts per decision, spread over the candidates."""

    def __init__(
        self,
        seed: int = 0,
        playouts: int = DEFAULT_PLAYOUTS,
        time_limit: float | None = DEFAULT_TIME_LIMIT,
        neighbor_samples: int = neighbor_search.SAMPLES,
    ) -> None:
        self._rng = random.Random(seed)
        self._normal = HeuristicPlayer(seed)
        self.playouts = playouts
        self.time_limit = time_limit
        self.neighbor_samples = neighbor_samples

    def choose(self, view: ShitheadView | NeighborView) -> Move:
        if not view.legal_moves:
            raise NotYourTurnError(f"seat {view.seat} has no move to make now")
        fallback = self._normal.choose(view)
        if isinstance(view, NeighborView):
            return neighbor_search.choose(view, fallback, self._rng, self.neighbor_samples)
        if view.phase is not Phase.PLAY or len(view.legal_moves) == 1:
            return fallback
        candidates = [fallback, *(m for m in view.legal_moves if m != fallback)]
        return candidates[self.best(view, candidates)]

    def best(self, view: ShitheadView, candidates: list[Move]) -> int:
        """The index of the best candidate, by sequential halving over shared sampled worlds.

        The budget is split over ``ceil(log2(len(candidates)))`` rounds; each round plays every
        remaining candidate in the next worlds of one shared list (the same worlds and the same
        playout random numbers for all, so their scores compare fairly), then keeps the better half.
        Ties keep the earlier candidate.
        """
        assert view.seat is not None
        seat, rng = view.seat, self._rng
        pool = hidden_cards(view)
        worlds: list[tuple[ShitheadState, int]] = []  # and the seed of the world's playouts
        totals = [0.0] * len(candidates)
        counts = [0] * len(candidates)
        alive = list(range(len(candidates)))
        rounds = max(1, math.ceil(math.log2(len(candidates))))
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit

        def mean(i: int) -> tuple[float, int]:
            return (totals[i] / counts[i] if counts[i] else 0.0, -i)

        for _ in range(rounds):
            for _ in range(max(1, self.playouts // (rounds * len(alive)))):
                for i in alive:
                    k = counts[i]
                    if k == len(worlds):
                        worlds.append((sample_world(view, rng, pool), rng.getrandbits(64)))
                    world, playout_seed = worlds[k]
                    trial = world.copy()
                    trial.apply(seat, candidates[i])
                    outcome = playout(trial, random.Random(playout_seed).random)
                    totals[i] += score(outcome, trial, seat)
                    counts[i] += 1
                if deadline is not None and time.perf_counter() > deadline:
                    return max(alive, key=mean)
            alive = sorted(alive, key=mean, reverse=True)[: max(1, (len(alive) + 1) // 2)]
        return max(alive, key=mean)
