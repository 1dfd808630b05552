"""Whole games through the real bot process and the fake Telegram, users pressing only what they see."""

from __future__ import annotations

import asyncio

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import start_all
from tests.e2e.harness import GROUP, BotProcess, Player, find, play_until_over, start_game, table_message
from tests.e2e.privacy import deal_secrets, deal_shown, leaks, leaks_in_logs, secret_cards

pytestmark = pytest.mark.slow


async def finish_and_audit(fake: FakeTelegram, bot: BotProcess, players: list[Player], game_id: int) -> str:
    """Play to the end; check the ranking is shown, the table is final, and nothing leaked."""
    await play_until_over(fake, players)
    over = find(fake, GROUP, players[0].user_id, "Game over")
    assert over is not None
    assert over.button("🔁 Rematch") is not None
    await fake.wait_for(lambda: not table_message(fake, GROUP, players[0].user_id).keyboard, timeout=60)
    for player in players:  # each result follows the group's announcement: the audit reads them too
        await fake.wait_for(lambda p=player: any("Game over" in m.text for m in p.private()), timeout=60)
    final = table_message(fake, GROUP, players[0].user_id)
    if final.photo is not None:  # the picture table ends as a picture of the ranking
        assert "is the" in final.text or "win" in final.text
        assert fake.call_counts().get("editMessageMedia", 0) > 0
    secrets = await secret_cards(bot.database_url, game_id)
    owner_chat = {seat: p.user_id for seat, p in enumerate(players)}
    texts = [(m.chat_id, m.text) for chat in [GROUP, *(p.user_id for p in players)] for m in fake.history(chat)]
    assert leaks(texts, secrets, owner_chat) == []
    assert leaks_in_logs(bot.log_text, secrets) == []
    deal = await deal_secrets(bot.database_url, game_id)  # revealed by the game's last message only
    assert set(deal_shown(texts, deal)) == {over.text}, deal_shown(texts, deal)
    assert deal_shown([(0, bot.log_text)], deal) == []
    return over.text


@pytest.mark.parametrize("preset", ["smelly", "classic", "free", "standard"])
async def test_three_players_from_newgame_to_ranking(
    fake: FakeTelegram, bot: BotProcess, players: list[Player], preset: str
) -> None:
    trio = players[:3]
    await start_all(fake, trio)
    game_id = await start_game(fake, trio, args=preset)
    table = table_message(fake, GROUP, trio[0].user_id)
    assert "Swap phase" in table.text
    assert table.photo is not None  # the default table is a picture with a caption
    assert "🔐 Deal fingerprint: " in table.text
    await trio[1].command("/verify")
    early = await fake.wait_for(lambda: find(fake, GROUP, trio[1].user_id, "is not over"), timeout=60)
    assert table.text.split("🔐 Deal fingerprint: ")[1][:16] in early.text
    text = await finish_and_audit(fake, bot, trio, game_id)
    assert "🔓 The deal, revealed: seed " in text
    await trio[2].command("/verify")
    checked = await fake.wait_for(lambda: find(fake, GROUP, trio[2].user_id, "Everything matches"), timeout=60)
    assert "❌" not in checked.text
    assert table_message(fake, GROUP, trio[0].user_id).photo is not None
    assert text.count("\n") >= 4  # title, three places, the loser
    title = "ShitSmelly Head" if preset == "smelly" else "Shithead"
    assert f"is the {title}!" in text


async def test_one_human_and_two_computers(fake: FakeTelegram, bot: BotProcess, players: list[Player]) -> None:
    alice = players[:1]
    await start_all(fake, alice)
    await alice[0].command("/settings table text")  # Alice is the group's admin
    await fake.wait_for(lambda: find(fake, GROUP, alice[0].user_id, "Table: text"), timeout=60)
    game_id = await start_game(fake, alice, computers=2)
    table = table_message(fake, GROUP, alice[0].user_id)
    assert table.photo is None
    assert "Stock:" in table.text or "Swap phase" in table.text
    text = await finish_and_audit(fake, bot, alice, game_id)
    assert table_message(fake, GROUP, alice[0].user_id).photo is None
    assert "🤖" in text
    await alice[0].command("/stats")
    board = await fake.wait_for(lambda: find(fake, GROUP, alice[0].user_id, "Games played: standard 1"), timeout=60)
    assert "Ratings" in board.text
    assert "Alice" in board.text
    assert "computer (normal)" in board.text
    await alice[0].command("/stats", chat_id=alice[0].user_id)
    record = await fake.wait_for(lambda: find(fake, alice[0].user_id, alice[0].user_id, "Your record"), timeout=60)
    assert "Your ratings" in record.text
    assert "Overall" in record.text
    assert "You play like the normal computer." in record.text
    assert "Your record: 1 game," in record.text


async def test_neighbor_to_the_end(fake: FakeTelegram, bot: BotProcess, players: list[Player]) -> None:
    await start_all(fake, players)
    game_id = await start_game(fake, players, args="neighbor")
    text = await finish_and_audit(fake, bot, players, game_id)
    assert "won!" in text


async def test_private_game_against_computers(fake: FakeTelegram, bot: BotProcess, players: list[Player]) -> None:
    alice = players[0]
    await start_all(fake, [alice])
    await alice.command("/newgame", chat_id=alice.user_id)
    await fake.wait_for(lambda: alice.live_message() is not None, timeout=60)
    me = Player(fake, alice.user_id, alice.name, group=alice.user_id)
    await play_until_over(fake, [me])
    assert find(fake, alice.user_id, alice.user_id, "Game over") is not None


async def test_api_calls_per_move_stay_low(fake: FakeTelegram, bot: BotProcess, players: list[Player]) -> None:
    duo = players[:2]
    await start_all(fake, duo)
    await start_game(fake, duo)
    fake.reset_calls()
    presses = await play_until_over(fake, duo)
    await asyncio.sleep(0.5)
    counts = fake.call_counts()
    api_calls = sum(n for method, n in counts.items() if method not in ("getUpdates", "getMe"))
    answers = counts["answerCallbackQuery"]  # every press is answered, those that came too late too
    assert answers >= presses
    assert (api_calls - answers) / presses <= 3.0, counts  # besides the answer, at most 3 calls a move
