"""One send rate for the whole fleet: every worker takes its Bot API sends from the same buckets.

Telegram allows a bot about 30 messages a second overall, about 20 a minute in one group and about
one a second in one private chat. A per-process limiter lets N workers send N times that and meet
429 storms, so on PostgreSQL the buckets live in the database (``send_bucket``, on the database's
clock): a send reserves a token in the global bucket and in its chat's bucket with one statement
each, and waits until both are paid. A 429 puts the bucket on hold for every worker. On SQLite
(one process) the same buckets live in memory.

Only sending and editing count; answering a press, reading chats and polling do not wait.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

log = logging.getLogger(__name__)

LIMITED_PREFIXES = ("send", "edit", "copy", "forward", "pin", "unpin")  # a pin posts a service message
# True while the outbox's sender runs: the messages it posts are the games', recorded with its report.
DELIVERING: ContextVar[bool] = ContextVar("delivering", default=False)
# The longest a send may wait for the rate here (None: up to MAX_WAIT): a group step that must not
# hold back the private messages after it sets 0, and is put off instead of waiting.
WAIT_AT_MOST: ContextVar[float | None] = ContextVar("wait_at_most", default=None)
POSTS = ("sendmessage", "sendphoto")  # the calls that post a new message
MAX_WAIT = 10.0  # longer waits hand the send back to the outbox for later (it holds a lease meanwhile)


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


class Buckets(Protocol):
    async def reserve(self, buckets: list[Bucket], max_wait: float = float("inf")) -> float:
        """Take a token from each bucket and return the seconds to wait before sending; if that is
        more than ``max_wait``, take nothing and return it all the same (the send is refused)."""

    async def hold(self, bucket: Bucket, seconds: float) -> None:
        """Nobody sends on this bucket for ``seconds``."""


class MemoryBuckets:
    """Buckets of one process."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._tokens: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)

    def _take(self, bucket: Bucket, tokens: float | None = None) -> float:
        now = self.clock()
        held, at = self._tokens.get(bucket.key, (bucket.capacity, now))
        level = min(bucket.capacity, held + (now - at) * bucket.per_second) if tokens is None else tokens
        self._tokens[bucket.key] = (level - (1 if tokens is None else 0), now)
        return max(0.0, -(level - 1) / bucket.per_second) if tokens is None else 0.0

    async def reserve(self, buckets: list[Bucket], max_wait: float = float("inf")) -> float:
        wait = max(self._wait(b) for b in buckets)
        if wait > max_wait:
            return wait  # refused: nothing taken
        return max(self._take(b) for b in buckets)

    def _wait(self, bucket: Bucket) -> float:
        """How long a send on this bucket would wait now (nothing taken)."""
        now = self.clock()
        held, at = self._tokens.get(bucket.key, (bucket.capacity, now))
        level = min(bucket.capacity, held + (now - at) * bucket.per_second)
        return max(0.0, (1 - level) / bucket.per_second)

    async def hold(self, bucket: Bucket, seconds: float) -> None:
        now = self.clock()
        held, at = self._tokens.get(bucket.key, (bucket.capacity, now))
        level = min(bucket.capacity, held + (now - at) * bucket.per_second)
        self._take(bucket, tokens=min(level, -seconds * bucket.per_second))


class SharedBuckets:
    """The fleet's buckets in the database (through the service); a database fault falls back to
    this process's own buckets for that send rather than holding messages back."""

    def __init__(self, store: Any) -> None:
        self.store = store  # has reserve_send(key, capacity, per_second) and hold_sends(key, seconds, per_second)
        self.local = MemoryBuckets()

    async def reserve(self, buckets: list[Bucket], max_wait: float = float("inf")) -> float:
        try:
            waits = [await self.store.reserve_send(b.key, b.capacity, b.per_second) for b in buckets]
        except Exception as exc:  # the database is away: keep a rate of our own meanwhile
            log.warning("shared send rate unavailable (%s); using this worker's own", type(exc).__name__)
            return await self.local.reserve(buckets, max_wait)
        return max(waits)

    async def hold(self, bucket: Bucket, seconds: float) -> None:
        try:
            await self.store.hold_sends(bucket.key, seconds, bucket.per_second)
        except Exception as exc:
            log.warning("shared send rate unavailable (%s); holding this worker only", type(exc).__name__)
            await self.local.hold(bucket, seconds)


class SendRate(BaseRateLimiter[int]):
    """PTB's rate limiter interface over :class:`Buckets`; a 429 is waited out and retried."""

    def __init__(self, limits: Limits | None = None, buckets: Buckets | None = None, max_retries: int = 3) -> None:
        self.limits = limits or Limits()
        self.buckets: Buckets = buckets or MemoryBuckets()
        self.max_retries = max_retries
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
            limit = WAIT_AT_MOST.get()
            most = MAX_WAIT if limit is None else min(limit, MAX_WAIT)
            wait = await self.buckets.reserve(buckets, most)
            if wait > most:  # nothing was taken: the outbox puts the notice off, not counted as a failure
                raise RetryAfter(int(wait) + 1)
            if wait > 0:
                await asyncio.sleep(wait)
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
