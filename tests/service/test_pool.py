"""Slow levels decide in a worker process from their seat's view; the pool starts lazily and stops cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import PRESETS, Play, new_game
from shithead_bot.service import pool

ROOT = Path(__file__).resolve().parents[2]
LEFTOVER_WAIT = 30.0  # seconds for the orphans to notice; they take well under one


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


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (Linux: from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        state = process_state(int(entry.name)) if entry.name.isdigit() else None
        if state is not None:
            children.setdefault(state[1], []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def process_state(pid: int) -> tuple[str, int] | None:
    """A process's state letter and parent; None when it is gone (a zombie is gone: it runs nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state, parent = stat.rpartition(")")[2].split()[:2]
    return None if state in ("Z", "X") else (state, int(parent))


def test_a_worker_is_replaced_after_its_share_of_decisions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a decision leaves in the worker's memory goes with the worker: it is not the bot's life."""
    pool.shutdown()
    monkeypatch.setattr(pool, "TASKS_PER_WORKER", 2)
    try:
        pids = [pool.decision_pool().submit(os.getpid).result() for _ in range(6)]
    finally:
        pool.shutdown()
    assert [pids.count(pid) for pid in dict.fromkeys(pids)] == [2, 2, 2]
    assert os.getpid() not in pids


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("recycled", [False, True], ids=["first worker", "a replacement"])
def test_the_workers_go_when_the_bot_is_killed(recycled: bool) -> None:
    """A SIGKILLed bot runs no atexit: its forkserver, worker (and resource tracker) must notice on
    their own, or every restart under a supervisor leaves three more processes behind — a worker that
    replaced one that made its share of decisions too."""
    args = ["recycled"] if recycled else []
    parent = subprocess.Popen(
        [sys.executable, "-m", "tests.service.pool_parent", *args], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        assert parent.stdout.readline().strip() == "ready"
        left = descendants(parent.pid)
        assert len(left) >= 2  # the forkserver and its worker, at least
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + LEFTOVER_WAIT
    while any(process_state(pid) for pid in left) and time.monotonic() < deadline:
        time.sleep(0.1)
    still = [pid for pid in left if process_state(pid)]
    for pid in still:  # not to leave them to the next test run
        os.kill(pid, signal.SIGKILL)
    assert still == []
