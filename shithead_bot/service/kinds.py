"""The kinds of use case, each a wrapper of its unit of work (the facade lists every use case with
its kind): :func:`plays` where computers may move, :func:`use_case` for other changes of a game
(they write notices), :func:`write` for writes that tell nobody (no notice: a setting, a message
id, the send rate), :func:`query` for reads. Each is run again on a transient database fault
(:func:`~shithead_bot.service.faults.retry_transient`). ``tests/test_architecture.py`` holds the
facade to these kinds by what each function reaches."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, Concatenate, Generic, ParamSpec, Protocol, Self, TypeVar, overload

from shithead_bot.service.faults import retry_transient
from shithead_bot.service.thinking import think_first
from shithead_bot.service.unit import Core

T = TypeVar("T")
P = ParamSpec("P")
Run = Callable[Concatenate[Core, P], Awaitable[T]]


class HasCore(Protocol):
    @property
    def core(self) -> Core: ...


class UseCase(Generic[P, T]):
    """A use case as the facade lists it: its wrapped unit of work, which takes the :class:`Core`
    first. Read off a facade (``service.play``), it is bound to the facade's core, so a caller
    passes only the use case's own arguments and never holds the core."""

    def __init__(self, run: Run[P, T]) -> None:
        self.run = run
        self.__doc__ = run.__doc__
        self.__name__ = getattr(run, "__name__", type(self).__name__)

    @overload
    def __get__(self, owner: None, kind: type[Any]) -> Self: ...

    @overload
    def __get__(self, owner: HasCore, kind: type[Any]) -> Callable[P, Awaitable[T]]: ...

    def __get__(self, owner: HasCore | None, kind: type[Any]) -> Self | Callable[P, Awaitable[T]]:
        if owner is None:
            return self
        core, run = owner.core, self.run

        @functools.wraps(run)
        async def bound(*args: P.args, **kwargs: P.kwargs) -> T:
            return await run(core, *args, **kwargs)

        return bound


def use_case(fn: Run[P, T]) -> UseCase[P, T]:
    """A use case that changes a game and tells its players (it writes notices): its unit of work
    is run again on a transient database fault (:func:`retry_transient`). No computer moves in it."""
    return UseCase(retry_transient(fn))


def plays(fn: Run[P, T]) -> UseCase[P, T]:
    """A use case in which computers may move (a move, a deal, a timeout, a resume, a stand-in):
    run again on a transient database fault, and after its computers thought ahead
    (:func:`think_first`), so that no search runs inside its transaction or on the event loop."""
    return UseCase(think_first(retry_transient(fn)))


def query(fn: Run[P, T]) -> UseCase[P, T]:
    """A use case that only reads: run again on a transient database fault (no computer moves in it)."""
    return UseCase(retry_transient(fn))


def write(fn: Run[P, T]) -> UseCase[P, T]:
    """A use case that writes but tells nobody (no notice, no computer moves): a setting, a message
    id to keep editing, a token of the send rate. Run again on a transient database fault — safe, as
    each is one transaction (or, for the send rate, one statement in autocommit) that either left
    nothing behind or is idempotent enough to repeat (a token taken twice only slows a send)."""
    return UseCase(retry_transient(fn))
