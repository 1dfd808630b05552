"""Forum groups: a game created in a topic lives in that topic — lobby, table, announcements, the
end and the rematch — and a topic closed or deleted mid-game moves it to General once, saying so."""

from __future__ import annotations

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import start_all
from tests.e2e.harness import BotProcess, Player, find, play_until_over, start_game

pytestmark = pytest.mark.slow
FORUM = -1004242


def forum_with_topic(fake: FakeTelegram, players: list[Player]) -> int:
    """A forum of these players, a topic in it, and everybody writing in that topic."""
    members = [p.user_id for p in players]
    fake.add_group(FORUM, "Card club", members, admins=members[:1], supergroup=True, forum=True)
    topic = fake.create_topic(FORUM, "Shithead night")
    for player in players:
        player.group, player.topic = FORUM, topic
    return topic


async def test_a_game_in_a_topic_stays_in_the_topic(fake: FakeTelegram, bot: BotProcess, players: list[Player]) -> None:
    trio = players[:3]
    topic = forum_with_topic(fake, trio)
    await start_all(fake, trio)
    await start_game(fake, trio)
    await trio[0].command("/rules")
    await fake.wait_for(lambda: find(fake, FORUM, trio[0].user_id, "Get rid of your cards"), timeout=60)
    await play_until_over(fake, trio)
    over = find(fake, FORUM, trio[0].user_id, "Game over")
    assert over is not None
    await trio[1].press(over, "🔁 Rematch")
    await fake.wait_for(
        lambda: (
            len([m for m in fake.messages(FORUM, as_user=trio[0].user_id) if "Game over" in m.text]) == 1
            and find(fake, FORUM, trio[0].user_id, "#2") is not None
        ),
        timeout=60,
    )
    elsewhere = [(m.message_id, m.text[:40]) for m in fake.history(FORUM) if m.from_bot and m.thread_id != topic]
    assert [text for _, text in elsewhere if not text.startswith("👋")] == []  # but the greeting when added


async def test_a_closed_topic_moves_the_game_to_general_once(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    trio = players[:3]
    topic = forum_with_topic(fake, trio)
    await start_all(fake, trio)
    await start_game(fake, trio)
    fake.close_topic(FORUM, topic)
    alice = trio[0]
    alice.topic = None  # people write in General now
    await alice.command("/forfeit")
    confirm = await fake.wait_for(lambda: find(fake, FORUM, alice.user_id, "Leave game"), timeout=60)
    assert await alice.press(confirm, "🏳 Yes, leave") is None
    await fake.wait_for(lambda: find(fake, FORUM, alice.user_id, "Alice left the game"), timeout=60)
    moved = [m for m in fake.history(FORUM) if m.from_bot and "goes on here" in m.text]
    assert len(moved) == 1
    assert moved[0].thread_id is None
    await play_until_over(fake, trio[1:])
    over = find(fake, FORUM, alice.user_id, "Game over")
    assert over is not None
    assert over.thread_id is None
    assert len([m for m in fake.history(FORUM) if "goes on here" in m.text]) == 1
