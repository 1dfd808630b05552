"""Timers end to end: a fast game with a player who never answers, and two bot processes on one
PostgreSQL firing 200 simultaneous deadlines exactly once."""

from __future__ import annotations

import asyncio
import itertools
import socket
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from persistence.db import make_engine, make_sessionmaker
from persistence.models import Game, Move, utcnow
from shithead_bot.service import GameService, UserInfo
from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import start_all
from tests.e2e.harness import GROUP, BotProcess, Player, find, start_game

pytestmark = pytest.mark.slow


async def test_fast_game_with_a_player_who_never_answers(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice, bob = players[:2]
    await start_all(fake, [alice, bob])
    await alice.command("/settings turn 30s")
    await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Turn time: 30 s") is not None, timeout=30)
    # The text table lists the last five actions; a picture's caption only the newest line, which a
    # forced move made at once after Bob's timeout (Alice must pick up) would be.
    await alice.command("/settings table text")
    await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Table: text") is not None, timeout=30)
    await start_game(fake, [alice, bob])
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 300  # the swap phase's 30 s, then Bob's three missed turns of 30 s, under load
    while loop.time() < deadline and find(fake, GROUP, alice.user_id, "Game over") is None:
        await alice.play_turn()  # Alice plays at once; Bob never answers
        await asyncio.sleep(0.2)
    over = find(fake, GROUP, alice.user_id, "Game over")
    assert over is not None
    # the players' own results follow the group's announcement in the same batch
    await fake.wait_for(lambda: any("Game over" in m.text for m in fake.messages(bob.user_id, bob.user_id)), timeout=60)
    assert "1st  Alice" in over.text
    assert any("⏰ Reminder" in m.text for m in fake.history(bob.user_id))
    assert find(fake, GROUP, alice.user_id, "Bob was removed after 3 missed turns in a row") is not None
    timed_out = [m.text for m in fake.history(GROUP) if "⏰ Time ran out: Bob" in m.text]
    assert timed_out, "the table tells who timed out"

    # Each reminder goes once its turn is over; the last one is deleted right after the result is
    # sent (same step), so wait for that call rather than read the chat at the result's arrival.
    def no_reminder_left() -> bool:
        return not any("⏰ Reminder" in m.text for m in fake.messages(bob.user_id, bob.user_id))

    await fake.wait_for(no_reminder_left, timeout=30)  # Bob's newest message is his result


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_two_workers_fire_200_simultaneous_deadlines_once(fake: FakeTelegram, pg_db_url: str) -> None:
    engine = make_engine(pg_db_url)
    service = GameService(make_sessionmaker(engine))
    alice, bob = UserInfo(1001, "Alice"), UserInfo(1002, "Bob")
    for user in (alice, bob):
        await service.see_user(user, can_message=True)
        fake.start_bot(user.id)
    games = []
    for n in range(200):
        chat_id = -70_000 - n
        fake.add_group(chat_id, f"Table {n}", [alice.id, bob.id])
        lobby = await service.open_lobby(chat_id, alice, chat_title=f"Table {n}")
        await service.join(lobby.game_id, bob)
        await service.start(lobby.game_id, alice.id)
        games.append(lobby.game_id)
    ports = [free_port(), free_port()]
    workers = [
        BotProcess(
            fake,
            pg_db_url,
            args=[
                "--no-migrate",
                "--webhook-url",
                f"http://127.0.0.1:{port}",
                "--listen",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            extra_env={"SWEEP_SECONDS": "1", "LOG_LEVEL": "WARNING"},
        )
        for port in ports
    ]
    try:
        for worker in workers:
            await worker.start(wait_for_polling=False)
        hooks = await fake.wait_for(lambda: len(fake.calls_of("setWebhook")) >= 2 or None, timeout=60)
        assert hooks
        fake.set_delivery_targets([str(c.params["url"]) for c in fake.calls_of("setWebhook")][:2])
        # Both workers are up: now every deadline falls due within the same second.
        soon = utcnow() + timedelta(seconds=3)
        async with service.core.sessions() as session, session.begin():
            await session.execute(update(Game).values(deadline_at=soon, due_at=soon, reminders_sent=9))

        async def timeouts() -> dict[int, int]:
            async with service.core.sessions() as session:
                query = select(Move.game_id, func.count()).where(Move.actor == "timeout", Move.move == "r")
                return dict((await session.execute(query.group_by(Move.game_id))).all())

        for _ in range(1200):  # up to 10 min: under load (avg 20 on two cores) 2 min saw 92 of 200
            if len(await timeouts()) == len(games):
                break
            await asyncio.sleep(0.5)
        await asyncio.sleep(3)  # anything fired twice would show by now
        counts = await timeouts()
    finally:
        for worker in workers:
            await worker.stop()
        await engine.dispose()
    # In the swap phase the deadline makes both players ready (after the heuristic's swaps): one
    # "ready" for each of the two players per game — the deadline fired once.
    assert sorted(counts) == sorted(games)
    assert set(counts.values()) == {2}, dict(itertools.islice(counts.items(), 10))
