"""One send rate for the whole fleet: every worker takes its Bot API sends from the same buckets.

Telegram allows a bot about 30 messages a second overall, about 20 a minute in one group and about
one a second in one private chat. A per-process limiter lets N workers send N times that and meet
429 storms, so on PostgreSQL the buckets live in the database (``send_bucket``, on the database's
clock): a send reserves a token in the global bucket and in its chat's bucket with one statement
(its own short transaction), and waits until both are paid. A 429 puts the bucket on hold for every
worker. On SQLite (one process) the same buckets live in memory.

Overload is a slope: a send that would wait longer than :data:`MAX_WAIT` takes no token — it is
handed back to the outbox, which puts it off (keeping its place: the outbox claims the oldest
notices first) and asks again once half the queue ahead has gone. So the debt never exceeds
``MAX_WAIT`` of sends, retries cost nothing, and the sends go on at the rate however many wait.

Only sending and editing count; answering a press, reading chats and polling do not wait.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

log = logging.getLogger(__name__)

LIMITED_PREFIXES = ("send", "edit", "copy", "forward", "pin", "unpin")  # a pin posts a service message
# True while the outbox's sender runs: the messages it posts are the games', recorded with its report.
DELIVERING: ContextVar[bool] = ContextVar("delivering", default=False)
# Tokens a plan paid for at once (bucket key -> how many are left), spent by its sends in this task.
PAID: ContextVar[dict[str, float] | None] = ContextVar("paid", default=None)
# The longest a send may wait for the rate here (None: up to MAX_WAIT): a group step that must not
# hold back the private messages after it sets 0, and is put off instead of waiting.
WAIT_AT_MOST: ContextVar[float | None] = ContextVar("wait_at_most", default=None)
POSTS = ("sendmessage", "sendphoto")  # the calls that post a new message
MAX_WAIT = 10.0  # longer waits take no token: the send goes back to the outbox for later


def _paid(buckets: list[Bucket]) -> bool:
    """A send paid for by its plan: a token of each of its buckets left, now spent."""
    paid = PAID.get()
    if not paid or any(paid.get(b.key, 0) < 1 for b in buckets):
        return False
    for bucket in buckets:
        paid[bucket.key] -= 1
    return True


def retry_seconds(exc: RetryAfter) -> float:
    """A 429's wait (read as PTB's own limiter reads it: the public attribute changes type in v23)."""
    return exc._retry_after.total_seconds()


@dataclass(frozen=True)
class Bucket:
    key: str
    capacity: float
    per_second: float


@dataclass(frozen=True)
class Limits:
    per_second: float = 30.0  # the whole bot
    group_per_minute: float = 20.0  # one group, in any 60 s
    private_per_second: float = 1.0  # one private chat
    group_burst: float = 5.0  # a group's bucket holds this many: it refills at the rest of its minute

    def buckets(self, chat_id: object) -> list[Bucket]:
        """The buckets a send to ``chat_id`` (None: no chat) takes a token from."""
        found = [Bucket("global", max(1.0, self.per_second / 5), self.per_second)]
        try:
            chat = int(str(chat_id))
        except ValueError:
            chat = -1  # "@channel" names are groups or channels
        if chat_id is None:
            return found
        if chat < 0:  # a burst and a refill that add up to the minute's limit: no 60 s holds more
            burst = min(self.group_burst, self.group_per_minute / 2)
            found.append(Bucket(f"chat:{chat}", burst, (self.group_per_minute - burst) / 60))
        else:
            found.append(Bucket(f"chat:{chat}", 3.0, self.private_per_second))
        return found


@dataclass(frozen=True)
class Reservation:
    """A send's place in the buckets: ``wait`` seconds until it may go (its tokens are paid by then);
    ``taken`` False when that was longer than the caller would wait — then nothing was taken."""

    wait: float
    taken: bool


class Buckets(Protocol):
    async def reserve(
        self, buckets: list[Bucket], max_wait: float = MAX_WAIT, amounts: list[float] | None = None
    ) -> Reservation:
        """Take a token (or ``amounts``) from each bucket, unless the send would wait longer than
        ``max_wait``."""

    async def hold(self, bucket: Bucket, seconds: float) -> None:
        """Nobody sends on this bucket for ``seconds``."""


class MemoryBuckets:
    """Buckets of one process."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._tokens: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)

    def _level(self, bucket: Bucket, now: float) -> float:
        held, at = self._tokens.get(bucket.key, (bucket.capacity, now))
        return min(bucket.capacity, held + (now - at) * bucket.per_second)

    async def reserve(
        self, buckets: list[Bucket], max_wait: float = MAX_WAIT, amounts: list[float] | None = None
    ) -> Reservation:
        now = self.clock()
        wanted = amounts or [1.0] * len(buckets)
        levels = [(b, self._level(b, now), n) for b, n in zip(buckets, wanted, strict=True)]
        wait = max(max(0.0, (n - level) / b.per_second) for b, level, n in levels)
        if wait > max_wait:  # a debt nobody pays: a retry would find it deeper each time
            return Reservation(wait, taken=False)
        for b, level, n in levels:
            self._tokens[b.key] = (level - n, now)
        return Reservation(wait, taken=True)

    async def hold(self, bucket: Bucket, seconds: float) -> None:
        now = self.clock()
        self._tokens[bucket.key] = (min(self._level(bucket, now), -seconds * bucket.per_second), now)


