"""Database faults: which are transient (a fresh attempt on a fresh connection may not meet them
again), their log names, and the retry of a whole use case on one.

A use case is a versioned transaction: it loads the game, checks the version its caller saw, and
commits everything or nothing. So when the database connection dies under it (a restarted
server, a terminated backend, a network blip) or PostgreSQL reports a serialization failure or a
deadlock, running the whole use case again is safe: either the first attempt left nothing behind,
or it committed and the retry is refused as stale / already done, like a double tap.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import DBAPIError

log = logging.getLogger(__name__)

T = TypeVar("T")
P = ParamSpec("P")
RETRY_SQLSTATES = frozenset({"40001", "40P01"})  # serialization failure, deadlock detected
# asyncpg's error for a connection whose protocol its server left mid-message (a killed backend)
RETRY_DRIVER_ERRORS = frozenset({"InternalClientError"})
RETRY_TEXTS = (
    "database is locked",
    "connection was closed",
    "connection is closed",
    "another operation is in progress",
)


def is_transient(exc: BaseException) -> bool:
    """A database fault that a fresh attempt on a fresh connection may not meet again."""
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated:
        return True
    orig = exc.orig
    state = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    if state in RETRY_SQLSTATES:
        return True
    cause = orig.__cause__ if orig is not None else None
    if type(cause).__name__ in RETRY_DRIVER_ERRORS:
        return True
    text = str(orig).lower()
    return any(part in text for part in RETRY_TEXTS)


def fault_name(exc: BaseException) -> str:
    """A short, parameter-free name of a database fault for the log (never the statement's values):
    the driver's exception class and, where there is one, its SQLSTATE."""
    orig = getattr(exc, "orig", None)
    if orig is None:
        return type(exc).__name__
    cause = orig.__cause__ if orig.__cause__ is not None else orig  # asyncpg's own class behind the adapter
    state = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    return f"{type(cause).__name__} ({state})" if state else type(cause).__name__


MIN_ATTEMPTS = 3  # a transient fault is retried at least this many times in all…
RETRY_SECONDS = 5.0  # …and, past them, for as long as this after the first attempt began
FIRST_PAUSE, MAX_PAUSE = 0.05, 0.5  # seconds before a further attempt: doubling, up to the most
_now, _sleep = time.monotonic, asyncio.sleep  # (the tests replace them)


def retry_transient(fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """Run the use case again (after a short pause, growing) while it meets transient database
    faults: at least :data:`MIN_ATTEMPTS` attempts, then more for up to :data:`RETRY_SECONDS`.

    A budget of time, not of attempts: a failover, or a killer of backends on a busy machine, can
    drop several fresh connections in a row within a second; each attempt is cheap, and a press
    that waits a few seconds is better than one that fails."""

    @functools.wraps(fn)
    async def run(*args: P.args, **kwargs: P.kwargs) -> T:
        give_up_at = _now() + RETRY_SECONDS
        pause = FIRST_PAUSE
        attempt = 0
        while True:
            attempt += 1
            try:
                return await fn(*args, **kwargs)
            except DBAPIError as exc:
                if not is_transient(exc) or (attempt >= MIN_ATTEMPTS and _now() + pause > give_up_at):
                    raise
                log.warning(
                    "%s: transient database fault (%s), attempt %d; trying again",
                    fn.__name__,
                    fault_name(exc),
                    attempt,
                )
            await _sleep(pause)
            pause = min(pause * 2, MAX_PAUSE)

    return run
