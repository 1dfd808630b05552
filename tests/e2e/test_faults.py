"""Bad input and faults, each with its defined outcome, against the real bot process."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from collections import Counter

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import start_all
from tests.e2e.harness import (
    GROUP,
    ROOT,
    BotProcess,
    Player,
    asks_to_act,
    current,
    find,
    has_button,
    open_lobby,
    play_until_over,
    start_game,
    table_message,
)

pytestmark = pytest.mark.slow


def db_rows(bot: BotProcess, query: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(bot.database_url.split(":///", 1)[1]) as db:
        return db.execute(query).fetchall()


async def test_double_press_one_wins_the_other_is_out_of_date(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    duo = players[:2]
    await start_all(fake, duo)
    await start_game(fake, duo)
    alice = duo[0]
    message = await fake.wait_for(alice.live_message, timeout=60)
    data = fake.button_data(message.chat_id, message.message_id, "✅ Ready")
    first = await fake.press(alice.user_id, message.chat_id, message.message_id, data)
    second = await fake.press(alice.user_id, message.chat_id, message.message_id, data)
    answers = [await p.answer(timeout=60) for p in (first, second)]
    assert sorted((a.text or "") if a else "" for a in answers) == ["", "This button is out of date."]
    assert db_rows(bot, "select count(*) from move where seat = 0 and move = 'r'") == [(1,)]


async def test_forged_and_garbled_presses_change_nothing(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    duo = players[:2]
    await start_all(fake, duo)
    await start_game(fake, duo)
    alice = duo[0]
    message = await fake.wait_for(alice.live_message, timeout=60)
    version_before = db_rows(bot, "select version from game")
    for data in ("m:1:1:r:AAAAAAAA", "garbage", "j:999:0::zzzzzzzz", "x" * 64):
        press = await fake.forge_press(alice.user_id, message.chat_id, message.message_id, data)
        answer = await press.answer(timeout=60)
        assert answer is not None
        assert answer.text == "This button is not valid."
    assert db_rows(bot, "select version from game") == version_before
    await fake.wait_for(lambda: bot.log_text.count("refused a press by user 1001") >= 4, timeout=60)


async def test_someone_elses_buttons(fake: FakeTelegram, bot: BotProcess, players: list[Player]) -> None:
    alice, bob, cleo, dan = players
    await start_all(fake, players)
    await start_game(fake, [alice, bob, cleo])
    await alice.command("/forfeit")
    confirm = await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Leave game"), timeout=60)
    assert await bob.press(confirm, "🏳 Yes, leave") == "Only whoever asked can answer this."
    assert await dan.press(confirm, "No") == "Only whoever asked can answer this."
    assert await alice.press(confirm, "🏳 Yes, leave") is None
    await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Alice left the game") is not None, timeout=60)
    await play_until_over(fake, [bob, cleo])
    over = find(fake, GROUP, dan.user_id, "Game over")
    assert over is not None
    assert "3rd  Alice" in over.text  # the first to forfeit is last
    assert await dan.press(over, "🔁 Rematch") == "You are not playing in this game."


async def test_a_player_who_never_started_the_bot_joins_by_deep_link(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice, bob = players[:2]
    await start_all(fake, [alice])
    lobby = await open_lobby(fake, alice)
    join = fake.button_data(GROUP, lobby.message_id, "✋ Join")
    pressed = await fake.press(bob.user_id, GROUP, lobby.message_id, join)
    answer = await pressed.answer(timeout=60)
    assert answer is not None
    assert answer.url is not None
    assert answer.url.startswith("https://t.me/shithead_test_bot?start=join_")
    fake.open_deep_link(bob.user_id, answer.url)
    await fake.wait_for(lambda: "Alice, Bob" in current(fake, lobby, alice.user_id).text, timeout=60)
    assert find(fake, bob.user_id, bob.user_id, "You joined game #") is not None


async def test_a_player_who_blocked_the_bot_is_asked_in_the_group(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice, bob = players[:2]
    await start_all(fake, [alice, bob])
    lobby = await open_lobby(fake, alice)
    await bob.press(lobby, "✋ Join")
    fake.block_bot(bob.user_id)
    await asyncio.sleep(0.3)
    await alice.press(lobby, "▶️ Start")
    ask = await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "I cannot message you"), timeout=60)
    assert "Bob" in ask.text
    link = fake.url_buttons(GROUP, ask.message_id)[0].url
    assert link is not None
    assert db_rows(bot, "select status from game") == [("swapping",)]  # his turn waits as usual
    fake.open_deep_link(bob.user_id, link)
    await fake.wait_for(bob.live_message, timeout=60)
    await play_until_over(fake, [alice, bob])


async def test_rate_limit_429_is_waited_out(fake: FakeTelegram, bot: BotProcess, players: list[Player]) -> None:
    duo = players[:2]
    await start_all(fake, duo)
    await start_game(fake, duo)
    fake.fail_next("sendMessage", times=2, retry_after=1)
    fake.fail_next("editMessageText", times=1, retry_after=1)
    await play_until_over(fake, duo)
    assert any(call.result == 429 for call in fake.calls)


async def test_deleted_table_message_is_posted_again(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    duo = players[:2]
    await start_all(fake, duo)
    await start_game(fake, duo)
    table = table_message(fake, GROUP, duo[0].user_id)
    stored = fake.world.message(GROUP, table.message_id)
    assert stored is not None
    stored.deleted = True  # an admin deleted it
    await play_until_over(fake, duo)
    new_table = table_message(fake, GROUP, duo[0].user_id)
    assert new_table.message_id != table.message_id
    assert db_rows(bot, "select table_message_id from game") == [(new_table.message_id,)]


async def test_group_migration_moves_the_game(fake: FakeTelegram, bot: BotProcess, players: list[Player]) -> None:
    duo = players[:2]
    await start_all(fake, duo)
    await start_game(fake, duo)
    for _ in range(4):
        await asyncio.gather(*(p.play_turn() for p in duo))
        await asyncio.sleep(0.2)
    new_id = fake.migrate_group(GROUP)
    await fake.wait_for(lambda: db_rows(bot, "select chat_id from game") == [(new_id,)], timeout=60)
    moved = [Player(fake, p.user_id, p.name, group=new_id) for p in duo]
    await play_until_over(fake, moved)
    assert find(fake, new_id, duo[0].user_id, "Game over") is not None


async def test_removed_from_the_group_pauses_the_game(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    duo = players[:2]
    await start_all(fake, duo)
    await start_game(fake, duo)
    fake.remove_bot_from_group(GROUP, by_user=duo[0].user_id)
    await fake.wait_for(lambda: db_rows(bot, "select status from game") == [("paused",)], timeout=60)


async def test_killed_and_restarted_mid_game(fake: FakeTelegram, bot: BotProcess, players: list[Player]) -> None:
    trio = players[:3]
    await start_all(fake, trio)
    await start_game(fake, trio)
    for _ in range(10):
        for player in trio:
            await player.play_turn()
        await asyncio.sleep(0.1)
    await bot.stop(kill=True)
    await bot.start()
    await play_until_over(fake, trio)
    turn_messages: Counter[tuple[int, str]] = Counter()
    for player in trio:
        for version in fake.history(player.user_id):
            if asks_to_act(version.text) and version.version == 0:
                # the buttons that carry the seat's keyboard version: a move, or a swap-phase pick
                # (not the turn's "🌴 Away…" button, which carries none)
                data = [(b.callback_data or "").split(":") for b in version.buttons]
                keys = {d[2] for d in data if d[0] in ("m", "p")}
                turn_messages.update((player.user_id, key) for key in keys)
    assert turn_messages
    # No turn was announced twice, but for at most one: the turn message sent in the instant
    # between its send and its report's write when the process was killed goes again after the
    # restart (its id was never recorded; the retried batch takes the first copy's buttons off:
    # tests/e2e/test_crash_windows.py). A loaded machine widens that instant: CI met it once.
    twice = {key: count for key, count in turn_messages.items() if count > 1}
    assert len(twice) <= 1, twice
    assert all(count == 2 for count in twice.values()), twice


async def test_commands(fake: FakeTelegram, bot: BotProcess, players: list[Player]) -> None:
    alice, bob = players[:2]
    await start_all(fake, [alice, bob])
    await alice.command("/help")
    await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "/newgame") is not None, timeout=60)
    await alice.command("/rules")
    rules = await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Get rid of your cards"), timeout=60)
    assert "10: burns the pile" in rules.text
    await start_game(fake, [alice, bob], args="smelly four_burns=off")
    await bob.command("/rules")
    await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "House rules: four_burns=off") is not None, timeout=60)
    await bob.command("/games", chat_id=bob.user_id)
    listed = await fake.wait_for(lambda: find(fake, bob.user_id, bob.user_id, "📥 Your games"), timeout=60)
    await bob.press(listed, next(b.text for b in listed.buttons))
    await bob.command("/hand")
    await fake.wait_for(lambda: sum(asks_to_act(m.text) for m in bob.private()) >= 2, timeout=60)
    await bob.command("/abort")  # refused in private: the group is not cluttered with it
    await fake.wait_for(lambda: find(fake, bob.user_id, bob.user_id, "Only the game's creator") is not None, timeout=60)
    assert find(fake, GROUP, alice.user_id, "Only the game's creator") is None
    await alice.command("/abort")
    confirm = await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Abort game"), timeout=60)
    await alice.press(confirm, "🛑 Yes, abort")
    await fake.wait_for(lambda: db_rows(bot, "select status from game") == [("aborted",)], timeout=60)
    await alice.command("/nonsense", chat_id=alice.user_id)
    await fake.wait_for(lambda: sum("/newgame" in m.text for m in alice.private()) >= 2, timeout=60)


async def test_second_newgame_points_to_the_open_one(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice, bob = players[:2]
    await start_all(fake, [alice, bob])
    await open_lobby(fake, alice)
    await bob.command("/newgame")
    reply = await fake.wait_for(lambda: find(fake, GROUP, bob.user_id, "already a game"), timeout=60)
    assert "#1" in reply.text
    assert sum(has_button(m, "✋ Join") for m in fake.messages(GROUP, alice.user_id)) == 1


async def test_missing_and_rejected_tokens_are_one_line(fake: FakeTelegram, database_url: str) -> None:
    env = {"DATABASE_URL": database_url, "TELEGRAM_API_URL": fake.base_url, "PATH": "/usr/bin:/bin"}
    for token in ("", "999:not-the-token"):
        done = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "shithead_bot.cli",
            "run",
            cwd=ROOT,
            env={**env, "TELEGRAM_BOT_TOKEN": token},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await asyncio.wait_for(done.communicate(), 60)
        assert done.returncode == 2
        lines = err.decode().strip().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith("shithead-bot: ")