class SharedBuckets:
    """The fleet's buckets in the database (through the service): one statement reserves a send in
    all its buckets. A database fault falls back to this process's own buckets for that send rather
    than holding messages back. ``clock``: the buckets' time (tests); the database's by default."""

    def __init__(self, store: Any, clock: Callable[[], datetime] | None = None) -> None:
        self.store = store  # has reserve_send(buckets, max_wait, now) and hold_sends(key, seconds, per_second, now)
        self.clock = clock
        self.local = MemoryBuckets() if clock is None else MemoryBuckets(lambda: clock().timestamp())

    async def reserve(
        self, buckets: list[Bucket], max_wait: float = MAX_WAIT, amounts: list[float] | None = None
    ) -> Reservation:
        wanted = [(b.key, b.capacity, b.per_second) for b in buckets]
        try:
            wait, taken = await self.store.reserve_send(wanted, max_wait, self._now(), amounts)
        except Exception as exc:  # the database is away: keep a rate of our own meanwhile
            log.warning("shared send rate unavailable (%s); using this worker's own", type(exc).__name__)
            return await self.local.reserve(buckets, max_wait, amounts)
        return Reservation(wait, taken)

    async def hold(self, bucket: Bucket, seconds: float) -> None:
        try:
            await self.store.hold_sends(bucket.key, seconds, bucket.per_second, self._now())
        except Exception as exc:
            log.warning("shared send rate unavailable (%s); holding this worker only", type(exc).__name__)
            await self.local.hold(bucket, seconds)

    def _now(self) -> datetime | None:
        return None if self.clock is None else self.clock()


class SendRate(BaseRateLimiter[int]):
    """PTB's rate limiter interface over :class:`Buckets`; a 429 is waited out and retried."""

    def __init__(
        self,
        limits: Limits | None = None,
        buckets: Buckets | None = None,
        max_retries: int = 3,
        max_wait: float = MAX_WAIT,
    ) -> None:
        self.limits = limits or Limits()
        self.buckets: Buckets = buckets or MemoryBuckets()
        self.max_retries = max_retries
        self.max_wait = max_wait
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep  # the wait for a token (tests: their clock's)
        self.on_call: Callable[[str, BaseException | None], None] = lambda method, error: None  # metrics
        # a message the bot posted in a private chat outside the games' delivery: (chat id, message id)
        self.on_private_post: Callable[[int, int], Awaitable[None]] | None = None

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        if not endpoint.lower().startswith(LIMITED_PREFIXES):
            return await self._call(endpoint, callback, args, kwargs)
        buckets = self.limits.buckets(data.get("chat_id"))
        retries = rate_limit_args or self.max_retries
        for attempt in range(retries + 1):
            if not (attempt == 0 and _paid(buckets)):  # a plan's sends may be paid for at once
                limit = WAIT_AT_MOST.get()  # a group step that must not hold back what follows: 0
                reserved = await self.buckets.reserve(
                    buckets, self.max_wait if limit is None else min(limit, self.max_wait)
                )
                if not reserved.taken:  # the outbox puts the notice off (no failure) and asks again later
                    raise RetryAfter(self.later(reserved.wait))
                if reserved.wait > 0:
                    await self.sleep(reserved.wait)
            try:
                result = await self._call(endpoint, callback, args, kwargs)
                await self._posted(endpoint, data, result)
                return result
            except RetryAfter as exc:
                seconds = retry_seconds(exc)
                log.info("Telegram asked to wait %s s (%s, attempt %d)", seconds, endpoint, attempt + 1)
                for bucket in buckets:
                    await self.buckets.hold(bucket, seconds)
                if attempt == retries:
                    raise
        raise AssertionError("unreachable")

    async def prepay(self, chats: dict[int, int]) -> bool:
        """Pay at once, in one reservation, for the sends a plan will surely make (chat id -> how
        many), if the buckets have the tokens now; the sends then go without asking the buckets each
        (in this task: :data:`PAID`). False: nothing was taken, each send asks for itself."""
        if not chats:
            return False
        wanted: dict[str, tuple[Bucket, float]] = {}
        for chat_id, count in chats.items():
            for bucket in self.limits.buckets(chat_id):
                held = wanted.get(bucket.key)
                wanted[bucket.key] = (bucket, count + (held[1] if held else 0))
        buckets = [bucket for bucket, _ in wanted.values()]
        reserved = await self.buckets.reserve(buckets, 0.0, [count for _, count in wanted.values()])
        if reserved.taken:
            PAID.set({key: count for key, (_, count) in wanted.items()})
        return reserved.taken

    def later(self, wait: float) -> timedelta:
        """When a send that was refused a place (it would have waited ``wait`` s) asks again: while
        half of the sends queued ahead of it are still to go, so the rate never idles while sends
        wait, and a refused send is asked about twice per queue, not at every sweep."""
        return timedelta(seconds=max(1.0, wait - self.max_wait / 2))

    async def _posted(self, endpoint: str, data: dict[str, Any], result: object) -> None:
        """Tell :attr:`on_private_post` of a message posted in a private chat outside the delivery (a
        failure to note it is logged, never the send's)."""
        if self.on_private_post is None or DELIVERING.get() or endpoint.lower() not in POSTS:
            return
        chat, message_id = str(data.get("chat_id")), result.get("message_id") if isinstance(result, dict) else None
        if not chat.isdigit() or not isinstance(message_id, int):
            return
        try:
            await self.on_private_post(int(chat), message_id)
        except Exception as exc:
            log.warning("message %s in chat %s not noted: %r", message_id, chat, exc)

    async def _call(
        self,
        endpoint: str,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        """One request to the Bot API, counted (and its failure, by class)."""
        try:
            result = await callback(*args, **kwargs)
        except Exception as exc:
            self.on_call(endpoint, exc)
            raise
        self.on_call(endpoint, None)
        return result
