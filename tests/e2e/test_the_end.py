"""The end reaches every player: each human's private game message shows the result from their
point of view — their place, the loser in the preset's words, Rematch where it applies — also for
players who left or were removed."""

from __future__ import annotations

import re

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import start_all
from tests.e2e.harness import GROUP, BotProcess, Player, find, play_until_over, start_game

pytestmark = pytest.mark.slow


def last_private(player: Player) -> str:
    return next(m for m in reversed(player.private()) if m.from_bot).text


async def test_every_player_is_told_the_result(fake: FakeTelegram, bot: BotProcess, players: list[Player]) -> None:
    alice, bob, cleo = players[:3]
    await start_all(fake, [alice, bob, cleo])
    await start_game(fake, [alice, bob, cleo])
    await alice.command("/forfeit")
    confirm = await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Leave game"), timeout=60)
    await alice.press(confirm, "🏳 Yes, leave")
    await play_until_over(fake, [bob, cleo])
    over = find(fake, GROUP, alice.user_id, "Game over")
    assert over is not None
    places = dict(re.findall(r"(\d)(?:st|nd|rd)  (\w+)", over.text)[::-1])
    await fake.wait_for(lambda: all("Game over" in last_private(p) for p in (alice, bob, cleo)), timeout=60)
    for player in (alice, bob, cleo):
        message = next(m for m in reversed(player.private()) if m.from_bot)
        place = next(p for p, name in re.findall(r"(\d)(?:st|nd|rd)  (\w+)", over.text) if name == player.name)
        assert f"You are {place}" in message.text or f"you are {place}" in message.text.lower(), message.text
        assert "is the Shithead" in message.text or "You are the Shithead" in message.text
        rematch = [b for b in message.buttons if b.text == "🔁 Rematch"]
        assert bool(rematch) == (player is not alice), (player.name, message.buttons)  # who left is not dealt in
    assert places
