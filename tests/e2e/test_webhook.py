"""Webhook mode: Telegram (the fake) POSTs updates to the bot, with the secret token header."""

from __future__ import annotations

import socket

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import FLOW_LIMITS, start_all
from tests.e2e.harness import BotProcess, Player, play_until_over, start_game

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_game_over_a_webhook(fake: FakeTelegram, database_url: str, players: list[Player]) -> None:
    port = free_port()
    args = [
        "--webhook-url",
        f"http://127.0.0.1:{port}",
        "--listen",
        "127.0.0.1",
        "--port",
        str(port),
        "--secret-token",
        "s3cret-token",
    ]
    bot = BotProcess(fake, database_url, args=args, extra_env=FLOW_LIMITS)
    await bot.start(wait_for_polling=False)
    try:
        hook = await fake.wait_for(lambda: next(iter(fake.calls_of("setWebhook")), None), timeout=30)
        assert hook.params["secret_token"] == "s3cret-token"
        assert str(hook.params["url"]).startswith(f"http://127.0.0.1:{port}/")
        duo = players[:2]
        await start_all(fake, duo)
        await start_game(fake, duo)
        await play_until_over(fake, duo)
        assert not fake.calls_of("getUpdates")
    finally:
        await bot.stop()
