"""The fake Bot API's own tests: a real PTB ``Bot`` on each module's ``fake``."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot

from shithead_bot.telegram.startup import api_client
from testkit.fakebot import FakeTelegram


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    async with api_client(fake.token, fake.base_url, fake.base_file_url) as client:
        yield client
