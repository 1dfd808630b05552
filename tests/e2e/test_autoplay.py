"""/settings autoplay through the real bot: a player's own setting, answered in private."""

from __future__ import annotations

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import start_all
from tests.e2e.harness import GROUP, BotProcess, Player, find

pytestmark = pytest.mark.slow


async def test_a_player_sets_which_forced_moves_the_bot_makes(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice = players[0]
    await start_all(fake, [alice])
    await alice.command("/settings autoplay", chat_id=alice.user_id)
    shown = await fake.wait_for(lambda: find(fake, alice.user_id, alice.user_id, "Forced moves I make for you"))
    assert "(public)" in shown.text  # the default
    await alice.command("/settings autoplay all", chat_id=alice.user_id)
    await fake.wait_for(lambda: find(fake, alice.user_id, alice.user_id, "(all)"))
    await alice.command("/settings autoplay sometimes", chat_id=alice.user_id)
    await fake.wait_for(lambda: find(fake, alice.user_id, alice.user_id, "choose one of off, public, all"))
    await alice.command("/settings autoplay off")  # in the group: answered in private, the group stays clear
    await fake.wait_for(lambda: find(fake, alice.user_id, alice.user_id, "(off)"))
    assert find(fake, GROUP, alice.user_id, "Forced moves") is None
