"""Secrets stay secret in a real bot process: the token is in no log line at DEBUG, and a webhook
without SECRET_TOKEN still requires a secret (derived from the token), says so, and never logs it."""

from __future__ import annotations

import aiohttp
import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import start_all
from tests.e2e.harness import BotProcess, Player, start_game, start_workers, webhook_worker

pytestmark = pytest.mark.slow


async def test_the_token_is_in_no_log_line_at_debug(
    fake: FakeTelegram, database_url: str, players: list[Player]
) -> None:
    bot = BotProcess(fake, database_url, extra_env={"LOG_LEVEL": "DEBUG"})
    await bot.start()
    try:
        duo = players[:2]
        await start_all(fake, duo)
        await start_game(fake, duo)
        await fake.wait_for(duo[0].live_message, timeout=60)
    finally:
        await bot.stop()
    assert " DEBUG " in bot.log_text
    secret_half = fake.token.partition(":")[2]
    leaks = [line for line in bot.logs if fake.token in line or secret_half in line]
    assert leaks == []


async def test_a_webhook_without_secret_token_derives_one_and_says_so(fake: FakeTelegram, database_url: str) -> None:
    worker = webhook_worker(fake, database_url, extra_env={"LOG_LEVEL": "DEBUG"})
    try:
        (url,) = await start_workers(fake, [worker])
        secret = str(fake.calls_of("setWebhook")[-1].params.get("secret_token") or "")
        assert len(secret) >= 32
        async with aiohttp.ClientSession() as session, session.post(url, json={"update_id": 1}) as response:
            assert response.status == 403
    finally:
        await worker.stop()
    assert "webhook: no SECRET_TOKEN set, so requests must carry a secret derived from the bot token" in worker.log_text
    assert secret not in worker.log_text
    assert fake.token not in worker.log_text


async def test_an_api_url_without_bot_is_completed(fake: FakeTelegram, database_url: str) -> None:
    """``TELEGRAM_API_URL=http://host:port`` (as one writes a self-hosted Bot API server's address)
    reaches the server's ``/bot<token>/…`` methods, and no line says the token."""
    bot = BotProcess(fake, database_url, extra_env={"TELEGRAM_API_URL": fake.base_url.removesuffix("/bot")})
    await bot.start()  # returns once the bot polls getUpdates
    try:
        assert fake.calls_of("getMe")
    finally:
        await bot.stop()
    assert fake.token.partition(":")[2] not in bot.log_text
