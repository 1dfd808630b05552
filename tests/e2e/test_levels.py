"""Computer levels through the real bot process: a human against three ``hard`` computers to the
end, in a group and in private. ``hard`` is made slow here (a stand-in burning CPU per decision),
so the computers think in the thinking thread, outside the transaction, as a search does."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import start_all
from tests.e2e.harness import GROUP, BotProcess, Player, current, find, open_lobby, play_until_over, table_message
from tests.e2e.privacy import leaks, leaks_in_logs, secret_cards
from tests.support.standin import standin_env

pytestmark = pytest.mark.slow


@pytest.fixture
async def bot(fake: FakeTelegram, database_url: str) -> AsyncIterator[BotProcess]:
    process = BotProcess(fake, database_url, extra_env=standin_env(5))
    await process.start()
    yield process
    await process.stop()


def computers_ranked(text: str) -> int:
    """How many computers the final ranking lists (one line a place: ``2nd  🤖 Ben``)."""
    return sum("🤖" in line for line in text.splitlines() if line[:1].isdigit())


async def test_one_human_against_three_hard_computers_in_a_group(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice = players[0]
    await start_all(fake, [alice])
    lobby = await open_lobby(fake, alice)

    async def tap(label: str, shown: str) -> None:  # on the lobby as it is now (an older one: already done)
        await alice.press(current(fake, lobby, alice.user_id), label)
        await fake.wait_for(lambda: shown in current(fake, lobby, alice.user_id).text, timeout=60)

    await tap("🤖 Hard", "(2/")
    await tap("🤖 Easy", "(3/")
    assert "(easy)" in current(fake, lobby, alice.user_id).text
    await tap("➖ Computer", "(2/")
    await tap("🤖 Hard", "(3/")
    await tap("🤖 Hard", "(4/")
    shown = current(fake, lobby, alice.user_id).text
    assert shown.count("(hard)") == 3
    assert "(easy)" not in shown
    await alice.press(lobby, "▶️ Start")
    await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "· #"), timeout=60)
    await play_until_over(fake, [alice])
    over = find(fake, GROUP, alice.user_id, "Game over")
    assert over is not None
    assert computers_ranked(over.text) == 3
    await fake.wait_for(lambda: not table_message(fake, GROUP, alice.user_id).keyboard, timeout=60)
    game_id = int(table_message(fake, GROUP, alice.user_id).text.split("· #")[1].split()[0])
    secrets = await secret_cards(bot.database_url, game_id)
    texts = [(m.chat_id, m.text) for chat in (GROUP, alice.user_id) for m in fake.history(chat)]
    assert leaks(texts, secrets, {0: alice.user_id}) == []
    assert leaks_in_logs(bot.log_text, secrets) == []


async def test_a_private_game_against_three_hard_computers_is_dealt_and_answers(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice = players[0]
    await start_all(fake, [alice])
    me = Player(fake, alice.user_id, alice.name, group=alice.user_id)
    await alice.command("/newgame hard 3", chat_id=alice.user_id)
    await fake.wait_for(lambda: me.live_message() is not None, timeout=60)
    assert find(fake, alice.user_id, alice.user_id, "play at the") is None  # a level was given: no advice
    for _ in range(3):  # the swap phase, then moves the three computers answer
        first = me.live_message()
        assert first is not None
        await me.play_turn()
        await fake.wait_for(lambda first=first: (m := me.live_message()) and m.text != first.text, timeout=60)
    # The newest turn message is the table while the game plays (no lobby, no deal announcement,
    # no table message to scroll past): the computers' cards are in it.
    assert find(fake, alice.user_id, alice.user_id, "· #") is None
    assert find(fake, alice.user_id, alice.user_id, "is dealt") is None
    turn = me.live_message()
    assert turn is not None
    assert turn.text.count("🤖") >= 3


async def test_newgame_in_private_without_a_level_says_how_to_choose(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice = players[0]
    await start_all(fake, [alice])
    await alice.command("/newgame", chat_id=alice.user_id)
    told = await fake.wait_for(lambda: find(fake, alice.user_id, alice.user_id, "play at the normal level"), timeout=60)
    assert "/newgame hard 3" in told.text
    await alice.command("/newgame grandmaster", chat_id=alice.user_id)
    usage = await fake.wait_for(lambda: find(fake, alice.user_id, alice.user_id, "Unknown game"), timeout=60)
    assert "easy, normal or hard" in usage.text


async def test_a_press_is_answered_before_the_computers_think(
    fake: FakeTelegram, database_url: str, players: list[Player]
) -> None:
    """Three computers taking 0.2 s a decision: the press is answered ("🤖 Thinking…") before they
    move, and the next turn comes after — the spinner never waits on their search."""
    slow = BotProcess(fake, database_url, extra_env=standin_env(200))
    await slow.start()
    try:
        alice = players[0]
        await start_all(fake, [alice])
        me = Player(fake, alice.user_id, alice.name, group=alice.user_id)
        await alice.command("/newgame hard 3", chat_id=alice.user_id)
        thought = 0
        for _ in range(12):
            message = await fake.wait_for(me.live_message, timeout=30)
            pressed_at = len(fake.calls)
            toast = await me.press(message, me.choose(message))
            await fake.wait_for(lambda m=message: me.live_message() not in (None, m) or game_over_for(fake, me), 30)
            if toast != "🤖 Thinking…":
                continue
            calls = fake.calls[pressed_at:]
            answered = next(i for i, c in enumerate(calls) if c.method == "answerCallbackQuery")
            sent = next(i for i, c in enumerate(calls) if c.method == "sendMessage")
            assert answered < sent, [c.method for c in calls]
            thought += 1
            if thought >= 2 or game_over_for(fake, me):
                break
        assert thought >= 1
    finally:
        await slow.stop()


def game_over_for(fake: FakeTelegram, me: Player) -> bool:
    return find(fake, me.user_id, me.user_id, "Game over") is not None
