"""Overload is a slope, not a cliff: many more games wait than the send rate serves, and every one
of them gets its notices out, oldest first, at the rate, each once — in one process (SQLite, the
buckets in memory) and in a fleet's shared buckets (PostgreSQL)."""

from __future__ import annotations

import itertools
import statistics
from collections import Counter
from collections.abc import AsyncIterator
from contextvars import ContextVar

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlmodel import col
from telegram.ext import ExtBot

from persistence.models import Outbox as OutboxRow
from shithead_bot.service import GameService
from shithead_bot.service.outbox import Outbox
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.delivery import Delivery
from shithead_bot.telegram.ratelimit import Buckets, Limits, MemoryBuckets, SendRate, SharedBuckets
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from tests.service.helpers import lobby_with, user

GAMES = 20  # ~120 notices at 2 a second: a minute of sends, far past the 10 s of debt that stalled the old limiter
RATE = 2.0  # sends a second, the whole bot: Telegram's 30 scaled down
SWEEP = 1.0  # seconds between two outbox sweeps, as the bot runs them
POSTS = ("sendmessage", "sendphoto")


def group(n: int) -> int:
    return -2000 - n


@pytest.fixture
async def fake_many_groups() -> AsyncIterator[FakeTelegram]:
    """Users 0 and 1 in GAMES groups, one a game."""
    async with FakeTelegram() as server:
        for n in range(2):
            server.add_user(user(n).id, user(n).first_name)
            server.start_bot(user(n).id)
        for n in range(GAMES):
            server.add_group(group(n), f"Friends {n}", [user(0).id, user(1).id])
        yield server


class VirtualTime:
    """The test's clock drives the buckets: a send that must wait for its token is not slept for, it
    is stamped with the moment it goes out (its token is paid by then). Each sweep of the outbox
    comes a second later, so sends are asked for again and again, as in the bot."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.start = clock.now
        self._due: ContextVar[float | None] = ContextVar("due", default=None)
        self.sends: list[float] = []  # when each call went out, in seconds from the start

    def seconds(self) -> float:
        return (self.clock.now - self.start).total_seconds()

    async def sleep(self, seconds: float) -> None:
        self._due.set(self.seconds() + seconds)

    def sent(self, endpoint: str, error: BaseException | None) -> None:
        due = self._due.get()
        self._due.set(None)
        if endpoint.lower() != "getme":  # a call Telegram answered, if only "not modified", counts
            self.sends.append(self.seconds() if due is None else due)


async def started_games(service: GameService) -> list[int]:
    """Twenty games started in twenty groups, their notices not sent yet; the newest lobby started
    first (its notices are the oldest), so that the order of the games is not the order of their ids."""
    games = [await lobby_with(service, humans=2, chat_id=group(n)) for n in range(GAMES)]
    for game_id in reversed(games):
        await service.start(game_id, user(0).id)
    return list(reversed(games))  # in the order they started


def buckets_for(service: GameService, time: VirtualTime) -> Buckets:
    if service.dialect == "postgresql":  # the fleet's buckets, on the test's clock
        return SharedBuckets(service, clock=time.clock)
    return MemoryBuckets(time.seconds)


@pytest.mark.slow  # whole games through the fake Bot API: the full run's, not the fast lane's
async def test_twenty_games_on_two_sends_a_second_all_get_out_at_the_rate_oldest_first(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake_many_groups: FakeTelegram
) -> None:
    """A restart after an outage: 20 games wait on a bot allowed 2 sends a second, so most sends are
    put off again and again. The sends go on at the rate until every game's notices are out (never a
    pause of more than a few seconds), the games that waited longest go first, and nothing is sent
    twice. Before, a send put off still took its token: each retry deepened the debt and, past
    10 s of it, nothing was sent again (21 sends, then none)."""
    games = await started_games(service)
    time = VirtualTime(clock)
    limits = Limits(per_second=RATE, group_per_minute=6000, private_per_second=100)  # only the bot's rate binds
    rate = SendRate(limits, buckets_for(service, time))
    rate.sleep = time.sleep  # type: ignore[method-assign]
    rate.on_call = time.sent
    outbox = Outbox(sessions, clock=clock)
    pending = await outbox.pending()
    async with ExtBot(
        fake_many_groups.token,
        base_url=fake_many_groups.base_url,
        base_file_url=fake_many_groups.base_file_url,
        rate_limiter=rate,
    ) as bot:
        delivery = Delivery(bot, Codec(b"k"), "shithead_bot", table_seconds=0)
        while await outbox.pending() and time.seconds() < pending / RATE + 60:
            clock.advance(seconds=SWEEP)
            await outbox.deliver(delivery)
            if time.seconds() > max(time.sends, default=0) + 60:
                break  # a minute without a send: it has stopped
    async with sessions() as session:
        rows = list((await session.execute(select(OutboxRow).order_by(col(OutboxRow.id)))).scalars())
    waiting = [r for r in rows if r.delivered_at is None]
    assert not waiting, f"{len(waiting)} notices still wait after {time.seconds():.0f} s, {len(time.sends)} sent"
    assert [r.last_error for r in rows if r.last_error] == []  # none given up, none failed
    stamps = sorted(time.sends)
    gaps = [later - sooner for sooner, later in itertools.pairwise(stamps)]
    assert max(gaps) <= 3.0, f"no send for {max(gaps)} s while notices waited"
    assert stamps[-1] <= len(stamps) / RATE + 15  # at the rate, all the way…
    busiest = max(sum(1 for t in stamps if start <= t < start + 10) for start in stamps)
    assert busiest <= RATE * 10 + 1  # …and never above it (a burst of one)
    posts = Counter(
        (str(call.params.get("chat_id")), call.params.get("text") or call.params.get("caption"))
        for call in fake_many_groups.calls
        if call.method.lower() in POSTS and call.ok
    )
    assert [post for post, times in posts.items() if times > 1] == []  # nothing sent twice
    assert {str(group(n)) for n in range(GAMES)} <= {chat for chat, _ in posts}  # every group heard from the bot
    done = {g: max((r.delivered_at - time.start).total_seconds() for r in rows if r.game_id == g) for g in games}
    older, newer = [done[g] for g in games[: GAMES // 2]], [done[g] for g in games[GAMES // 2 :]]
    assert statistics.median(older) < statistics.median(newer)  # the games waiting longest went first
