"""Hostile and odd input against the real bot process: each gets a clear answer and changes nothing
it should not — a bad /newgame, forged button data, redelivered updates, absurd numbers."""

from __future__ import annotations

import json
import random
import sqlite3

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import start_all
from tests.e2e.harness import (
    GROUP,
    BotProcess,
    Player,
    current,
    find,
    has_button,
    open_lobby,
    start_workers,
    webhook_worker,
)

pytestmark = pytest.mark.slow


def db_rows(bot: BotProcess, query: str, *args: object) -> list[tuple[object, ...]]:
    with sqlite3.connect(bot.database_url.split(":///", 1)[1]) as db:
        return db.execute(query, args).fetchall()


def saved_house_rules(bot: BotProcess, chat_id: int = GROUP) -> dict[str, str]:
    rows = db_rows(bot, "select house_rules from chat where id = ?", chat_id)
    return json.loads(str(rows[0][0])) if rows else {}


async def replied(fake: FakeTelegram, player: Player, text: str, chat_id: int = GROUP) -> str:
    """The bot's newest message in the chat that contains ``text``."""

    def answer() -> str | None:
        found = [m for m in fake.messages(chat_id, as_user=player.user_id) if m.from_bot and text in m.text]
        return found[-1].text if found else None

    return await fake.wait_for(answer, timeout=60)


@pytest.mark.parametrize("bad", ["foo=bar", "8=explode", "decks=99", "four_burns=maybe", "lives=4"])
async def test_a_bad_newgame_is_refused_and_the_chat_still_plays(
    fake: FakeTelegram, bot: BotProcess, players: list[Player], bad: str
) -> None:
    alice, bob = players[:2]
    await start_all(fake, [alice, bob])
    await bob.command(f"/newgame standard {bad}")
    key = bad.partition("=")[0]  # his mistake: answered to him, in private

    def refusal() -> str | None:
        said = [m.text for m in fake.messages(bob.user_id, as_user=bob.user_id) if m.from_bot]
        return next((t for t in reversed(said) if f"{key}=" in t or "unknown house rule" in t), None)

    await fake.wait_for(refusal, timeout=60)
    assert not any(has_button(m, "✋ Join") for m in fake.messages(GROUP, as_user=alice.user_id))
    assert saved_house_rules(bot) == {}
    lobby = await open_lobby(fake, alice)  # a plain /newgame opens a lobby, as always
    assert "standard" in lobby.text


async def test_house_rules_given_with_newgame_are_for_that_game_only(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice, bob = players[:2]  # Bob is no admin
    await start_all(fake, [alice, bob])
    lobby = await open_lobby(fake, bob, "standard 8=skip")
    assert "8 skip" in lobby.text
    assert saved_house_rules(bot) == {}
    await bob.command("/abort")
    confirm = await fake.wait_for(lambda: find(fake, GROUP, bob.user_id, "Abort game"), timeout=60)
    await bob.press(confirm, "🛑 Yes, abort")
    await fake.wait_for(lambda: not current(fake, lobby, alice.user_id).buttons, timeout=60)
    again = await open_lobby(fake, alice)
    assert "skip" not in again.text.lower()


async def test_invalid_saved_settings_still_start_a_game(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice = players[0]
    await start_all(fake, [alice])
    await alice.command("/settings")
    await replied(fake, alice, "Settings of this chat")
    with sqlite3.connect(bot.database_url.split(":///", 1)[1]) as db:  # saved by an older version, say
        db.execute("update chat set house_rules = ? where id = ?", ('{"foo": "bar", "8": "explode"}', GROUP))
    lobby = await open_lobby(fake, alice)
    assert "standard" in lobby.text
    note = await replied(fake, alice, "saved house rules cannot be used")
    assert "/settings@shithead_test_bot rules clear" in note  # a group text names the bot (privacy mode)


async def test_forged_random_and_non_ascii_button_data(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice, bob = players[:2]
    await start_all(fake, [alice, bob])
    lobby = await open_lobby(fake, alice)
    version = db_rows(bot, "select version from game")
    rng = random.Random(3)
    forged = ["x:é", "m:1:1:r:é", "é" * 30, "\u202e" + "j:1:0::AAAAAAAA", "💩"]
    forged += [bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 40))).decode("latin-1") for _ in range(25)]
    for data in forged:
        data = data[:64] if len(data.encode()) <= 64 else data.encode()[:64].decode("utf-8", "ignore") or "?"
        press = await fake.forge_press(bob.user_id, GROUP, lobby.message_id, data)
        answer = await press.answer(timeout=60)
        assert answer is not None
        assert answer.text == "This button is not valid.", data
    assert db_rows(bot, "select version from game") == version
    toasts = " ".join(str(c.params.get("text", "")) for c in fake.calls_of("answerCallbackQuery"))
    assert "Something went wrong" not in toasts
    await bob.command("/start é_é", chat_id=bob.user_id)  # typed by hand: no deep link carries that
    await replied(fake, bob, "This link is not valid", chat_id=bob.user_id)
    assert "Traceback" not in bot.log_text
    assert " ERROR " not in bot.log_text


