"""Computer players think off the event loop and outside the transaction.

A computer's decision is a pure function of (game state, seat, level, seed) — see
:func:`~shithead_bot.service.autoplay.computer_move` — so it can be worked out ahead and
remembered. When a use case meets a decision that is not known yet and would be slow (a search
level takes up to ~100 ms), :func:`~shithead_bot.service.turns.play_computers` raises
:class:`ThinkFirst`: the transaction is rolled back (nothing written, its locks released), the
:class:`Thinker` plays the computers' chain out on a copy in a worker thread, remembering each
decision, and the use case runs again, now finding every decision at once — a short transaction,
and an event loop that stays free between decisions. The rerun draws the same seeds
(:class:`SeedTape`), so a deal is the same deal. Quick levels are decided inline, within a small
budget per transaction.

A rerun is as safe as :func:`~shithead_bot.service.faults.retry_transient`'s: nothing of the first
attempt was committed. A decision is only reused for the very state it was made for (the key is a
digest of the whole state), so a rerun that meets another state (another move won the race) just
thinks again or, after a few rounds, decides inline.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Mapping
from concurrent.futures import Executor, ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import ParamSpec, Protocol, TypeVar, cast

from engine import AnyState, Move
from engine.ai import level_name
from shithead_bot.service import pool
from shithead_bot.service.autoplay import computer_move, computer_seed, next_computer, next_forced

log = logging.getLogger(__name__)

T = TypeVar("T")
P = ParamSpec("P")

QUICK_LEVELS = frozenset({"easy", "normal"})  # microseconds a decision: always inline, whatever one took
QUICK_SECONDS = 0.002  # another level whose decisions take at most this long is decided inline
INLINE_BUDGET_SECONDS = 0.02  # inline thinking per transaction, at most (then it is deferred)
DECAY = 0.98  # how fast the memory of a slow decision fades
MAX_REMEMBERED = 4096
CHAIN_CAP = 500  # decisions worked out ahead in one go, at most

_deferring: ContextVar[bool] = ContextVar("deferring", default=False)
_tape: ContextVar[SeedTape | None] = ContextVar("seed_tape", default=None)
_executor: Executor | None = None


def thinking_executor() -> Executor:
    """One worker thread for every game: with the GIL, more threads would not think faster."""
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="thinker")
    return _executor


@dataclass
class Chain:
    """Where a chain of computer moves starts: a private copy of the state, the computer seats'
    levels, and what their seeds are made of."""

    state: AnyState
    levels: dict[int, str]
    game_seed: int
    move_count: int
    autoplay: dict[int, str] = field(default_factory=dict)  # seat -> its player's autoplay setting


class ThinkFirst(Exception):  # a request to think, not an error
    """A slow decision is not known yet: roll back, think (off the loop), run the use case again."""

    def __init__(self, chain: Chain) -> None:
        super().__init__("computer players must think first")
        self.chain = chain


@dataclass
class SeedTape:
    """The seeds one use-case call drew, replayed in the same order when it runs again."""

    seeds: list[int] = field(default_factory=list)
    position: int = 0

    def rewind(self) -> None:
        self.position = 0


def draw_seed(source: Callable[[], int]) -> int:
    """The next seed of this use-case call: replayed when it runs again, else drawn from ``source``."""
    tape = _tape.get()
    if tape is None:
        return source()
    if tape.position == len(tape.seeds):
        tape.seeds.append(source())
    tape.position += 1
    return tape.seeds[tape.position - 1]


@contextlib.contextmanager
def deferring(allowed: bool) -> Iterator[None]:
    token = _deferring.set(allowed)
    try:
        yield
    finally:
        _deferring.reset(token)


@contextlib.contextmanager
def seed_tape() -> Iterator[SeedTape]:
    tape = SeedTape()
    token = _tape.set(tape)
    try:
        yield tape
    finally:
        _tape.reset(token)


def decision_key(state: AnyState, seat: int, level: str, seed: int) -> bytes:
    """Everything a decision depends on, digested (the whole state: more than the seat's view)."""
    text = json.dumps(state.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(f"{seat}|{level}|{seed}|{text}".encode(), digest_size=20).digest()


@dataclass
class Thought:
    key: bytes
    level: str
    move: Move
    seconds: float


def think_chain(chain: Chain) -> list[Thought]:
    """Play the computers' chain out on the chain's copy (in a worker thread): every decision."""
    state, count, thoughts = chain.state, chain.move_count, []
    for _ in range(CHAIN_CAP):
        found = next_computer(state, chain.levels)
        if found is None:
            forced = next_forced(state, chain.levels, chain.autoplay)  # made for a human, as in the use case
            if forced is None:
                break
            state.apply(*forced)
            count += 1
            continue
        seat, level = found
        seed = computer_seed(chain.game_seed, count)
        started = time.perf_counter()
        move = pool.decide(state, seat, level, seed)  # a slow level: in a worker process
        thoughts.append(Thought(decision_key(state, seat, level, seed), level, move, time.perf_counter() - started))
        state.apply(seat, move)
        count += 1
    return thoughts


class Thinker:
    """Remembers computers' decisions and how slow each level is; thinks ahead off the loop."""

    def __init__(self, executor: Executor | None = None) -> None:
        self._executor = executor
        self._known: OrderedDict[bytes, Move] = OrderedDict()
        self._slowest: dict[str, float] = {}  # level -> its slowest recent decision (decaying)
        self._thinking: dict[bytes, asyncio.Future[None]] = {}
        self.thought = 0  # decisions made ahead, off the loop (for tests and benchmarks)
        self.inline = 0  # decisions made inline

    def decide(self, state: AnyState, seat: int, level: str, seed: int, spent: float) -> tuple[Move | None, float]:
        """The decision if known or quick enough to make now (and the seconds spent making it);
        None when it must be thought about first (only where a use case may run again)."""
        key = decision_key(state, seat, level, seed)
        move = self._known.get(key)
        if move is not None:
            return move, 0.0
        if _deferring.get() and (self._slow(level) or spent > INLINE_BUDGET_SECONDS):
            return None, 0.0
        started = time.perf_counter()
        move = computer_move(state, seat, level, seed)
        seconds = time.perf_counter() - started
        self._learn(level, seconds)
        self.inline += 1
        return move, seconds

    async def think(self, chain: Chain) -> None:
        """Work the chain out in the thinking thread and remember it; a chain already being
        thought about (a double tap) is waited for, not thought about twice."""
        found = next_computer(chain.state, chain.levels)
        if found is None:
            return
        first = decision_key(chain.state, found[0], found[1], computer_seed(chain.game_seed, chain.move_count))
        pending = self._thinking.get(first)
        if pending is not None:
            await asyncio.shield(pending)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._thinking[first] = future
        started = time.perf_counter()
        try:
            executor = self._executor or thinking_executor()
            thoughts = await asyncio.get_running_loop().run_in_executor(executor, think_chain, chain)
            for thought in thoughts:
                self._remember(thought.key, thought.move)
                self._learn(thought.level, thought.seconds)
            self.thought += len(thoughts)
            seconds = time.perf_counter() - started
            report = log.info if seconds > 1 else log.debug
            report("thought %d computer moves ahead in %.2f s", len(thoughts), seconds)
        finally:
            del self._thinking[first]
            future.set_result(None)

    def _remember(self, key: bytes, move: Move) -> None:
        self._known[key] = move
        self._known.move_to_end(key)
        while len(self._known) > MAX_REMEMBERED:
            self._known.popitem(last=False)

    def _slow(self, level: str) -> bool:
        """Think first? Not for the quick levels (one decision slowed by a cold start or a busy
        machine must not send them to the thread for good); others by their slowest recent one."""
        if level_name(level) in QUICK_LEVELS:
            return False
        return self._slowest.get(level, 1.0) > QUICK_SECONDS

    def _learn(self, level: str, seconds: float) -> None:
        self._slowest[level] = max(seconds, self._slowest.get(level, seconds) * DECAY)

    def slowest(self) -> Mapping[str, float]:
        return dict(self._slowest)


class HasThinker(Protocol):
    """What :func:`think_first` needs of a use case's first argument (the Core)."""

    thinker: Thinker


THINKING_ROUNDS = 3  # then the computers' decisions are made inside the transaction


def think_first(fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """Run the use case (its first argument the Core) again after its computers thought ahead
    (:class:`ThinkFirst`), outside the transaction and off the event loop; a rerun draws the same
    seeds."""

    @functools.wraps(fn)
    async def run(*args: P.args, **kwargs: P.kwargs) -> T:
        core = cast(HasThinker, args[0])
        with seed_tape() as tape:
            with deferring(True):
                for _ in range(THINKING_ROUNDS):
                    try:
                        return await fn(*args, **kwargs)
                    except ThinkFirst as need:
                        await core.thinker.think(need.chain)
                    tape.rewind()
            return await fn(*args, **kwargs)

    return run
