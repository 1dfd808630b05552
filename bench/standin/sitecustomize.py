"""Bench only (bench/bot.py --decision-ms): in the bot process, the ``hard`` level becomes a
stand-in that burns BENCH_DECISION_MS of CPU per decision — pure Python, holding the GIL as a
search does — then plays like ``normal``. Loaded because bench/bot.py puts this folder on the bot
process's PYTHONPATH; nothing else sees it."""

from __future__ import annotations

import os
import time

import engine.ai
from engine.ai import HeuristicPlayer
from engine.moves import Move
from engine.views import NeighborView, ShitheadView

BUDGET = float(os.environ.get("BENCH_DECISION_MS", "0")) / 1000


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
