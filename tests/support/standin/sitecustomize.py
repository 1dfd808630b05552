"""For benchmarks and end-to-end tests only: in a bot process started with this folder on its
PYTHONPATH and STANDIN_DECISION_MS set, the ``hard`` level becomes a stand-in that burns that many
ms of CPU per decision — pure Python, holding the GIL as a search does — then plays like
``normal``. With STANDIN_INLINE set, every decision is made inline instead (in the transaction, on
the event loop: the design without the thinking thread, for comparison); with STANDIN_THREAD set,
``hard`` decides in the thinking thread, not in the worker process (the design before
``service/pool.py``, for comparison). See :func:`standin_env`'s
callers (bench/bot.py --decision-ms, tests/e2e/test_levels.py)."""

from __future__ import annotations

import os
import time

import engine.ai
from engine.ai import HeuristicPlayer
from engine.moves import Move
from engine.views import NeighborView, ShitheadView

BUDGET = float(os.environ.get("STANDIN_DECISION_MS", "0")) / 1000


class StandIn:
    def __init__(self, seed: int) -> None:
        self.inner = HeuristicPlayer(seed)

    def choose(self, view: ShitheadView | NeighborView) -> Move:
        until, spins = time.perf_counter() + BUDGET, 0
        while time.perf_counter() < until:
            spins += sum(range(200))  # busy, in Python
        return self.inner.choose(view)


if BUDGET:
    engine.ai.REGISTRY["hard"] = StandIn
if os.environ.get("STANDIN_INLINE"):  # for comparison: every decision inline, on the event loop
    from shithead_bot.service import thinking

    thinking.QUICK_SECONDS = thinking.INLINE_BUDGET_SECONDS = float("inf")
if os.environ.get("STANDIN_THREAD"):  # for comparison: hard decides in the thread, holding its GIL
    from shithead_bot.service import pool

    pool.IN_PROCESS_LEVELS = frozenset(engine.ai.REGISTRY)
