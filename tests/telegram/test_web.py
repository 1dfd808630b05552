"""The health check's verdict: the database answers and the sweeps ran recently."""

from __future__ import annotations

import time
from typing import Any

from shithead_bot.config import Settings
from shithead_bot.telegram.metrics import Metrics
from shithead_bot.telegram.web import check_health


class Service:
    def __init__(self, fails: bool) -> None:
        self.fails = fails

    async def ping(self) -> None:
        if self.fails:
            raise ConnectionRefusedError("no database")


class Ctx:
    def __init__(self, fails: bool) -> None:
        self.service: Any = Service(fails)


async def test_healthy_when_the_database_answers_and_the_sweeps_ran() -> None:
    metrics = Metrics()
    metrics.sweeps.timers = metrics.sweeps.outbox = time.monotonic()
    health = await check_health(Ctx(False), metrics, Settings())  # type: ignore[arg-type]
    assert health.ok
    assert health.body()["checks"]["database"]["ok"] is True


async def test_failing_when_the_database_does_not_answer() -> None:
    health = await check_health(Ctx(True), Metrics(), Settings())  # type: ignore[arg-type]
    assert not health.ok
    assert health.body() == {
        "status": "failing",
        "checks": {
            "database": {"ok": False, "error": "ConnectionRefusedError"},
            "bot_api": {"ok": True},
            "timers_sweep": health.checks["timers_sweep"],
            "outbox_sweep": health.checks["outbox_sweep"],
        },
    }


async def test_failing_when_a_sweep_is_stuck() -> None:
    metrics = Metrics()
    metrics.sweeps.started = metrics.sweeps.outbox = time.monotonic() - 3600
    metrics.sweeps.timers = time.monotonic()
    health = await check_health(Ctx(False), metrics, Settings())  # type: ignore[arg-type]
    assert not health.ok
    assert health.checks["outbox_sweep"]["ok"] is False
    assert health.checks["timers_sweep"]["ok"] is True


async def test_failing_while_the_bot_api_does_not_answer_and_healthy_once_it_does() -> None:
    from telegram.error import BadRequest, NetworkError, RetryAfter

    metrics = Metrics()
    metrics.sweeps.timers = metrics.sweeps.outbox = time.monotonic()
    metrics.api_call("sendMessage", BadRequest("message is too long"))  # an answer: Telegram is there
    metrics.api_call("sendMessage", RetryAfter(3))
    assert (await check_health(Ctx(False), metrics, Settings())).ok  # type: ignore[arg-type]
    metrics.api_call("getUpdates", NetworkError("Bad Gateway"))
    health = await check_health(Ctx(False), metrics, Settings())  # type: ignore[arg-type]
    assert not health.ok
    assert health.checks["bot_api"]["ok"] is False
    assert health.checks["bot_api"]["error"] == "NetworkError"
    assert not metrics.api_health.take_recovery()
    metrics.api_call("getUpdates")
    assert (await check_health(Ctx(False), metrics, Settings())).ok  # type: ignore[arg-type]
    assert metrics.api_health.take_recovery()  # once: the waiting notices are sent now
    assert not metrics.api_health.take_recovery()
