"""Deadlines through the real bot process: the table and the turn or swap message carry the game's
deadline as a date_time entity (each reader's app shows it in their own time zone); the chat's time
zone is a setting."""

from __future__ import annotations

from datetime import datetime

import pytest

from persistence.db import make_engine, make_sessionmaker
from shithead_bot.service import GameService
from testkit.fakebot import FakeTelegram
from testkit.fakebot.model import SeenMessage
from tests.e2e.conftest import start_all
from tests.e2e.harness import GROUP, BotProcess, Player, find, start_game, table_message

pytestmark = pytest.mark.slow


async def deadline(database_url: str, game_id: int) -> datetime:
    engine = make_engine(database_url)
    game = await GameService(make_sessionmaker(engine)).game_view(game_id)
    await engine.dispose()
    assert game.game.deadline_at is not None
    return game.game.deadline_at


def unix_times(message: SeenMessage) -> set[int]:
    return {entity["unix_time"] for entity in message.date_times()}


async def test_the_table_and_the_swap_message_carry_the_deadline(
    fake: FakeTelegram, bot: BotProcess, players: list[Player]
) -> None:
    alice = players[0]
    await start_all(fake, [alice])
    await alice.command("/settings timezone Europe/Paris")  # Alice is the group's admin
    await fake.wait_for(lambda: find(fake, GROUP, alice.user_id, "Time zone: Europe/Paris (was UTC)"), timeout=60)
    await alice.command("/settings timezone Mars/Olympus")  # her mistake: answered in private
    await fake.wait_for(lambda: find(fake, alice.user_id, alice.user_id, "is not a time zone"), timeout=60)
    game_id = await start_game(fake, [alice], computers=2)
    due = int((await deadline(bot.database_url, game_id)).timestamp())
    table = table_message(fake, GROUP, alice.user_id)
    assert table.photo is not None  # the caption is HTML too
    assert unix_times(table) == {due}
    swap = await fake.wait_for(lambda: find(fake, alice.user_id, alice.user_id, "Swap phase"), timeout=60)
    assert unix_times(swap) == {due}
    assert {entity.get("date_time_format") for entity in swap.date_times()} == {"r", "wt"}
