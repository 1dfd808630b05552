"""``shithead-bot health`` (the container health check) against a real running bot."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.harness import ROOT, BotProcess, free_port

pytestmark = pytest.mark.slow


async def test_health_reports_a_running_bot_healthy(fake: FakeTelegram, database_url: str) -> None:
    port = free_port()
    env = {"METRICS_PORT": str(port), "LISTEN": "127.0.0.1"}
    bot = BotProcess(fake, database_url, extra_env=env)
    await bot.start()
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "shithead_bot.cli",
            "health",
            cwd=ROOT,
            env={"PATH": os.environ.get("PATH", ""), **env},
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await asyncio.wait_for(process.communicate(), 60)
    finally:
        await bot.stop()
    assert process.returncode == 0, out
    assert out.decode().strip() == f"http://127.0.0.1:{port}/healthz: ok"
