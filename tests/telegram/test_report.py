"""Plan, then send: the sender's report is written with the delivered marks — what went out before a
failure keeps its message ids, a migration moves the chat, a group that muted the bot pauses its
game, a player who blocked the bot is remembered. Through a real PTB ``Bot`` and the fake Bot API,
on both databases."""

from __future__ import annotations

import time
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Session
from telegram import Bot
from telegram.ext import ExtBot

from engine.ai import make_player
from persistence import repo
from shithead_bot.service import GameStatus
from shithead_bot.service.report import Report
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.delivery import Delivery
from shithead_bot.telegram.ratelimit import Limits, MemoryBuckets, SendRate
from shithead_bot.telegram.startup import api_client
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from tests.service.helpers import GROUP, lobby_with, user
from tests.telegram.fakegame import FakeGame


async def started(game: FakeGame, humans: int = 2) -> None:
    """A lobby started, its notices not delivered yet."""
    game.game_id = await lobby_with(game.service, humans=humans)
    await game.service.start(game.game_id, user(0).id)


async def test_a_batch_cut_short_records_the_messages_that_went_out(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    """Telegram fails in the middle of the start's batch (at the second player's swap message, the
    batch's last send): the lobby, the table and the first swap message went out, and their ids are
    recorded with the delivered marks; the rest is tried again later and nothing is sent twice."""
    game = FakeGame(sessions, clock, fake, bot)
    await started(game)
    fake.start_outage(from_method="sendMessage", to_chat=user(1).id)
    await game.deliver()
    fake.end_outage()
    view = await game.service.game_view(game.game_id)
    assert await game.outbox.pending() > 0  # the batch stopped
    assert view.seat(1).private_message_id is None
    first = view.seat(0)
    assert first.player_id is not None
    assert [m.message_id for m in game.live(first.player_id)] == [first.private_message_id]
    lobby_id, table_id = view.game.lobby_message_id, view.game.table_message_id
    assert lobby_id is not None
    assert table_id is not None
    await game.sweep_for(60)
    assert await game.outbox.pending() == 0
    view = await game.service.game_view(game.game_id)
    assert (view.game.lobby_message_id, view.game.table_message_id) == (lobby_id, table_id)  # not posted twice
    for seat in view.seats:
        assert seat.player_id is not None
        assert [m.message_id for m in game.live(seat.player_id)] == [seat.private_message_id]
    lobbies = [m for m in fake.messages(GROUP, as_user=user(0).id) if m.from_bot and m.message_id == lobby_id]
    assert len(lobbies) == 1
    assert await game.given_up() == []


async def test_a_migration_met_in_a_batch_moves_the_chat_and_its_game(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    await lobby_with_settings(game := FakeGame(sessions, clock, fake, bot))
    new_id = fake.migrate_group(GROUP)  # the service message missed: the start's batch meets it
    await game.service.start(game.game_id, user(0).id)
    await game.deliver()
    view = await game.service.game_view(game.game_id)
    assert view.chat.id == new_id
    assert view.chat.language == "fr"  # the chat's settings followed
    assert view.game.table_message_id is not None
    assert any(m.message_id == view.game.table_message_id for m in fake.messages(new_id, as_user=user(0).id))
    assert await game.outbox.pending() == 0


async def lobby_with_settings(game: FakeGame) -> None:
    game.game_id = await lobby_with(game.service, humans=2)
    await game.service.update_chat(GROUP, language="fr")


async def test_a_group_that_muted_the_bot_pauses_its_game(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = FakeGame(sessions, clock, fake, bot)
    await started(game)
    fake.restrict_bot(GROUP)  # may send nothing: the start's group messages are refused
    await game.deliver()
    view = await game.service.game_view(game.game_id)
    assert view.status == GameStatus.PAUSED
    async with sessions() as session:
        present = (await session.execute(text("select bot_present from chat where id = :id"), {"id": GROUP})).scalar()
    assert not present
    assert await game.outbox.pending() == 0  # the pause's own notices were claimed along and closed
    assert await game.given_up() == []


async def test_a_player_who_blocked_the_bot_is_remembered_and_called_in_the_group(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    fake.block_bot(user(1).id)
    game = FakeGame(sessions, clock, fake, bot)
    await started(game)
    await game.deliver()
    assert not await game.service.see_user(user(1))  # may not message them: recorded
    assert await game.service.see_user(user(0))
    mentions = [m for m in fake.messages(GROUP, as_user=user(0).id) if m.from_bot and "tg://user" in m.html]
    assert len(mentions) == 1


async def test_a_report_with_nothing_learnt_writes_nothing(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = FakeGame(sessions, clock, fake, bot)
    assert Report(1).empty
    assert not Report(1, table_is_picture=False).empty
    assert Report(1, topic_closed=True).game_messages() == {"message_thread_id": None}
    async with sessions() as session, session.begin():
        await game.outbox.write(session, Report(1), since=clock())  # no game 1: nothing is touched


async def test_a_press_costs_three_database_sessions(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    """The use case, the plan, the report (the next claim rides along): see bench/service.py --sessions."""
    game = await FakeGame(sessions, clock, fake, bot).start()
    begun: list[object] = []

    def count(session: object, *_: object) -> None:
        begun.append(session)

    event.listen(Session, "after_begin", count)
    try:
        for _ in range(6):
            view = await game.service.game_view(game.game_id)
            number, player_id = await game.to_act()
            assert view.state is not None
            move = make_player("normal", number).choose(view.state.view(number))
            begun.clear()
            await game.service.play(game.game_id, player_id, move, view.seat(number).keyboard_version)
            await game.outbox.deliver(game.delivery, game_id=game.game_id)
            assert len(begun) <= 3
    finally:
        event.remove(Session, "after_begin", count)


async def test_a_group_out_of_sends_puts_the_table_off_not_the_private_messages(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    """The table goes before what asks players to act; a 429 on it puts it off and the batch goes on."""
    game = FakeGame(sessions, clock, fake, bot)
    await started(game)
    fake.fail_next("sendPhoto", retry_after=30)
    await game.deliver()
    view = await game.service.game_view(game.game_id)
    assert view.game.table_message_id is None
    for seat in view.seats:
        assert seat.player_id is not None
        assert [m.message_id for m in game.live(seat.player_id)] == [seat.private_message_id]
    assert await game.outbox.pending() == 1  # the table, after the group's wait
    clock.advance(seconds=31)
    await game.deliver()
    assert (await game.service.game_view(game.game_id)).game.table_message_id is not None
    assert await game.outbox.pending() == 0


async def test_a_sender_told_to_stop_puts_the_rest_off_and_the_next_worker_sends_it_once(
    sessions: async_sessionmaker[AsyncSession],
    clock: FakeClock,
    fake: FakeTelegram,
    bot: Bot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SIGTERM: a worker stops starting sends at its deadline (a backlog of many games would keep it
    for minutes); what it holds goes back to the outbox at once, no try counted, nothing given up."""
    game = FakeGame(sessions, clock, fake, bot)
    await started(game)
    pending = await game.outbox.pending()
    game.delivery.stop_at(time.monotonic())
    fake.reset_calls()
    claims = 0
    claim_outbox = repo.claim_outbox

    async def counted(**kwargs: Any) -> Any:
        nonlocal claims
        claims += 1
        return await claim_outbox(**kwargs)

    monkeypatch.setattr(repo, "claim_outbox", counted)
    assert await game.outbox.deliver(game.delivery) == 0
    assert fake.calls == []
    assert claims == 0  # not claimed and put back, again and again, by every loop that sends
    monkeypatch.undo()
    assert await game.outbox.pending() == pending
    async with sessions() as session:
        row = (await session.execute(text("select max(attempts), max(last_error) from outbox"))).one()
    assert tuple(row) == (0, None)
    await FakeGame(sessions, clock, fake, bot).outbox.deliver(Delivery(bot, Codec(b"k"), "shithead_bot"))
    assert await game.outbox.pending() == 0
    assert len(fake.calls_of("sendPhoto")) == 1  # the table, once


async def test_a_stopping_sender_waits_for_the_send_rate_no_longer_than_its_deadline(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    """SIGTERM with the send rate used up: a send that would wait for its token past the worker's
    deadline does not wait (the process would outlive its stop by the rate's wait, up to 10 s on top
    of the flush — a fleet's orchestrator kills it then); it goes back to the outbox, no try counted,
    and the next worker sends it once."""
    game = FakeGame(sessions, clock, fake, None)  # type: ignore[arg-type]
    await started(game)
    pending = await game.outbox.pending()
    slept: list[float] = []
    rate = SendRate(Limits(per_second=0.2, group_per_minute=6000, private_per_second=100), MemoryBuckets(lambda: 0.0))

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    rate.sleep = sleep  # type: ignore[method-assign]
    async with ExtBot(fake.token, base_url=fake.base_url, base_file_url=fake.base_file_url, rate_limiter=rate) as bot:
        delivery = Delivery(bot, Codec(b"k"), "shithead_bot", table_seconds=0)
        delivery.stop_at(time.monotonic() + 2)  # the first send takes the last token; the next waits 5 s
        await game.outbox.deliver(delivery)
    assert slept == []
    assert 0 < await game.outbox.pending() < pending
    async with sessions() as session:
        query = text("select kind, attempts, last_error from outbox where delivered_at is null")
        rows = (await session.execute(query)).all()
    assert [error for _, _, error in rows] == [None] * len(rows)  # put off, none failed
    assert {kind: attempts for kind, attempts, _ in rows}["swap"] == 0  # the stop's: no try counted
    clock.advance(seconds=60)  # the group step the rate put off is due again
    async with api_client(fake.token, fake.base_url, fake.base_file_url) as bot:
        await FakeGame(sessions, clock, fake, bot).outbox.deliver(Delivery(bot, Codec(b"k"), "shithead_bot"))
    assert await game.outbox.pending() == 0
    assert len(fake.calls_of("sendPhoto")) == 1  # the table, once
