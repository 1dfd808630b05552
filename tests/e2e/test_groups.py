"""Real groups (issue 23): anonymous admins, posts on behalf of a channel, privacy mode with other
bots in the group, and who may start a lobby — against the real bot process."""

from __future__ import annotations

import sqlite3

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import FLOW_LIMITS, start_all
from tests.e2e.harness import (
    GROUP,
    BotProcess,
    Player,
    bot_says,
    current,
    find,
    has_button,
    open_lobby,
    running_bot,
    start_game,
    table_message,
)

pytestmark = pytest.mark.slow
ANONYMOUS = 1087968824
BOT = "shithead_test_bot"
DEALT = "Dealt! Check your private chat with me."


def db_rows(bot: BotProcess, query: str, *args: object) -> list[tuple[object, ...]]:
    with sqlite3.connect(bot.database_url.split(":///", 1)[1]) as db:
        return db.execute(query, args).fetchall()



async def test_an_anonymous_admin_runs_the_game_and_a_channel_runs_nothing(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice, bob = players[:2]  # Alice is the group's admin; Bob is not
    await start_all(fake, [alice, bob])
    await fake.send_as_group(alice.user_id, GROUP, "/settings turn 1h")
    assert "1 h" in await bot_says(fake, alice.user_id, "Turn time")  # one line: what changed
    assert db_rows(bot, "select turn_seconds from chat where id = ?", GROUP) == [(3600,)]

    fake.add_channel(-1007777, "Bob's channel")
    await fake.send_as_channel(bob.user_id, GROUP, -1007777, "/newgame")
    assert "channel" in await bot_says(fake, bob.user_id, "channel")
    assert db_rows(bot, "select count(*) from game") == [(0,)]

    await fake.send_as_group(alice.user_id, GROUP, "/newgame")
    lobby = await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Players (0/"), timeout=60)
    assert "a chat admin" in lobby.text
    assert db_rows(bot, "select created_by from game") == [(None,)]
    assert db_rows(bot, "select count(*) from player where id = ?", ANONYMOUS) == [(0,)]
    assert await bob.press(lobby, "✋ Join") is not None
    assert await alice.press(lobby, "✋ Join") is not None
    await fake.wait_for(lambda: "(2/" in current(fake, lobby, alice.user_id).text, timeout=60)
    assert await bob.press(current(fake, lobby, bob.user_id), "▶️ Start") == (
        "Only the game's creator or a chat admin can do that."
    )

    await fake.send_as_group(alice.user_id, GROUP, "/pause")  # a lobby cannot be paused: a clear answer
    await bot_says(fake, alice.user_id, "has not started")
    await fake.send_as_group(alice.user_id, GROUP, "/abort")
    confirm = await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Abort game"), timeout=60)
    assert await bob.press(confirm, "🛑 Yes, abort") == "Only the game's creator or a chat admin can do that."
    await alice.press(confirm, "🛑 Yes, abort")
    await fake.wait_for(lambda: not current(fake, lobby, alice.user_id).buttons, timeout=60)
    assert db_rows(bot, "select status from game") == [("aborted",)]


async def test_an_anonymous_admin_pauses_a_game(fake: FakeTelegram, bot: BotProcess, players: list[Player]) -> None:
    alice, bob = players[:2]
    await start_all(fake, [alice, bob])
    await fake.send_as_group(alice.user_id, GROUP, "/newgame")
    lobby = await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Players (0/"), timeout=60)
    await bob.press(lobby, "✋ Join")
    await bob.press(current(fake, lobby, bob.user_id), "🤖 Easy")
    await fake.wait_for(lambda: "(2/" in current(fake, lobby, alice.user_id).text, timeout=60)
    assert await alice.press(current(fake, lobby, alice.user_id), "▶️ Start") == DEALT
    await fake.send_as_group(alice.user_id, GROUP, "/pause")
    await fake.wait_for(lambda: db_rows(bot, "select status from game") == [("paused",)], timeout=60)
    await fake.send_as_group(alice.user_id, GROUP, "/hand")  # personal commands: write as yourself
    assert "as yourself" in await bot_says(fake, alice.user_id, "as yourself")
    assert db_rows(bot, "select count(*) from player where id = ?", ANONYMOUS) == [(0,)]


async def test_only_the_creator_or_an_admin_starts_and_the_texts_say_so(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice, bob, cleo = players[:3]  # Alice is the admin; Bob opens the lobby
    await start_all(fake, [alice, bob, cleo])
    lobby = await open_lobby(fake, bob)
    assert "Bob or a chat admin" in lobby.text
    await cleo.press(lobby, "✋ Join")
    await fake.wait_for(lambda: "(2/" in current(fake, lobby, bob.user_id).text, timeout=60)
    assert await cleo.press(current(fake, lobby, cleo.user_id), "▶️ Start") == (
        "Only the game's creator or a chat admin can do that."
    )
    assert await alice.press(current(fake, lobby, alice.user_id), "▶️ Start") == DEALT
    await cleo.command("/help")
    helped = await bot_says(fake, cleo.user_id, "taps Start")
    assert "or a chat admin" in helped


async def test_privacy_mode_commands_name_the_bot(fake: FakeTelegram, database_url: str, players: list[Player]) -> None:
    alice, bob = players[:2]
    async with running_bot(fake, database_url, extra_env=FLOW_LIMITS) as bot:
        await start_all(fake, [alice, bob])
        fake.add_group(-4002, "Second", [alice.user_id, bob.user_id])
        greeting = await bot_says(fake, alice.user_id, f"/newgame@{BOT}", chat_id=-4002)
        assert len(greeting.splitlines()) == 1

        fake.add_other_bot(555, "Dice", "dice_bot")
        fake.other_bot_posts(555, GROUP, "🎲 4")
        await alice.command("/newgame")  # privacy mode: it went to the other bot, not us
        await alice.command(f"/newgame@{BOT}")
        lobby = await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Players (1/"), timeout=60)
        assert has_button(lobby, "✋ Join")
        assert db_rows(bot, "select count(*) from game") == [(1,)]
        await alice.command(f"/help@{BOT}")
        helped = await bot_says(fake, alice.user_id, "taps Start")
        assert f"/newgame@{BOT}" in helped
        assert f"/hand@{BOT}" in helped
        assert " /hand " not in helped
    assert "privacy mode" in bot.log_text
    assert "maximum number of running instances" not in bot.log_text, bot.log_text


async def test_the_bot_removed_then_added_again_posts_the_table_with_resume(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    """Back after a removal, the paused game does not wait in silence for 30 days."""
    alice, bob = players[:2]
    await start_all(fake, [alice, bob])
    await start_game(fake, [alice, bob])
    fake.remove_bot_from_group(GROUP, by_user=alice.user_id)
    await fake.wait_for(lambda: any("removed or muted" in line for line in bot.logs), timeout=60)
    fake.add_member(GROUP, fake.world.bot.id)
    back = await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "I am back"), timeout=60)
    assert "Resume" in back.text
    # posted anew, below that line: not the old one far up (which goes)
    table = await fake.wait_for(lambda: (t := table_message(fake, GROUP, alice.user_id)).message_id > back.message_id and t)  # noqa: E501
    # the old one is deleted after the new one is posted
    await fake.wait_for(lambda: len([m for m in fake.messages(GROUP, alice.user_id) if "· #" in m.text]) == 1)
    assert any(b.text == "▶️ Resume" for b in table.buttons)
    await alice.press(table, "▶️ Resume")
    await fake.wait_for(lambda: any(p.live_message() for p in (alice, bob)), timeout=60)


async def test_a_muted_bot_pauses_its_game_and_goes_on_once_it_may_speak(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice, bob = players[:2]
    await start_all(fake, [alice, bob])
    await start_game(fake, [alice, bob])
    fake.restrict_bot(GROUP)  # may send nothing
    await fake.wait_for(lambda: any("removed or muted" in line for line in bot.logs), timeout=60)
    fake.restrict_bot(GROUP, messages=True, photos=True)  # the restriction lifted
    try:
        back = await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "I am back"), timeout=60)
    except AssertionError:
        print(bot.log_text)
        raise
    assert "#" in back.text
    assert " ERROR " not in bot.log_text


async def test_a_bot_muted_without_being_told_treats_the_refusal_as_a_removal(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    """Telegram's 400 "not enough rights to send text messages" is not a message to drop and log."""
    alice, bob = players[:2]
    await start_all(fake, [alice, bob])
    await start_game(fake, [alice, bob])
    fake.world.chats[GROUP].bot_muted = frozenset({"messages"})  # no my_chat_member update
    await alice.command("/forfeit", chat_id=alice.user_id)
    confirm = await fake.wait_for(lambda: find(fake, alice.user_id, alice.user_id, "Leave game"), timeout=60)
    await alice.press(confirm, "🏳 Yes, leave")  # "Alice left the game" cannot be posted
    await fake.wait_for(lambda: any("may not send there" in line for line in bot.logs), timeout=60)
    assert " ERROR " not in bot.log_text


async def test_a_player_who_unblocks_the_bot_gets_the_message_their_game_waits_on(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice, bob = players[:2]
    await start_all(fake, [alice, bob])
    await start_game(fake, [alice, bob])
    swap = await fake.wait_for(bob.live_message, timeout=60)
    fake.block_bot(bob.user_id)
    fake.unblock_bot(bob.user_id)  # no link pressed, no /start: just unblocked
    again = await fake.wait_for(lambda: (m := bob.live_message()) is not None and m.message_id > swap.message_id and m)
    assert again.message_id > swap.message_id  # his cards again, at the bottom of the chat


async def test_a_bare_start_brings_back_the_message_a_game_waits_on(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    """A player who lost their game message (cleared the chat, say) writes /start: the message of
    every game where they may act comes again, at the bottom, and stays the only live one."""
    alice, bob = players[:2]
    await start_all(fake, [alice, bob])
    await start_game(fake, [alice, bob])
    swap = await fake.wait_for(bob.live_message, timeout=60)
    fake.start_bot(bob.user_id)
    again = await fake.wait_for(
        lambda: (m := bob.live_message()) is not None and m.message_id > swap.message_id and m, timeout=60
    )
    assert "Swap phase" in again.text
    await fake.wait_for(lambda: len([m for m in bob.private() if any(b.callback_data for b in m.buttons)]) == 1, 60)
    assert bob.live_message() == again  # the old one lost its buttons
