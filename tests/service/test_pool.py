"""Slow levels decide in a worker process from their seat's view; the pool starts lazily and stops cleanly."""

from __future__ import annotations

import os

from engine import PRESETS, Play, new_game
from shithead_bot.service import pool


def test_a_hard_decision_comes_from_the_worker_and_is_legal() -> None:
    state = new_game("shithead", PRESETS["standard"], 3, 11)
    for seat in range(3):
        state.apply(seat, "r")
    seat = state.to_act
    assert seat is not None
    before = pool.decided
    move = pool.decide(state, seat, "hard", 5)
    assert move in state.legal_moves(seat)
    assert pool.decided == before + 1
    pids = {p.pid for p in pool.decision_pool()._processes.values()}
    assert pids
    assert os.getpid() not in pids
    pool.shutdown()
    pool.shutdown()  # twice is fine
    assert isinstance(pool.decide(state, seat, "hard", 5), Play)  # a new pool
    pool.shutdown()


def test_quick_levels_stay_in_this_process() -> None:
    state = new_game("shithead", PRESETS["standard"], 2, 3)
    before = pool.decided
    pool.decide(state, 0, "normal", 1)
    assert pool.decided == before
