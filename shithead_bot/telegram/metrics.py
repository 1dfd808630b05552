"""What an operator can watch (Prometheus): updates by kind and how long they took, Bot API calls
and errors by method, 429s, moves, games by status, the outbox backlog and its oldest notice, and
how late the timer sweep is. One registry per application (not the process-wide default)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from telegram.error import RetryAfter

from shithead_bot.service import GameService, GameStatus, utcnow
from shithead_bot.telegram.botapi import is_outage

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


@dataclass
class Sweeps:
    """When each periodic sweep last finished (monotonic seconds)."""

    started: float = field(default_factory=time.monotonic)
    timers: float | None = None
    outbox: float | None = None

    def age(self, which: str) -> float:
        """Seconds since that sweep last finished (since start, before its first run)."""
        last = getattr(self, which)
        return time.monotonic() - (last if last is not None else self.started)


@dataclass
class ApiHealth:
    """Whether the Bot API answers: unreachable from a call that got no answer (an outage) until
    the next call that got one — a refusal or a 429 is an answer too."""

    failing_since: float | None = None  # monotonic
    error: str | None = None
    recovered: bool = False  # it answers again after an outage, and nobody acted on that yet

    def saw(self, error: BaseException | None) -> None:
        if error is not None and is_outage(error):
            self.error = type(error).__name__
            if self.failing_since is None:
                self.failing_since = time.monotonic()
        elif self.failing_since is not None:
            self.failing_since, self.recovered = None, True

    def take_recovery(self) -> bool:
        """True once after each outage ended."""
        recovered, self.recovered = self.recovered, False
        return recovered

    def check(self) -> dict[str, object]:
        """For /healthz."""
        if self.failing_since is None:
            return {"ok": True}
        return {"ok": False, "error": self.error, "seconds": round(time.monotonic() - self.failing_since, 1)}


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.updates = Counter("shithead_updates", "Telegram updates handled, by kind", ["kind"], registry=r)
        self.update_seconds = Histogram(
            "shithead_update_seconds",
            "Time to handle an update, by kind",
            ["kind"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.api_calls = Counter("shithead_bot_api_calls", "Bot API calls, by method", ["method"], registry=r)
        self.api_errors = Counter(
            "shithead_bot_api_errors", "Bot API calls that failed, by method and error", ["method", "error"], registry=r
        )
        self.rate_limited = Counter(
            "shithead_bot_api_429", "Bot API answers 429 (retry after), by method", ["method"], registry=r
        )
        self.moves = Gauge("shithead_moves", "Moves in the log, all games", registry=r)
        self.games = Gauge("shithead_games", "Games, by status", ["status"], registry=r)
        self.outbox_backlog = Gauge("shithead_outbox_backlog", "Notices not delivered yet", registry=r)
        self.outbox_oldest = Gauge("shithead_outbox_oldest_seconds", "Age of the oldest undelivered notice", registry=r)
        self.sweep_lag = Gauge(
            "shithead_timer_lag_seconds", "How long the oldest due timer has been waiting to fire", registry=r
        )
        self.sweep_age = Gauge(
            "shithead_sweep_age_seconds", "Seconds since a sweep last finished", ["sweep"], registry=r
        )
        self.sweeps = Sweeps()
        self.api_health = ApiHealth()

    def api_call(self, method: str, error: BaseException | None = None) -> None:
        self.api_health.saw(error)
        self.api_calls.labels(method).inc()
        if isinstance(error, RetryAfter):
            self.rate_limited.labels(method).inc()
        elif error is not None:
            self.api_errors.labels(method, type(error).__name__).inc()

    async def render(self, service: GameService) -> bytes:
        """The exposition text, with the database figures read now."""
        vitals = await service.vitals()
        now = utcnow()
        self.moves.set(vitals.moves)
        for status in GameStatus:
            self.games.labels(str(status)).set(vitals.games.get(str(status), 0))
        self.outbox_backlog.set(vitals.outbox_pending)
        self.outbox_oldest.set((now - vitals.outbox_oldest).total_seconds() if vitals.outbox_oldest else 0)
        self.sweep_lag.set((now - vitals.overdue_since).total_seconds() if vitals.overdue_since else 0)
        for which in ("timers", "outbox"):
            self.sweep_age.labels(which).set(self.sweeps.age(which))
        return generate_latest(self.registry)
