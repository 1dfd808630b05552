"""The outbox: notices survive a crash between commit and delivery, and go out in order, once."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from datetime import timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shithead_bot.service import GameService, Notice, Outbox
from shithead_bot.service.report import Plan, Report
from testkit.clock import FakeClock
from tests.service.helpers import lobby_with, make_service, user


class Sender:
    """Records batches; fails while ``broken``."""

    def __init__(self) -> None:
        self.broken = False
        self.batches: list[list[Notice]] = []

    async def __call__(self, plan: Plan) -> Report:
        if self.broken:
            raise ConnectionError("Telegram is unreachable")
        self.batches.append(list(plan.notices))
        return Report(plan.game_id)

    @property
    def ids(self) -> list[int]:
        return [n.id or 0 for batch in self.batches for n in batch]


async def test_crash_between_commit_and_delivery(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    game_id = await lobby_with(service, humans=2)
    result = await service.start(game_id, user(0).id)
    written = sorted(str(n.kind) for n in result.notices)
    sender = Sender()
    sender.broken = True
    outbox = Outbox(sessions, clock=clock)
    assert await outbox.deliver(sender) == 0  # the process "dies" here: nothing marked delivered
    assert await outbox.pending() > 0
    # Restart: a new Outbox, the sender works again; the failed ones wait out their retry delay.
    sender.broken = False
    restarted = Outbox(sessions, clock=clock)
    assert await restarted.deliver(sender) == 0
    clock.advance(seconds=10)
    delivered = await restarted.deliver(sender)
    assert delivered == await _count_all(sessions)
    assert set(written) <= {str(n.kind) for b in sender.batches for n in b}
    assert sender.ids == sorted(sender.ids)  # in order
    assert await restarted.pending() == 0
    assert await restarted.deliver(sender) == 0  # and only once


async def test_a_claimed_notice_is_not_sent_twice_until_its_lease_ends(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    await lobby_with(service, humans=1)
    first, second = Sender(), Sender()

    async def dying(plan: Plan) -> Report:
        first.batches.append(list(plan.notices))
        raise asyncio.CancelledError  # the worker is stopped mid-send: nothing is marked

    worker_a = Outbox(sessions, clock=clock, lease=timedelta(seconds=30))
    with contextlib.suppress(asyncio.CancelledError):
        await worker_a.deliver(dying)
    worker_b = Outbox(sessions, clock=clock)
    assert await worker_b.deliver(second) == 0  # worker A's lease still holds
    clock.advance(seconds=31)
    assert await worker_b.deliver(second) == len(first.ids)
    assert second.ids == first.ids


async def test_notices_are_grouped_per_game(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    a = await lobby_with(service, humans=2, chat_id=-1)
    b = await lobby_with(service, humans=2, chat_id=-2)
    await service.start(a, user(0).id)
    await service.start(b, user(0).id)
    sender = Sender()
    await Outbox(sessions, clock=clock).deliver(sender)
    assert all(len({n.game_id for n in batch}) == 1 for batch in sender.batches)
    assert {batch[0].game_id for batch in sender.batches} == {a, b}


async def _count_all(sessions: async_sessionmaker[AsyncSession]) -> int:
    from sqlalchemy import func, select

    from persistence.models import Outbox as Row

    async with sessions() as session:
        return int((await session.execute(select(func.count()).select_from(Row))).scalar_one())


async def test_a_half_sent_batch_keeps_what_went_out(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    from shithead_bot.service.outbox import PartialDelivery

    game_id = await lobby_with(service, humans=2)
    await service.start(game_id, user(0).id)
    seen: list[list[int]] = []

    async def half(plan: Plan) -> Report:
        seen.append([n.id or 0 for n in plan.notices])
        raise PartialDelivery(Report(plan.game_id, sent=[seen[0][0]]), TimeoutError("Telegram timed out"))

    outbox = Outbox(sessions, clock=clock)
    assert await outbox.deliver(half) == 1
    clock.advance(seconds=10)
    sender = Sender()
    await outbox.deliver(sender)
    assert seen[0][0] not in sender.ids  # the first notice went out already: not again
    assert set(seen[0][1:]) <= set(sender.ids)


async def test_a_notice_that_fails_for_another_reason_is_given_up_after_a_dozen_tries(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    """Not an outage (a bug, say): given up after MAX_ATTEMPTS, so it cannot hold its game's later
    notices back for a day."""
    from shithead_bot.service.outbox import MAX_ATTEMPTS

    await lobby_with(service, humans=1)

    async def broken(plan: Plan) -> Report:
        raise ValueError("cannot render this")

    outbox = Outbox(sessions, clock=clock)
    for _ in range(MAX_ATTEMPTS):
        await outbox.deliver(broken)
        clock.advance(seconds=400)
    assert await outbox.pending() == 0
    assert all(error.startswith("gave up: ValueError") for error in await _errors(sessions))


class Unreachable:
    """Telegram is unreachable: every batch fails as a network error would; records when it was tried."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.tries: list[float] = []

    async def __call__(self, plan: Plan) -> Report:
        self.tries.append(self.clock.now.timestamp())
        raise ConnectionError("Bad Gateway")


