"""The periodic sweeps never overlap: a run that outlasts its interval (the first sweeps after
downtime) is followed by the next one, with no APScheduler "maximum number of running instances"
warning for every tick it overran (issue 23, item 7)."""

from __future__ import annotations

import asyncio
import logging

import pytest
from telegram.ext import Application, ContextTypes

from shithead_bot.telegram import jobs


async def test_a_slow_sweep_is_not_started_again_while_it_runs(caplog: pytest.LogCaptureFixture) -> None:
    app = Application.builder().token("123456:TEST-TOKEN").build()
    assert app.job_queue is not None
    running, overlaps, runs = 0, 0, 0
    three_runs = asyncio.Event()

    async def slow(context: ContextTypes.DEFAULT_TYPE) -> None:
        nonlocal running, overlaps, runs
        running += 1
        overlaps += running > 1
        await asyncio.sleep(0.3)  # three intervals
        running -= 1
        runs += 1
        if runs >= 3:
            three_runs.set()

    caplog.set_level(logging.WARNING, logger="apscheduler")
    app.job_queue.set_application(app)
    await app.job_queue.start()
    try:
        jobs.every(app.job_queue, slow, interval=0.1, first=0, name="slow")
        await asyncio.wait_for(three_runs.wait(), 5)
    finally:
        await app.job_queue.stop(wait=False)
    assert overlaps == 0
    assert "maximum number of running instances" not in caplog.text



async def test_stopping_the_bot_cancels_no_sweep(caplog: pytest.LogCaptureFixture) -> None:
    """PTB's stop waits for the jobs running, then shuts the scheduler down, which cancels any job
    started in between — APScheduler logs that as an ERROR with a traceback. A sweep re-armed at
    its end, or due meanwhile, was such a job (a SIGTERM test met it): once the bot stops arming
    them, none is left to start."""
    caplog.set_level(logging.WARNING, logger="apscheduler")
    for _ in range(20):
        await stop_while_sweeping()
    assert "raised an exception" not in caplog.text


async def stop_while_sweeping() -> None:
    """Two sweeps re-armed every millisecond, a quick one and a slow one; then the stop."""
    app = Application.builder().token("123456:TEST-TOKEN").build()
    assert app.job_queue is not None
    runs, ran = 0, asyncio.Event()

    async def quick(context: ContextTypes.DEFAULT_TYPE) -> None:  # the stop's wait is on the slow one
        nonlocal runs
        runs += 1
        if runs >= 3:
            ran.set()
        await asyncio.sleep(0.01)

    async def slow(context: ContextTypes.DEFAULT_TYPE) -> None:
        await asyncio.sleep(0.05)

    app.job_queue.set_application(app)
    await app.job_queue.start()
    jobs.every(app.job_queue, quick, interval=0.001, first=0, name="quick")
    jobs.every(app.job_queue, slow, interval=0.001, first=0, name="slow")
    await asyncio.wait_for(ran.wait(), 5)
    jobs.stop_arming(app)
    await app.job_queue.stop(wait=True)  # what Application.stop() does with it
