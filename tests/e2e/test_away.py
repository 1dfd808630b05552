"""Away, through the real bot: a player goes away, a computer plays their turns (told to them
quietly, shown on the table), and they come back with /back to take their seat again."""

from __future__ import annotations

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import start_all
from tests.e2e.harness import GROUP, BotProcess, Player, find, play_until_over, start_game

pytestmark = pytest.mark.slow


async def test_a_player_goes_away_is_played_for_and_comes_back(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice, bob = players[:2]
    await start_all(fake, [alice, bob])
    await start_game(fake, [alice, bob])
    await bob.command("/away 1d", chat_id=bob.user_id)
    await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Bob is away until"), timeout=60)
    # Bob's own answer is a second message, which may come after the group's
    await fake.wait_for(lambda: find(fake, bob.user_id, bob.user_id, "You are away until"), timeout=60)
    for _ in range(8):  # only Alice presses; Bob's turns play themselves
        await fake.wait_for(alice.live_message, timeout=60)
        await alice.play_turn()
    told = [m for m in fake.history(bob.user_id) if "Your stand-in" in m.text and m.version == 0]
    assert told
    assert all(m.silent for m in told)
    await bob.command("/back", chat_id=bob.user_id)
    await fake.wait_for(lambda: find(fake, bob.user_id, bob.user_id, "Welcome back"), timeout=60)
    for _ in range(30):  # his seat is his again: at his next turn, a keyboard of his own
        if bob.live_message() is not None or find(fake, GROUP, alice.user_id, "Game over"):
            break
        await fake.wait_for(lambda: alice.live_message() or bob.live_message(), timeout=60)
        await alice.play_turn()
    assert bob.live_message() is not None or find(fake, GROUP, alice.user_id, "Game over")
    await play_until_over(fake, [alice, bob])


async def test_going_away_by_a_button_answers_in_plain_words_and_the_choices_lose_their_buttons(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    """A toast cannot show a date_time entity (nor more than 200 characters): the press is answered
    in a few plain words, and the message of durations becomes the full answer, without buttons."""
    alice, bob = players[:2]
    await start_all(fake, [alice, bob])
    await start_game(fake, [alice, bob])
    swap = await fake.wait_for(bob.live_message, timeout=60)
    assert "🌴 Away…" in [b.text for b in swap.buttons]  # from the swap phase on, as on every turn
    await bob.command("/away", chat_id=bob.user_id)
    choices = await fake.wait_for(lambda: find(fake, bob.user_id, bob.user_id, "How long are you away"), timeout=60)
    toast = await bob.press(choices, "1d")
    assert toast is not None
    assert "<" not in toast
    assert len(toast) <= 200
    assert "away" in toast.lower()
    answered = await fake.wait_for(lambda: find(fake, bob.user_id, bob.user_id, "You are away until"), timeout=60)
    assert answered.message_id == choices.message_id  # the question became its answer
    assert not answered.buttons
    assert answered.date_times()
    await bob.command("/away", chat_id=bob.user_id)
    again = await fake.wait_for(
        lambda: next((m for m in bob.private() if "How long" in m.text and m.message_id > choices.message_id), None),
        timeout=60,
    )
    toast = await bob.press(again, "👋 I am back")
    assert toast is not None
    assert "Welcome back" in toast
    assert not next(m for m in bob.private() if m.message_id == again.message_id).buttons
