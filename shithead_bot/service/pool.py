"""Slow computer levels (``hard``) decide in a worker process, so a search never holds the GIL that
the event loop needs.

The worker gets what a decision depends on and nothing more: the player's factory (the level's
entry in :data:`engine.ai.REGISTRY`), the seed, and the deciding seat's own view — never the state,
so a computer sees only what its seat may know. The search's 0.1 s cap is kept in the worker, as
it was in the thread. One worker, started lazily (``forkserver``: nothing of the bot's threads or
event loop is forked) and shut down at exit; a worker that dies is replaced, and the decision is
then made here instead, so it is never lost.
"""

from __future__ import annotations

import atexit
import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from engine import AnyState, Move, NeighborView, ShitheadView
from engine.ai import REGISTRY, Player, level_name
from shithead_bot.service.autoplay import computer_move

IN_PROCESS_LEVELS = frozenset({"easy", "normal"})  # microseconds a decision: not worth a process
WORKERS = 1  # the thinking thread sends one decision at a time; a core stays free for the loop

_pool: ProcessPoolExecutor | None = None
_lock = threading.Lock()
decided = 0  # decisions made in the worker (for tests and benchmarks)


def decision_pool() -> ProcessPoolExecutor:
    """The worker pool, started on first use."""
    global _pool
    with _lock:
        if _pool is None:
            context = multiprocessing.get_context("forkserver")
            _pool = ProcessPoolExecutor(max_workers=WORKERS, mp_context=context)
        return _pool


def shutdown() -> None:
    """Stop the workers (at exit; safe to call again: the next decision starts a new pool)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


atexit.register(shutdown)


def choose(factory: Callable[[int], Player], seed: int, view: ShitheadView | NeighborView) -> Move:
    """In the worker: the decision of a player of that level and seed, from the seat's view."""
    return factory(seed).choose(view)


def decide(state: AnyState, seat: int, level: str, seed: int) -> Move:
    """A computer's decision, the same as :func:`~shithead_bot.service.autoplay.computer_move`'s;
    a slow level's is made in the worker process (call from a thread: this waits for it)."""
    global decided
    name = level_name(level)
    if name in IN_PROCESS_LEVELS:
        return computer_move(state, seat, level, seed)
    try:
        move = decision_pool().submit(choose, REGISTRY[name], seed, state.view(seat)).result()
    except BrokenProcessPool:
        shutdown()
        return computer_move(state, seat, level, seed)
    decided += 1
    return move
