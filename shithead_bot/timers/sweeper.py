"""The deadline sweep: every few seconds (and precisely at the nearest due time), fire what is due.

The database is the only source of truth: ``game.due_at`` says when a game next needs the timer
(a reminder, a deadline, a grace period, a stale lobby or pause to close). Each firing is an
ordinary versioned use case, so it loses cleanly to a real move made at the same moment, and two
workers never fire the same event twice: on PostgreSQL the due rows are claimed ``FOR UPDATE SKIP
LOCKED``, and a worker that still gets a game another one already handled finds its version moved on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from shithead_bot.service import GameService, ServiceError, StaleVersionError
from shithead_bot.service.schedule import missed_after

log = logging.getLogger(__name__)


@dataclass
class SweepReport:
    due: int = 0
    fired: int = 0
    lost: int = 0  # a move (or another worker) got there first


class Sweeper:
    def __init__(
        self,
        service: GameService,
        deliver: Callable[[int], Awaitable[object]] | None = None,
        *,
        batch: int = 100,
    ) -> None:
        self.service = service
        self.deliver = deliver
        self.batch = batch
        self.stopped = False  # the worker stops (SIGTERM): what is due is left to the next one
        self.watching_since: datetime | None = None  # swept without a pause since then (service clock)
        self._swept_at: datetime | None = None  # the end of the last sweep

    def stop(self) -> None:
        self.stopped = True

    async def sweep(self) -> SweepReport:
        """Fire every due timer (in batches until none is left)."""
        report = SweepReport()
        self._watch()
        for _ in range(1000):
            due = [] if self.stopped else await self.service.due(self.batch)
            if not due:
                break
            report.due += len(due)
            fired = [g for g, version in due if not self.stopped and await self._fire(g, version, report)]
            if self.deliver is not None and fired:  # the messages go out together, not one game at a time
                await asyncio.gather(*(self._deliver(game_id) for game_id in fired))
            if not fired:
                break  # all held by another worker or already handled: leave them
        self._swept_at = self.service.clock()
        return report

    def _watch(self) -> None:
        """A sweep starting long after the last one ended (the bot was down, or its database): the
        deadlines passed meanwhile were not watched. A busy sweep is no pause: it is watching."""
        now = self.service.clock()
        pause = missed_after(self.service.settings.sweep_seconds)
        if self._swept_at is None or now - self._swept_at > pause:
            self.watching_since = now

    async def _deliver(self, game_id: int) -> None:
        assert self.deliver is not None
        try:
            await self.deliver(game_id)
        except Exception:  # the outbox keeps the notices; the next sweep sends them
            log.exception("delivery after the timer of game %s failed", game_id)

    async def _fire(self, game_id: int, version: int, report: SweepReport) -> bool:
        try:
            result = await self.service.fire_due(game_id, version, self.watching_since)
        except StaleVersionError:
            report.lost += 1
            return False
        except ServiceError as exc:
            log.warning("timer of game %s refused: %r", game_id, exc)
            return False
        except Exception:  # one game's failure must not stop everybody else's timers
            log.exception("timer of game %s failed", game_id)
            return False
        if result is None:
            return False
        report.fired += 1
        return True
