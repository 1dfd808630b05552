"""Texts as a new user meets them (issue 23, item 7), against the real bot process: someone else's
confirmation, a refused /settings, /quiet's errors, too many computers, a private game's opening."""

from __future__ import annotations

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import start_all
from tests.e2e.harness import GROUP, BotProcess, Player, asks_to_act, bot_says, current, find, open_lobby

pytestmark = pytest.mark.slow


async def test_confirmations_settings_and_quiet_answer_the_right_person(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice, bob = players[:2]  # Alice is the admin
    await start_all(fake, [alice, bob])
    await alice.command("/newgame")
    await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Players (1/"), timeout=60)
    await alice.command("/forfeit")
    confirm = await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "for good?"), timeout=60)
    assert await bob.press(confirm, "🏳 Yes, leave") == "Only whoever asked can answer this."

    before = len(fake.messages(GROUP, as_user=bob.user_id))
    await bob.command("/settings turn 1h")
    assert "Only a chat admin" in await bot_says(fake, bob.user_id, "Only a chat admin", chat_id=bob.user_id)
    assert len(fake.messages(GROUP, as_user=bob.user_id)) == before + 1  # his command only: nothing public

    await bob.command("/quiet 25:00-08:00", chat_id=bob.user_id)
    assert "25:00" in await bot_says(fake, bob.user_id, "not a time", chat_id=bob.user_id)
    fake.world.users[bob.user_id].language_code = "fr"
    await bob.command("/quiet 22:00-22:00", chat_id=bob.user_id)
    await bot_says(fake, bob.user_id, "heure", chat_id=bob.user_id)


async def test_a_private_game_says_its_limit_and_opens_with_few_messages(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice = players[0]
    await start_all(fake, [alice])
    await alice.command("/newgame hard 9", chat_id=alice.user_id)
    assert "at most 5 players" in await bot_says(fake, alice.user_id, "at most", chat_id=alice.user_id)
    before = len(alice.private())
    await alice.command("/newgame easy 2", chat_id=alice.user_id)
    await fake.wait_for(lambda: any(m.from_bot and asks_to_act(m.text) for m in alice.private()), timeout=60)
    opened = [m for m in alice.private()[before:] if m.from_bot]
    assert len(opened) == 1, [m.text[:60] for m in opened]  # the swap message: it is the table too
    assert "Deal fingerprint" in opened[0].text
    assert not [(m.text[:40], b) for m in opened for b in m.buttons if b.url]


async def test_the_group_reads_the_chats_language_and_a_person_their_own(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    """Issue 34 item 2: what is posted in the group follows the chat's setting (English while it is
    each player's own); a toast or a private answer follows its reader's language."""
    alice, bob, cleo = players[:3]  # Alice is the admin, English; Bob reads French
    fake.world.users[bob.user_id].language_code = "fr"
    await start_all(fake, [alice, bob, cleo])
    await bob.command("/stats")
    assert "No rated game yet" in await bot_says(fake, bob.user_id, "rated")
    lobby = await open_lobby(fake, alice)
    assert await bob.press(lobby, "✋ Join") != "You are in! Your cards will come here in private."  # his own
    await cleo.press(lobby, "✋ Join")
    await fake.wait_for(lambda: "(3/" in current(fake, lobby, alice.user_id).text, timeout=60)
    await alice.press(lobby, "▶️ Start")
    await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "· #"), timeout=60)
    await bob.command("/pause")  # a vote, posted in the group
    assert "majority of the players" in await bot_says(fake, bob.user_id, "pause")

    await alice.command("/settings language fr")
    await bot_says(fake, alice.user_id, "⚙️ Langue : fr (avant : en (auto)).")
    await alice.command("/abort")
    question = await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Annuler la partie"), timeout=60)
    assert await cleo.press(question, "Non") == "Only whoever asked can answer this."  # a toast: hers
    await alice.press(question, "Non")
    assert "La partie continue" in await bot_says(fake, alice.user_id, "La partie continue")
