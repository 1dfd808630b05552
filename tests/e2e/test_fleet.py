"""Several webhook workers on one PostgreSQL: the same update at two workers, first contacts that
arrive together, two /newgame at once. Each has one outcome, and no one sees an error."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

from persistence.db import make_engine
from testkit.fakebot import FakeTelegram
from tests.e2e.harness import GROUP, BotProcess, Player, current, find, has_button, start_workers, webhook_worker

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


async def rows(url: str, query: str) -> list[tuple[object, ...]]:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return [tuple(r) for r in (await conn.execute(text(query))).all()]
    finally:
        await engine.dispose()


@pytest.fixture
async def workers(fake: FakeTelegram, pg_db_url: str) -> list[BotProcess]:
    fleet = [webhook_worker(fake, pg_db_url, migrate=False) for _ in range(2)]
    await start_workers(fake, fleet)
    yield fleet  # type: ignore[misc]
    for worker in fleet:
        await worker.stop()


def toasts(fake: FakeTelegram) -> list[str]:
    return [str(call.params.get("text") or "") for call in fake.calls_of("answerCallbackQuery")]


def no_trouble(fake: FakeTelegram, workers: list[BotProcess]) -> None:
    assert not [t for t in toasts(fake) if "went wrong" in t or "out of date" in t], toasts(fake)
    for worker in workers:
        assert " ERROR " not in worker.log_text, [line for line in worker.logs if " ERROR " in line]
        assert "Traceback" not in worker.log_text


async def test_one_press_at_two_workers_takes_effect_once(
    fake: FakeTelegram, pg_db_url: str, workers: list[BotProcess], players: list[Player]
) -> None:
    alice, bob = players[:2]
    for player in (alice, bob):
        fake.start_bot(player.user_id)
    await fake.wait_for(lambda: all(len(p.private()) >= 2 for p in (alice, bob)), timeout=60)
    await alice.command("/newgame")
    lobby = await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Join and add computer players"), timeout=60)
    await bob.press(lobby, "✋ Join")
    await fake.wait_for(lambda: "(2/" in current(fake, lobby, alice.user_id).text, timeout=60)
    await alice.press(current(fake, lobby, alice.user_id), "▶️ Start")
    message = await fake.wait_for(alice.live_message, timeout=60)
    fake.duplicate_deliveries(2, at_once=True)  # the same update reaches both workers at once
    data = fake.button_data(message.chat_id, message.message_id, "✅ Ready")
    press = await fake.press(alice.user_id, message.chat_id, message.message_id, data)
    await press.answer(timeout=60)  # the first answer may be the other worker's "already done"
    readies = "select count(*) from move where move = 'r' and seat = 0"
    for _ in range(600):  # up to a minute: the worker that took the update may still be applying it
        if await rows(pg_db_url, readies) != [(0,)]:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(1)  # a second application would show by now
    fake.duplicate_deliveries(1)
    no_trouble(fake, workers)
    assert await rows(pg_db_url, readies) == [(1,)]
    assert sum("already taken" in w.log_text for w in workers) >= 1


async def test_first_contacts_at_once_on_two_workers(
    fake: FakeTelegram, pg_db_url: str, workers: list[BotProcess], players: list[Player]
) -> None:
    alice, bob, cleo, dan = players
    fake.start_bot(alice.user_id)
    await fake.wait_for(lambda: len(alice.private()) >= 2, timeout=60)
    # A new group and two /newgame in it at once, by people the bot has never seen.
    new_group = -4100
    fake.add_group(new_group, "Newcomers", [alice.user_id, bob.user_id, cleo.user_id])
    await asyncio.gather(bob.command("/newgame", chat_id=new_group), cleo.command("/newgame smelly", chat_id=new_group))
    lobby = await fake.wait_for(
        lambda: next((m for m in fake.messages(new_group, as_user=bob.user_id) if has_button(m, "✋ Join")), None),
        timeout=60,
    )
    refusal = await fake.wait_for(lambda: find(fake, new_group, bob.user_id, "already a game waiting"), timeout=60)
    assert refusal.from_bot
    assert len([m for m in fake.messages(new_group, as_user=bob.user_id) if has_button(m, "✋ Join")]) == 1
    # A new user's first /start and first Join at the same moment.
    fake.start_bot(dan.user_id)
    fake.add_member(new_group, dan.user_id)
    pressed = await fake.press(
        dan.user_id, new_group, lobby.message_id, fake.button_data(new_group, lobby.message_id, "✋ Join")
    )
    answer = await pressed.answer(timeout=60)
    assert answer is not None
    if answer.url:  # Join was handled before /start: the deep link finishes it
        fake.open_deep_link(dan.user_id, answer.url)
    await fake.wait_for(lambda: "Dan" in current(fake, lobby, bob.user_id).text, timeout=60)
    assert await rows(pg_db_url, "select count(*) from player where id = 1004") == [(1,)]
    no_trouble(fake, workers)
