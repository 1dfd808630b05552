"""The unit of work around every use case: one transaction, retried once on a transient fault.

A use case is a versioned transaction: it loads the game, checks the version its caller saw, and
commits everything or nothing. So when the database connection dies under it (a restarted
server, a terminated backend, a network blip) or PostgreSQL reports a serialization failure or a
deadlock, running the whole use case again is safe: either the first attempt left nothing behind,
or it committed and the retry is refused as stale / already done, like a double tap.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy.exc import DBAPIError

log = logging.getLogger(__name__)

T = TypeVar("T")
RETRY_SQLSTATES = frozenset({"40001", "40P01"})  # serialization failure, deadlock detected
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


def retry_once(fn: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """Run the use case again once if the first attempt met a transient database fault."""

    @functools.wraps(fn)
    async def run(*args: Any, **kwargs: Any) -> T:
        try:
            return await fn(*args, **kwargs)
        except DBAPIError as exc:
            if not is_transient(exc):
                raise
            log.warning("%s: transient database fault (%s); trying once more", fn.__name__, fault_name(exc))
        return await fn(*args, **kwargs)

    return run


C = TypeVar("C", bound=type)


def retrying(cls: C) -> C:
    """Give every public coroutine method of a service class :func:`retry_once`."""
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and inspect.iscoroutinefunction(member):
            setattr(cls, name, retry_once(member))
    return cls
