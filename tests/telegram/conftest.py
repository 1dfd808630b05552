"""The fixtures of the bot's tests: the fake Bot API with the usual people and their group, and a
real PTB ``Bot`` on it (the harnesses that use them: ``fakegame.py``, ``inbot.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot

from shithead_bot.telegram.startup import api_client
from testkit.fakebot import FakeTelegram
from tests.service.helpers import GROUP, user

PEOPLE = 3  # users 0, 1 and 2, each has started the bot; all three are in GROUP


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        for n in range(PEOPLE):
            server.add_user(user(n).id, user(n).first_name)
            server.start_bot(user(n).id)
        server.add_group(GROUP, "Friends", [user(n).id for n in range(PEOPLE)])
        server.queue.pending.clear()  # the /start of each: not the test's business
        yield server


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    async with api_client(fake.token, fake.base_url, fake.base_file_url) as client:
        yield client