async def test_absurd_numbers_in_settings_get_an_answer(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice = players[0]  # a chat admin
    await start_all(fake, [alice])
    huge = "99999999999999999999"
    for command, answer in [  # her mistakes: answered to her, in private
        (f"/settings timeouts {huge}", "0 (never) to 20"),
        (f"/settings reminders {huge}h", "1s to 30d"),
        (f"/settings reminders {huge}%", "between 1% and 99%"),
        (f"/settings turn {huge}", "choose one of"),
    ]:
        await alice.command(command)
        await replied(fake, alice, answer, chat_id=alice.user_id)
    await alice.command(f"/quiet {huge}:00-08:00")
    await replied(fake, alice, "Write quiet hours like", chat_id=alice.user_id)
    assert db_rows(bot, "select max_timeouts, reminders from chat where id = ?", GROUP) in ([(3, None)], [(3, "null")])
    assert " ERROR " not in bot.log_text


async def test_redelivered_webhook_updates_apply_once(
    fake: FakeTelegram, database_url: str, players: list[Player]
) -> None:
    alice, bob = players[:2]
    worker = webhook_worker(fake, database_url)
    try:
        await start_workers(fake, [worker])
        await start_all(fake, [alice, bob])
        lobby = await open_lobby(fake, alice)
        fake.duplicate_deliveries(3)  # Telegram retried: the same update three times
        await alice.press(current(fake, lobby, alice.user_id), "🤖 Normal")
        await fake.wait_for(lambda: "(2/" in current(fake, lobby, alice.user_id).text, timeout=60)
        await bob.press(current(fake, lobby, bob.user_id), "✋ Join")
        await fake.wait_for(lambda: "(3/" in current(fake, lobby, alice.user_id).text, timeout=60)
        await alice.press(current(fake, lobby, alice.user_id), "➖ Computer")
        await fake.wait_for(lambda: "(2/" in current(fake, lobby, alice.user_id).text, timeout=60)
        fake.duplicate_deliveries(1)
        await alice.command("/rules")  # a later update, so that any late duplicate would have shown
        await replied(fake, alice, "Shithead")
        assert db_rows(worker, "select count(*) from seat") == [(2,)]
        assert db_rows(worker, "select count(*) from seat where computer_level is not null") == [(0,)]
        assert "delivered again, already taken" in worker.log_text
    finally:
        await worker.stop()


async def test_two_taps_of_add_computer_at_once_add_one(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice = players[0]
    await start_all(fake, [alice])
    lobby = await open_lobby(fake, alice)
    data = fake.button_data(GROUP, lobby.message_id, "🤖 Normal")
    presses = [await fake.press(alice.user_id, GROUP, lobby.message_id, data) for _ in range(2)]
    answers = sorted([(a.text or "") if (a := await p.answer(timeout=60)) else "" for p in presses])
    assert answers == ["", "Already done."]
    await fake.wait_for(lambda: "(2/" in current(fake, lobby, alice.user_id).text, timeout=60)
    assert db_rows(bot, "select count(*) from seat where computer_level is not null") == [(1,)]
