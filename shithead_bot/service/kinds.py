"""The kinds of use case, each a wrapper of its unit of work (the facade lists every use case with
its kind): :func:`plays` where computers may move, :func:`use_case` for other changes of a game
(they write notices), :func:`write` for writes that tell nobody (no notice: a setting, a message
id, the send rate), :func:`query` for reads. Each is run again on a transient database fault
(:func:`~shithead_bot.service.faults.retry_transient`). ``tests/test_architecture.py`` holds the
facade to these kinds by what each function reaches."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from shithead_bot.service.faults import retry_transient
from shithead_bot.service.thinking import think_first

T = TypeVar("T")
P = ParamSpec("P")


def use_case(fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """A use case that changes a game and tells its players (it writes notices): its unit of work
    is run again on a transient database fault (:func:`retry_transient`). No computer moves in it."""
    return retry_transient(fn)


def plays(fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """A use case in which computers may move (a move, a deal, a timeout, a resume, a stand-in):
    run again on a transient database fault, and after its computers thought ahead
    (:func:`think_first`), so that no search runs inside its transaction or on the event loop."""
    return think_first(retry_transient(fn))


def query(fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """A use case that only reads: run again on a transient database fault (no computer moves in it)."""
    return retry_transient(fn)


def write(fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """A use case that writes but tells nobody (no notice, no computer moves): a setting, a message
    id to keep editing, a token of the send rate. Run again on a transient database fault — safe, as
    each is one transaction (or, for the send rate, one statement in autocommit) that either left
    nothing behind or is idempotent enough to repeat (a token taken twice only slows a send)."""
    return retry_transient(fn)
