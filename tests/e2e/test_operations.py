"""What an operator sees: /healthz and /metrics over real HTTP (webhook port, or the metrics port
in polling mode), the webhook's secret, and a graceful SIGTERM."""

from __future__ import annotations

import asyncio
import re
import signal

import aiohttp
import pytest

from testkit.fakebot import FakeTelegram, SeenMessage
from tests.e2e.conftest import start_all
from tests.e2e.harness import BotProcess, Player, asks_to_act, free_port, start_game, start_workers, webhook_worker

pytestmark = pytest.mark.slow


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample of the exposition text."""
    wanted = ",".join(f'{k}="{v}"' for k, v in labels.items())
    pattern = rf"^{re.escape(name)}{re.escape('{' + wanted + '}') if labels else ''} (\S+)$"
    found = re.search(pattern, text, re.MULTILINE)
    assert found is not None, f"no {name}{labels} in the metrics"
    return float(found.group(1))


async def metrics_once(url: str, sample: str) -> str:
    """The exposition text once it holds that sample (up to a minute: under load the worker may
    still be applying what the test did)."""
    for _ in range(600):
        status, text = await get(url)
        assert status == 200
        if re.search(rf"^{re.escape(sample)} ", text, re.MULTILINE):
            return text
        await asyncio.sleep(0.1)
    raise AssertionError(f"no {sample} in the metrics within a minute")


async def test_health_and_metrics_on_the_webhook_port(
    fake: FakeTelegram, database_url: str, players: list[Player]
) -> None:
    worker = webhook_worker(fake, database_url)
    try:
        (url,) = await start_workers(fake, [worker])
        base = url.rsplit("/", 1)[0]
        status, body = await get(f"{base}/healthz")
        assert status == 200, body
        assert '"database": {"ok": true' in body
        assert '"status": "ok"' in body
        duo = players[:2]
        await start_all(fake, duo)
        await start_game(fake, duo)
        fake.fail_next("editMessageText", times=1, retry_after=1)
        message = await fake.wait_for(duo[0].live_message, timeout=60)
        await duo[0].press(message, "✅ Ready")  # answered first: the move and its edit follow
        text = await metrics_once(f"{base}/metrics", 'shithead_bot_api_429_total{method="editMessageText"}')
        assert metric(text, "shithead_updates_total", kind="button") >= 1
        assert metric(text, "shithead_updates_total", kind="command") >= 1
        assert metric(text, "shithead_update_seconds_count", kind="button") >= 1
        assert metric(text, "shithead_bot_api_calls_total", method="sendMessage") >= 3
        assert metric(text, "shithead_games", status="swapping") == 1
        assert metric(text, "shithead_moves") >= 1
        assert metric(text, "shithead_outbox_backlog") >= 0
        assert metric(text, "shithead_timer_lag_seconds") >= 0
        assert metric(text, "shithead_sweep_age_seconds", sweep="timers") < 60
        assert metric(text, "shithead_bot_api_429_total", method="editMessageText") == 1
    finally:
        await worker.stop()


async def test_the_webhook_refuses_a_request_without_the_secret(fake: FakeTelegram, database_url: str) -> None:
    worker = webhook_worker(fake, database_url, extra_env={"SECRET_TOKEN": "s3cret-token"})
    try:
        (url,) = await start_workers(fake, [worker])
        async with aiohttp.ClientSession() as session:
            async with session.post(url, json={"update_id": 1}) as response:
                assert response.status == 403
            secret = str(fake.calls_of("setWebhook")[-1].params["secret_token"])
            headers = {"X-Telegram-Bot-Api-Secret-Token": secret, "Content-Type": "application/json"}
            async with session.post(url, data="not json", headers=headers) as response:
                assert response.status == 400
    finally:
        await worker.stop()


async def test_health_and_metrics_in_polling_mode(fake: FakeTelegram, database_url: str) -> None:
    port = free_port()
    bot = BotProcess(fake, database_url, extra_env={"METRICS_PORT": str(port), "LISTEN": "127.0.0.1"})
    await bot.start()
    try:
        status, body = await get(f"http://127.0.0.1:{port}/healthz")
        assert status == 200, body
        status, text = await get(f"http://127.0.0.1:{port}/metrics")
        assert status == 200
        assert "shithead_games" in text
    finally:
        await bot.stop()


async def test_sigterm_finishes_the_update_in_hand_and_exits_0(
    fake: FakeTelegram, database_url: str, players: list[Player]
) -> None:
    bot = BotProcess(fake, database_url, fresh=True)  # the real command: its stop is what is tested
    await bot.start()
    duo = players[:2]
    await start_all(fake, duo)
    await start_game(fake, duo)
    for player in duo:
        await player.press(await fake.wait_for(player.live_message, timeout=60), "✅ Ready")

    def playing() -> tuple[Player, SeenMessage] | None:
        for player in duo:
            message = player.live_message()
            if message is not None and not any(b.text == "✅ Ready" for b in message.buttons):
                return player, message
        return None

    mover, message = await fake.wait_for(playing, timeout=60)
    turns_before = {p.user_id: len([m for m in p.private() if asks_to_act(m.text)]) for p in duo}
    data = fake.button_data(message.chat_id, message.message_id, mover.choose(message))
    polls = len(fake.calls_of("getUpdates"))
    pressed = await fake.press(mover.user_id, message.chat_id, message.message_id, data)
    await fake.wait_for(lambda: len(fake.calls_of("getUpdates")) > polls, timeout=60)  # the bot has it
    assert bot.process is not None
    bot.process.send_signal(signal.SIGTERM)  # while the press is in hand
    code = await asyncio.wait_for(bot.process.wait(), 30)
    await pressed.answer(timeout=30)
    assert code == 0
    assert " ERROR " not in bot.log_text
    assert "stopped" in bot.log_text
    turns_after = {p.user_id: len([m for m in p.private() if asks_to_act(m.text)]) for p in duo}
    assert turns_after != turns_before or mover.live_message() is not None  # the move's notices went out


async def test_polling_serves_health_and_metrics_on_this_machine_only_by_default(
    fake: FakeTelegram, database_url: str
) -> None:
    port = free_port()
    bot = BotProcess(fake, database_url, extra_env={"METRICS_PORT": str(port)})
    await bot.start()
    try:
        status, _ = await get(f"http://127.0.0.1:{port}/healthz")
        assert status == 200
    finally:
        await bot.stop()
    assert f"listening on 127.0.0.1:{port} (health, metrics)" in bot.log_text
