"""Run as a separate OS process by test_pool: start the decision pool as the bot does (a hard
decision, from a thread), say so, then wait to be killed. With ``recycled``, the worker left running
is one that replaced a worker that made its share of decisions."""

from __future__ import annotations

import os
import sys
import threading
import time

from engine import PRESETS, new_game
from shithead_bot.service import pool


def decide_once() -> None:
    state = new_game("shithead", PRESETS["standard"], 3, 11)
    for seat in range(3):
        state.apply(seat, "r")
    seat = state.to_act
    assert seat is not None
    pool.decide(state, seat, "hard", 5)


def replaced() -> None:
    """One more task (on a worker that replaced the one that decided), then wait for the worker that
    replaces that one too."""
    done = pool.decision_pool().submit(os.getpid).result()
    while not [p for p in pool.decision_pool()._processes.values() if p.pid != done and p.is_alive()]:
        time.sleep(0.01)


if __name__ == "__main__":
    recycled = "recycled" in sys.argv
    if recycled:
        pool.TASKS_PER_WORKER = 1
    thinker = threading.Thread(target=decide_once)
    thinker.start()
    thinker.join()
    if recycled:
        replaced()
    print("ready", flush=True)
    time.sleep(3600)
