"""The send rate: buckets per bot, group and private chat; 429s put a bucket on hold; on PostgreSQL
the buckets are shared by every worker."""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import event, text
from telegram.error import RetryAfter

from persistence.db import make_engine, make_sessionmaker
from shithead_bot.service import GameService
from shithead_bot.telegram.ratelimit import (
    Limits,
    MemoryBuckets,
    Reservation,
    SendRate,
    SharedBuckets,
    retry_seconds,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_memory_buckets_pay_out_at_the_rate() -> None:
    clock = Clock()
    buckets = MemoryBuckets(clock)
    limits = Limits(per_second=30)
    waits = [(await buckets.reserve(limits.buckets(None))).wait for _ in range(10)]
    assert waits[:6] == [0.0] * 6  # a small burst, then one every 1/30 s
    assert waits[6:] == pytest.approx([1 / 30, 2 / 30, 3 / 30, 4 / 30])
    clock.now += 10
    assert (await buckets.reserve(limits.buckets(None))).wait == 0.0


async def test_a_group_takes_twenty_a_minute() -> None:
    clock = Clock()
    buckets = MemoryBuckets(clock)
    limits = Limits(per_second=1000)
    waits = [(await buckets.reserve(limits.buckets(-5), math.inf)).wait for _ in range(22)]
    assert waits[:5] == [0.0] * 5  # a burst of five, then fifteen more in the minute
    assert waits[5] == pytest.approx(4.0)
    assert waits[19] == pytest.approx(60.0)
    private = [(await buckets.reserve(limits.buckets(5))).wait for _ in range(4)]
    assert private == pytest.approx([0, 0, 0, 1.0])


async def test_a_429_holds_the_bucket() -> None:
    clock = Clock()
    buckets = MemoryBuckets(clock)
    limits = Limits()
    (bucket, _chat) = limits.buckets(-5)
    await buckets.hold(bucket, 4)
    assert (await buckets.reserve([bucket])).wait == pytest.approx(4 + 1 / 30)


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
    reserved = await asyncio.gather(*(fleet[n % 3].reserve(limits.buckets(None)[:1]) for n in range(12)))
    waits = [r.wait for r in reserved]
    assert all(r.taken for r in reserved)
    elapsed = loop.time() - started  # the bucket refills meanwhile (a loaded machine is slow)
    for engine in engines:
        await engine.dispose()
    assert sorted(waits)[:2] == [0.0, 0.0]  # the burst of 2…
    assert max(waits) <= 1.0 + 0.05  # …then 10 more at 10 a second, whoever asks
    assert max(waits) + elapsed >= 1.0 - 0.05


async def test_a_send_refused_a_place_takes_no_token() -> None:
    """A send that would wait longer than it may takes nothing — from any of its buckets — and says
    how long it would have waited: asked again and again, it never deepens the debt (before, each
    retry took a token, and past 10 s of debt nothing was sent again)."""
    clock = Clock()
    buckets = MemoryBuckets(clock)
    limits = Limits(per_second=2, group_per_minute=6000)
    queued = [await buckets.reserve(limits.buckets(-5), max_wait=10) for _ in range(21)]
    assert all(r.taken for r in queued)
    assert queued[-1].wait == pytest.approx(10)
    for _ in range(100):
        refused = await buckets.reserve(limits.buckets(-5), max_wait=10)
        assert not refused.taken
        assert refused.wait == pytest.approx(10.5)
    clock.now += 0.5  # one token paid: the next send has its place
    assert (await buckets.reserve(limits.buckets(-6), max_wait=10)).wait == pytest.approx(10)
    (_global, chat) = limits.buckets(-7)
    await buckets.hold(chat, 60)  # the chat is held: the global token stays for others
    assert not (await buckets.reserve(limits.buckets(-7), max_wait=10)).taken
    clock.now += 0.5
    assert (await buckets.reserve(limits.buckets(-8), max_wait=10)).wait == pytest.approx(10)


async def test_a_refused_send_is_handed_back_to_come_again_while_the_queue_still_runs() -> None:
    clock = Clock()
    rate = SendRate(Limits(per_second=2, group_per_minute=6000), MemoryBuckets(clock))
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def ok() -> bool:
        return True

    rate.sleep = sleep  # type: ignore[method-assign]
    for _ in range(21):
        assert await rate.process_request(ok, (), {}, "sendMessage", {"chat_id": -5}, None) is True
    with pytest.raises(RetryAfter) as refused:
        await rate.process_request(ok, (), {}, "sendMessage", {"chat_id": -5}, None)
    assert retry_seconds(refused.value) == pytest.approx(10.5 - 5)  # half the queue ahead of it is gone by then
    assert waits[-1] == pytest.approx(10)


async def test_the_shared_buckets_fall_back_to_the_workers_own_when_the_database_is_away() -> None:
    class Away:
        async def reserve_send(self, *args: object) -> tuple[float, bool]:
            raise OSError("connection refused")

        async def hold_sends(self, *args: object) -> None:
            raise OSError("connection refused")

    buckets = SharedBuckets(Away())
    limits = Limits(per_second=1)
    assert await buckets.reserve(limits.buckets(None)) == Reservation(0.0, taken=True)
    await buckets.hold(limits.buckets(None)[0], 30)
    assert not (await buckets.reserve(limits.buckets(None))).taken  # held, on this worker


async def test_one_statement_reserves_both_buckets_on_postgresql_and_takes_only_when_both_allow(
    pg_db_url: str,
) -> None:
    """The global and the chat bucket in one statement, outside any transaction (no lock outlives
    it); a bucket that refuses keeps the other's token."""
    engine = make_engine(pg_db_url)
    statements: list[str] = []
    simple: list[str] = []

    @event.listens_for(engine.sync_engine, "connect")
    def on_connect(connection: Any, _record: Any) -> None:
        connection.driver_connection.add_query_logger(lambda record: simple.append(record.query.strip().upper()))

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def on_execute(*args: Any) -> None:
        statements.append(args[2])

    frozen = datetime(2026, 1, 5, 12, tzinfo=UTC)  # no refill between two sends
    buckets = SharedBuckets(GameService(make_sessionmaker(engine)), clock=lambda: frozen)
    limits = Limits(per_second=1000, group_per_minute=20)  # a chat's burst of 5, then one every 4 s
    first = await buckets.reserve(limits.buckets(-5))
    statements.clear()
    simple.clear()
    reserved = [await buckets.reserve(limits.buckets(-5)) for _ in range(10)]
    assert len(statements) == 10  # one statement a send…
    assert not [q for q in simple if q.startswith("COMMIT")]  # …that is its own transaction
    assert first.taken
    assert [r.taken for r in reserved] == [True] * 6 + [False] * 4
    assert [r.wait for r in reserved[3:]] == pytest.approx([0, 4, 8, 12, 12, 12, 12])
    async with engine.connect() as connection:
        tokens = dict((await connection.execute(text("select key, tokens from send_bucket"))).all())
    await engine.dispose()
    assert tokens["chat:-5"] == pytest.approx(5 - 7)  # seven taken, none for the refused…
    assert tokens["global"] == pytest.approx(200 - 7)  # …nor from the global bucket


def busiest_minute(times: list[float]) -> int:
    """The most calls in any 60 s."""
    return max(sum(1 for t in times if start <= t < start + 60) for start in times)


async def test_a_busy_group_stays_under_twenty_a_minute_with_room_for_announcements() -> None:
    """The table edited as often as the settings allow, for five minutes, and twice a burst of three
    announcements and an unpin (people go out, the game ends): no 60 s ever holds
    more than Telegram's 20 sends into one group, and an announcement never waits long. (A soak saw
    24 in 60 s: 20 table edits at the 3 s throttle, 3 announcements and an unpin.)"""
    from shithead_bot.config import Settings

    clock = Clock()
    buckets = MemoryBuckets(clock)
    limits = Limits(per_second=1000)
    table_seconds = Settings.model_fields["table_edit_seconds"].default
    times: list[float] = []
    announcement_waits: list[float] = []
    next_table = clock.now
    start = clock.now
    while clock.now < start + 300:
        clock.now = max(clock.now, next_table)
        wait = (await buckets.reserve(limits.buckets(-5), math.inf)).wait
        clock.now += wait
        times.append(clock.now)
        next_table = clock.now + table_seconds
        minute, second = divmod(int(clock.now - start), 60)
        if minute in (1, 3) and second < table_seconds:  # three posts and an unpin in a minute, twice
            for _ in range(4):
                wait = (await buckets.reserve(limits.buckets(-5), math.inf)).wait
                announcement_waits.append(wait)
                clock.now += wait
                times.append(clock.now)
    assert busiest_minute(times) <= 20, busiest_minute(times)
    assert max(announcement_waits) == 0.0  # the table's throttle left room for them


async def test_a_private_post_outside_the_delivery_is_noted() -> None:
    """What the bot posts in a private chat outside a game's delivery (an answer, a picker) is told to
    ``on_private_post``; the delivery's own posts, group posts and edits are not."""
    from shithead_bot.telegram.ratelimit import DELIVERING

    rate = SendRate(Limits(), MemoryBuckets())
    noted: list[tuple[int, int]] = []

    async def note(chat: int, message: int) -> None:
        noted.append((chat, message))

    async def posted() -> dict[str, Any]:
        return {"message_id": 7}

    rate.on_private_post = note
    await rate.process_request(posted, (), {}, "sendMessage", {"chat_id": 5}, None)
    await rate.process_request(posted, (), {}, "sendMessage", {"chat_id": -5}, None)
    await rate.process_request(posted, (), {}, "editMessageText", {"chat_id": 5}, None)
    token = DELIVERING.set(True)
    try:
        await rate.process_request(posted, (), {}, "sendMessage", {"chat_id": 6}, None)
    finally:
        DELIVERING.reset(token)
    assert noted == [(5, 7)]


async def test_a_plans_sends_paid_at_once_ask_the_buckets_no_more() -> None:
    """A plan pays for its sure sends in one reservation (one statement on PostgreSQL): its sends then
    go without asking the buckets each, and take exactly the tokens paid — a send beyond them asks as
    before."""
    from shithead_bot.telegram.ratelimit import PAID

    clock = Clock()
    asked: list[int] = []

    class Counting(MemoryBuckets):
        async def reserve(self, buckets: list[Any], max_wait: float = 10.0, amounts: Any = None) -> Any:
            asked.append(len(buckets))
            return await super().reserve(buckets, max_wait, amounts)

    buckets = Counting(clock)
    rate = SendRate(Limits(per_second=30), buckets)

    async def sent() -> dict[str, Any]:
        return {"message_id": 1}

    token = PAID.set(None)
    try:
        assert await rate.prepay({5: 2, -5: 1})
        assert len(asked) == 1  # one reservation: the bot's, the private chat's and the group's buckets
        for chat in (5, 5, -5):
            await rate.process_request(sent, (), {}, "sendMessage", {"chat_id": chat}, None)
        assert len(asked) == 1, "paid sends ask no more"
        await rate.process_request(sent, (), {}, "sendMessage", {"chat_id": 5}, None)
        assert len(asked) == 2, "a send beyond the plan's asks as before"
    finally:
        PAID.reset(token)
    (bot, private), (_, group) = Limits(per_second=30).buckets(5), Limits(per_second=30).buckets(-5)
    assert buckets._level(bot, clock.now) == pytest.approx(bot.capacity - 4)
    assert buckets._level(private, clock.now) == pytest.approx(private.capacity - 3)
    assert buckets._level(group, clock.now) == pytest.approx(group.capacity - 1)


async def test_a_plans_sends_are_paid_in_one_statement_on_postgresql(pg_db_url: str) -> None:
    """Several tokens of several buckets at once: one statement, exact counts, nothing taken when one
    bucket cannot pay them all now."""
    engine = make_engine(pg_db_url)
    frozen = datetime(2026, 1, 5, 12, tzinfo=UTC)
    buckets = SharedBuckets(GameService(make_sessionmaker(engine)), clock=lambda: frozen)
    limits = Limits(per_second=1000, group_per_minute=20)
    (bot, group), (_, private) = limits.buckets(-5), limits.buckets(7)
    assert (await buckets.reserve([bot, group, private], 0.0, [4, 2, 2])).taken
    assert not (await buckets.reserve([bot, group], 0.0, [4, 4])).taken  # the group has 3 left, not 4
    async with engine.connect() as connection:
        tokens = dict((await connection.execute(text("select key, tokens from send_bucket"))).all())
    await engine.dispose()
    assert tokens == pytest.approx({"global": bot.capacity - 4, "chat:-5": 5 - 2, "chat:7": 3 - 2})
