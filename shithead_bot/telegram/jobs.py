"""JobQueue callbacks: deliver leftovers of the outbox, fire due timers, forget old update ids.
Each runs again soon, so a database fault is logged as one warning and the next run carries on."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Any

from sqlalchemy.exc import DBAPIError
from telegram.ext import Application, ContextTypes, JobQueue

from shithead_bot.service import utcnow
from shithead_bot.service.faults import fault_name, is_transient
from shithead_bot.telegram.context import bot_context

log = logging.getLogger("shithead_bot")
LEFTOVER_AGE = timedelta(seconds=2)  # younger notices are being delivered by the update that made them
Job = Callable[[ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]


def every(job_queue: JobQueue[Any], job: Job, *, interval: float, first: float, name: str) -> None:
    """Run ``job`` ``first`` seconds from now, then again ``interval`` seconds after each run ends.

    Not ``run_repeating``: a run that outlasts the interval — the first sweeps after downtime, with
    a backlog to send at Telegram's pace — would have APScheduler skip the next start and log
    "maximum number of running instances reached" each time. Here runs never overlap."""

    async def run(context: ContextTypes.DEFAULT_TYPE) -> None:
        try:
            await job(context)
        finally:
            if arming(context):
                job_queue.run_once(run, when=interval, name=name)

    job_queue.run_once(run, when=first, name=name)


def carries_on(job: Job) -> Job:
    """A transient database fault in a job: one warning; the next run tries again."""

    @functools.wraps(job)
    async def run(context: ContextTypes.DEFAULT_TYPE) -> None:
        try:
            await job(context)
        except DBAPIError as exc:
            if not is_transient(exc):
                raise
            log.warning("job %s: database fault (%s); next run carries on", job.__name__, fault_name(exc))

    return run


def swept(context: ContextTypes.DEFAULT_TYPE, which: str) -> None:
    """Note that a sweep finished (the health check watches this)."""
    metrics = context.bot_data.get("metrics")
    if metrics is not None:
        setattr(metrics.sweeps, which, time.monotonic())


@carries_on
async def sweep_outbox(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Deliver whatever is pending: after a restart, after a failure, or another worker's leftovers."""
    ctx = bot_context(context)
    metrics = context.bot_data.get("metrics")
    if metrics is not None and metrics.api_health.take_recovery():
        waiting = await ctx.outbox.retry_now()
        log.info("the Bot API answers again: %d waiting notices go now", waiting)
    sent = await ctx.outbox.deliver(ctx.delivery, older_than=LEFTOVER_AGE)
    swept(context, "outbox")
    if sent:
        log.info("outbox: delivered %d pending notices", sent)


@carries_on
async def sweep_timers(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Fire due reminders and deadlines, then wake up exactly at the next one if it comes before the
    next regular sweep (so 30-second turns feel right)."""
    ctx = bot_context(context)
    assert ctx.sweeper is not None
    report = await ctx.sweeper.sweep()
    swept(context, "timers")
    if report.fired or report.lost:
        log.info("timers: %d fired, %d lost to a move or another worker", report.fired, report.lost)
    upcoming = await ctx.service.next_due_at()
    job_queue = context.job_queue
    if upcoming is None or job_queue is None or not arming(context):
        return
    wait = (upcoming - utcnow()).total_seconds()
    if 0 < wait < ctx.settings.sweep_seconds:
        for job in job_queue.get_jobs_by_name("timers-precise"):
            job.schedule_removal()
        job_queue.run_once(sweep_timers, when=wait + 0.05, name="timers-precise")


@carries_on
async def forget_old_updates(context: ContextTypes.DEFAULT_TYPE) -> None:
    await bot_context(context).service.forget_old_updates()



STOPPING = "jobs-stopping"  # bot_data: the bot is stopping, no job is scheduled any more


def stop_arming(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Before the application stops: no job is scheduled any more, and those waiting are removed.
    PTB's stop waits for the jobs running, then shuts the scheduler down, which cancels whatever
    started in between (a sweep re-armed at its end, or one due meanwhile) and APScheduler logs it
    as an error with a traceback."""
    app.bot_data[STOPPING] = True
    if app.job_queue is not None:
        for job in app.job_queue.jobs():
            job.schedule_removal()


def arming(context: ContextTypes.DEFAULT_TYPE) -> bool:
    """Whether a job may still schedule one (see :func:`stop_arming`)."""
    return not context.application.bot_data.get(STOPPING, False)
