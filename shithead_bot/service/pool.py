"""Slow computer levels (``hard``) decide in a worker process, so a search never holds the GIL that
the event loop needs.

The worker gets what a decision depends on and nothing more: the player's factory (the level's
entry in :data:`engine.ai.REGISTRY`), the seed, and the deciding seat's own view — never the state,
so a computer sees only what its seat may know. The search's 0.1 s cap is kept in the worker, as
it was in the thread. One worker, started lazily (``forkserver``: nothing of the bot's threads or
event loop is forked) and shut down at exit; a worker that dies is replaced, and the decision is
then made here instead, so it is never lost. A worker is replaced after :data:`TASKS_PER_WORKER`
decisions too, so that nothing a decision leaves behind (a cache, a fragmented heap) grows for the
life of the bot; the next one is started as the old one leaves, not when a decision waits for it.

A bot that is killed (SIGKILL, the OOM killer) runs no exit handler, and nothing of
multiprocessing's notices it: the worker waits on a queue whose write end it holds itself, and the
forkserver waits for the end of a pipe the worker holds too. So the worker is handed the read end of
a pipe only the bot writes to, and exits when it reads its end; the forkserver, then the resource
tracker, follow by themselves. (A parent-death signal would not do: the worker's parent is the
forkserver, not the bot.)
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection

from engine import AnyState, Move, NeighborView, ShitheadView
from engine.ai import REGISTRY, Player, level_name
from shithead_bot.service.autoplay import computer_move

IN_PROCESS_LEVELS = frozenset({"easy", "normal"})  # microseconds a decision: not worth a process
WORKERS = 1  # the thinking thread sends one decision at a time; a core stays free for the loop
TASKS_PER_WORKER = 500  # decisions a worker makes before it is replaced

_pool: ProcessPoolExecutor | None = None
_alive: Connection | None = None  # the write end of the workers' liveness pipe: only this process holds it
_lock = threading.Lock()
decided = 0  # decisions made in the worker (for tests and benchmarks)


def decision_pool() -> ProcessPoolExecutor:
    """The worker pool, started on first use."""
    global _pool, _alive
    with _lock:
        if _pool is None:
            context = multiprocessing.get_context("forkserver")
            watched, _alive = context.Pipe(duplex=False)
            _pool = ProcessPoolExecutor(
                max_workers=WORKERS,
                mp_context=context,
                initializer=watch_parent,  # each worker, a replacement too, watches the bot
                initargs=(watched,),
                max_tasks_per_child=TASKS_PER_WORKER,
            )
        return _pool


def shutdown() -> None:
    """Stop the workers (at exit; safe to call again: the next decision starts a new pool)."""
    global _pool, _alive
    with _lock:
        pool, _pool = _pool, None
        alive, _alive = _alive, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)
    if alive is not None:
        alive.close()


def watch_parent(watched: Connection) -> None:
    """In a worker, first: exit as soon as the bot is gone (its end of ``watched`` closes)."""
    threading.Thread(target=_exit_when_closed, args=(watched,), name="parent-watch", daemon=True).start()


def _exit_when_closed(watched: Connection) -> None:
    with contextlib.suppress(EOFError, OSError):
        watched.recv_bytes()  # nothing is ever sent: this returns only at the end of the pipe
    os._exit(0)  # at once: no decision in hand is wanted by anyone now


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
