"""Run as a separate OS process by test_pool: start the decision pool as the bot does (a hard
decision, from a thread), say so, then wait to be killed."""

from __future__ import annotations

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


if __name__ == "__main__":
    thinker = threading.Thread(target=decide_once)
    thinker.start()
    thinker.join()
    print("ready", flush=True)
    time.sleep(3600)