@pytest.mark.slow  # whole games through the fake Bot API: the full run's, not the fast lane's
async def test_an_outage_is_retried_with_growing_pauses_and_given_up_only_after_a_day(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    await lobby_with(service, humans=1)
    sender = Unreachable(clock)
    outbox = Outbox(sessions, clock=clock)
    # The sweep for half an hour, every 5 s rather than every second as in the bot: every pause is a
    # whole multiple of FIRST_PAUSE (5 s), so the tries land on the same seconds for a fifth of the sweeps.
    for _ in range(30 * 60 // 5):
        await outbox.deliver(sender)
        clock.advance(seconds=5)
    pauses = [b - a for a, b in itertools.pairwise(sender.tries)]
    assert pauses[0] <= 10
    assert pauses == sorted(pauses)  # growing…
    assert pauses[3] >= 4 * pauses[0]  # …doubling…
    assert max(pauses) <= 300  # …up to a few minutes
    assert await outbox.pending() > 0
    assert await _errors(sessions)
    assert not any(e.startswith("gave up") for e in await _errors(sessions))
    for _ in range(23 * 12):  # the rest of the day, swept every five minutes
        clock.advance(seconds=300)
        await outbox.deliver(sender)
    assert await outbox.pending() > 0  # less than a day old: still kept
    for _ in range(2 * 12):
        clock.advance(seconds=300)
        await outbox.deliver(sender)
    assert await outbox.pending() == 0  # a day old: given up
    assert all(error.startswith("gave up: ConnectionError") for error in await _errors(sessions))


async def test_when_telegram_answers_again_the_waiting_notices_go_at_once(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    await lobby_with(service, humans=1)
    outbox = Outbox(sessions, clock=clock)
    down = Unreachable(clock)
    for _ in range(6):
        await outbox.deliver(down)
        clock.advance(seconds=120)
    sender = Sender()
    assert await outbox.deliver(sender) == 0  # the next try is minutes away
    await outbox.retry_now()  # the Bot API answered again
    assert await outbox.deliver(sender) > 0
    assert await outbox.pending() == 0


async def _errors(sessions: async_sessionmaker[AsyncSession]) -> list[str]:
    from sqlalchemy import select

    from persistence.models import Outbox as Row

    async with sessions() as session:
        rows = await session.execute(select(Row.last_error).where(Row.last_error.is_not(None)))  # type: ignore[union-attr]
        return [str(error) for error in rows.scalars()]


async def test_two_postgresql_workers_send_each_notice_once(pg_db_url: str, clock: FakeClock) -> None:
    from persistence.db import make_engine, make_sessionmaker

    engines = [make_engine(pg_db_url) for _ in range(3)]
    service = make_service(make_sessionmaker(engines[0]), clock)
    for n in range(6):
        game_id = await lobby_with(service, humans=2, chat_id=-60 - n)
        await service.start(game_id, user(0).id)
    sent: list[int] = []

    async def slow(plan: Plan) -> Report:
        await asyncio.sleep(0.05)
        sent.extend(n.id or 0 for n in plan.notices)
        return Report(plan.game_id)

    workers = [Outbox(make_sessionmaker(e), clock=clock) for e in engines[1:]]
    await asyncio.gather(*(w.deliver(slow) for w in workers))
    await asyncio.gather(*(w.deliver(slow) for w in workers))
    for engine in engines:
        await engine.dispose()
    assert len(sent) == len(set(sent))
    assert len(sent) == await _count_all(make_sessionmaker(make_engine(pg_db_url)))


async def test_a_game_is_claimed_by_one_postgresql_worker_at_a_time(pg_db_url: str, clock: FakeClock) -> None:
    """Worker A's claim is not committed yet when a newer notice of the same game comes in and worker
    B claims: B must leave the game alone (A's rows are locked, not yet marked), or the game's
    notices go out side by side, each sender blind to the messages the other posts."""
    from persistence import repo
    from persistence.db import make_engine, make_sessionmaker

    engines = [make_engine(pg_db_url) for _ in range(3)]
    service = make_service(make_sessionmaker(engines[0]), clock)
    game_id = await lobby_with(service, humans=2, chat_id=-70)
    a, b = (make_sessionmaker(e)() for e in engines[1:])
    try:
        await a.begin()
        held = await repo.claim_outbox(session=a, now=clock(), lease=timedelta(seconds=30), game_id=game_id)
        assert held
        await service.start(game_id, user(0).id)  # newer notices, committed while A holds its claim
        await b.begin()
        taken = await repo.claim_outbox(session=b, now=clock(), lease=timedelta(seconds=30), game_id=game_id)
        await a.commit()
        assert taken == [], "a second worker claimed the game's newer notices beside the first"
        taken = await repo.claim_outbox(session=b, now=clock(), lease=timedelta(seconds=30), game_id=game_id)
        assert taken == [], "after A's claim is committed, the game is busy"
    finally:
        await a.close()
        await b.close()
        for engine in engines:
            await engine.dispose()


async def test_a_retried_plan_knows_its_own_games_messages_as_it_read_the_game(
    service: GameService, game_id: int, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """The messages a retried plan's clean-up leaves alone are, for its own game, those of the game
    as the plan read it: a copy that another attempt recorded a moment later (between the plan's
    reads) is not the plan's, and must lose its keyboard when the plan sends the message anew."""
    from dataclasses import replace

    from persistence import repo

    outbox = service.outbox()
    async with sessions() as session, session.begin():
        [plan] = await outbox._claim(session, game_id=game_id)
    player = plan.game.seats[0].player_id
    assert player is not None
    async with sessions() as session, session.begin():  # another attempt's report: its copy, recorded
        await repo.set_seat_messages(session=session, game_id=game_id, messages={0: (77, 1)})
    retried = tuple(replace(n, attempts=2) for n in plan.notices)
    async with sessions() as session:
        known = await outbox._known(session, plan.game, retried)
        assert 77 not in known[player]  # the plan read the game before it was recorded
        seats = [replace(s, private_message_id=77) if s.number == 0 else s for s in plan.game.seats]
        known = await outbox._known(session, replace(plan.game, seats=tuple(seats)), retried)
        assert 77 in known[player]  # read with the game: the plan's own


async def test_a_report_after_a_takeover_marks_what_it_sent_and_records_none_of_its_messages(
    service: GameService, game_id: int, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    """Worker A's lease ran out and worker B claimed the notices; A's report comes after. What A sent
    is delivered all the same (a claim that overran its lease on every try must still make progress),
    but A's messages are not recorded: B's copies are the ones to keep."""
    from persistence import repo
    from shithead_bot.service.report import PrivateMessage

    outbox = service.outbox()
    async with sessions() as session, session.begin():
        [first] = await outbox._claim(session, game_id=game_id)
    clock.advance(seconds=31)
    async with sessions() as session, session.begin():
        [taken_over] = await outbox._claim(session, game_id=game_id)
    ids = [n.id for n in first.notices]
    done, following = await outbox._succeed(first, Report(game_id, private={0: PrivateMessage(555, 1)}))
    assert (done, following) == (ids, None)
    assert await outbox.pending() == 0  # delivered: nothing is sent a third time
    assert (await service.game_view(game_id)).seat(0).private_message_id != 555
    async with sessions() as session:  # still B's claim: its report stands
        assert await repo.hold_claim(session=session, ids=ids, until=taken_over.claimed_until)
    await outbox._succeed(taken_over, Report(game_id, private={0: PrivateMessage(556, 1)}))
    assert (await service.game_view(game_id)).seat(0).private_message_id == 556
