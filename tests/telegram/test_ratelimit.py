"""The send rate: buckets per bot, group and private chat; 429s put a bucket on hold; on PostgreSQL
the buckets are shared by every worker."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from telegram.error import RetryAfter

from persistence.db import make_engine, make_sessionmaker
from shithead_bot.service import GameService
from shithead_bot.telegram.ratelimit import Limits, MemoryBuckets, SendRate, SharedBuckets


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_memory_buckets_pay_out_at_the_rate() -> None:
    clock = Clock()
    buckets = MemoryBuckets(clock)
    limits = Limits(per_second=30)
    waits = [await buckets.reserve(limits.buckets(None)) for _ in range(10)]
    assert waits[:6] == [0.0] * 6  # a small burst, then one every 1/30 s
    assert waits[6:] == pytest.approx([1 / 30, 2 / 30, 3 / 30, 4 / 30])
    clock.now += 10
    assert await buckets.reserve(limits.buckets(None)) == 0.0


async def test_a_group_takes_twenty_a_minute() -> None:
    clock = Clock()
    buckets = MemoryBuckets(clock)
    limits = Limits(per_second=1000)
    waits = [await buckets.reserve(limits.buckets(-5)) for _ in range(22)]
    assert waits[:20] == [0.0] * 20
    assert waits[20] == pytest.approx(3.0)
    private = [await buckets.reserve(limits.buckets(5)) for _ in range(4)]
    assert private == pytest.approx([0, 0, 0, 1.0])


async def test_a_429_holds_the_bucket() -> None:
    clock = Clock()
    buckets = MemoryBuckets(clock)
    limits = Limits()
    (bucket, _chat) = limits.buckets(-5)
    await buckets.hold(bucket, 4)
    assert await buckets.reserve([bucket]) == pytest.approx(4 + 1 / 30)


async def test_only_sends_wait_and_429s_are_retried_after_the_hold() -> None:
    rate = SendRate(Limits(per_second=1), MemoryBuckets())
    calls: list[str] = []

    async def ok(name: str) -> bool:
        calls.append(name)
        return True

    for _ in range(5):  # answering presses and polling never wait
        await rate.process_request(ok, ("answer",), {}, "answerCallbackQuery", {}, None)
    assert calls == ["answer"] * 5
    failures = [RetryAfter(1)]

    async def flaky() -> bool:
        if failures:
            raise failures.pop()
        return True

    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await rate.process_request(flaky, (), {}, "sendMessage", {"chat_id": 7}, None) is True
    assert loop.time() - started >= 0.9  # waited out the 429


async def test_a_long_wait_is_handed_back_to_the_outbox() -> None:
    buckets = MemoryBuckets()
    rate = SendRate(Limits(), buckets)
    (_global, chat) = Limits().buckets(-5)
    await buckets.hold(chat, 60)

    async def never() -> Any:
        raise AssertionError("not sent")

    with pytest.raises(RetryAfter):
        await rate.process_request(never, (), {}, "editMessageText", {"chat_id": -5}, None)


async def test_workers_share_one_bucket_on_postgresql(pg_db_url: str) -> None:
    engines = [make_engine(pg_db_url) for _ in range(3)]
    fleet = [SharedBuckets(GameService(make_sessionmaker(e))) for e in engines]
    limits = Limits(per_second=10)
    loop = asyncio.get_running_loop()
    started = loop.time()
    waits = await asyncio.gather(*(fleet[n % 3].reserve(limits.buckets(None)[:1]) for n in range(12)))
    elapsed = loop.time() - started  # the bucket refills meanwhile (a loaded machine is slow)
    for engine in engines:
        await engine.dispose()
    assert sorted(waits)[:2] == [0.0, 0.0]  # the burst of 2…
    assert max(waits) <= 1.0 + 0.05  # …then 10 more at 10 a second, whoever asks
    assert max(waits) + elapsed >= 1.0 - 0.05
