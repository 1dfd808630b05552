"""Delivering the outbox: at least once, game by game, in order.

A worker claims undelivered notices for a short lease (so two workers never send the same ones at
once), hands each game's notices to the sender in order, and marks them delivered once the sender
returns. If the sender fails, the notices go back to the outbox and are tried again later; if the
process dies, the lease runs out and another worker (or the restarted one) takes them.

Telegram has bad minutes: a failure that passes (the network, a timeout, a 5xx, a 429) never gives a
notice up while it is younger than :data:`GIVE_UP_AGE`; it is tried again after a pause that doubles
from :data:`FIRST_PAUSE` up to :data:`LONGEST_PAUSE`, and at once when the Bot API is heard from
again (:meth:`Outbox.retry_now`). Any other failure is given up after :data:`MAX_ATTEMPTS` tries, so
a notice that can never be sent does not hold its game's later notices back for a day.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from itertools import groupby

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from persistence import repo
from persistence.models import utcnow
from shithead_bot.service.notices import Notice, NoticeKind
from shithead_bot.service.unit import is_transient as is_transient_db

log = logging.getLogger(__name__)

# A sender sends a game's notices in order and may put some off: it returns {notice id: not before}.
Sender = Callable[[list[Notice]], Awaitable[dict[int, datetime] | None]]
LATEST_ONLY = (NoticeKind.TABLE, NoticeKind.LOBBY)  # rendered from the current state: only the newest matters
MAX_ATTEMPTS = 12  # a notice failing for another reason than an outage is given up after this many tries
FIRST_PAUSE = timedelta(seconds=5)  # after a failed try; doubled after each further one…
LONGEST_PAUSE = timedelta(minutes=5)  # …up to this
GIVE_UP_AGE = timedelta(days=1)  # a notice failing for a passing reason is kept this long
TRANSIENT = (OSError, TimeoutError)  # connection refused or reset, timed out


def pause_after(attempts: int) -> timedelta:
    """How long a notice waits after its ``attempts``-th failed try."""
    return min(LONGEST_PAUSE, FIRST_PAUSE * 2 ** max(0, min(attempts - 1, 16)))


class PartialDelivery(Exception):
    """A sender got some of a batch's notices out before failing: those count as delivered."""

    def __init__(
        self, done: Sequence[int], cause: BaseException, wait: timedelta | None = None, *, transient: bool = False
    ) -> None:
        super().__init__(f"{len(done)} sent, then {cause!r}")
        self.done = list(done)
        self.cause = cause
        self.wait = wait  # the send rate is used up: try the rest after this, and it is no failure
        self.transient = transient  # the failure passes (an outage): keep trying for a day


def is_transient(exc: BaseException) -> bool:
    """A failure that passes by itself: the sender said so, or the network or the database failed."""
    if isinstance(exc, PartialDelivery):
        return exc.transient or is_transient(exc.cause)
    return isinstance(exc, TRANSIENT) or is_transient_db(exc)


class Outbox:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Callable[[], datetime] = utcnow,
        lease: timedelta = timedelta(seconds=30),
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.lease = lease

    async def deliver(
        self, sender: Sender, *, game_id: int | None = None, limit: int = 200, older_than: timedelta | None = None
    ) -> int:
        """Send what is pending (of one game, or all — with ``older_than``, only leftovers that the
        use case's own delivery did not take); games' batches go out concurrently, each in order.
        Returns how many notices were delivered."""
        async with self.sessions() as session, session.begin():
            now = self.clock()
            rows = await repo.claim_outbox(
                session=session, now=now, lease=self.lease, limit=limit, game_id=game_id, older_than=older_than
            )
            rows.sort(key=lambda r: (r.game_id or 0, r.id or 0))  # each game's notices together, in order
            batches = [
                [Notice.from_row(r.kind, r.game_id or 0, r.payload, r.id, r.attempts) for r in group]
                for _, group in groupby(rows, key=lambda r: r.game_id)
            ]
        catch_up = older_than is not None
        return sum(await asyncio.gather(*(self._send_and_catch_up(sender, batch, catch_up) for batch in batches)))

    async def _send_and_catch_up(self, sender: Sender, batch: list[Notice], catch_up: bool) -> int:
        """A batch; then, for the sweep, the game's newer notices: the delivery of the use case that
        wrote them found the game busy with this batch and left them (see ``claim_outbox``)."""
        sent = await self._send(sender, batch)
        for _ in range(20 if catch_up else 0):  # until the game has nothing more to send now
            more = await self.deliver(sender, game_id=batch[0].game_id)
            sent += more
            if not more:
                break
        return sent

    async def _send(self, sender: Sender, batch: list[Notice]) -> int:
        ids = [n.id for n in batch if n.id is not None]
        try:
            deferred = await sender(batch) or {}
        except Exception as exc:  # the sender's failure must not lose the notices
            done = exc.done if isinstance(exc, PartialDelivery) else []
            cause = exc.cause if isinstance(exc, PartialDelivery) else exc
            log.warning(
                "delivery for game %s stopped after %d of %d notices: %r", batch[0].game_id, len(done), len(ids), cause
            )
            async with self.sessions() as session, session.begin():
                now = self.clock()
                await repo.mark_delivered(session=session, ids=done, now=now)
                failed = [n for n in batch if n.id is not None and n.id not in done]
                wait = exc.wait if isinstance(exc, PartialDelivery) else None
                if wait is not None:  # the send rate is used up: later, and no failure
                    later = [n.id or 0 for n in failed]
                    await repo.defer_outbox(session=session, ids=later, until=now + wait, uncount=True)
                    return len(done)
                await self._release(session, failed, cause, transient=is_transient(exc), now=now)
            return len(done)
        done = [i for i in ids if i not in deferred]
        async with self.sessions() as session, session.begin():
            now = self.clock()
            await repo.mark_delivered(session=session, ids=done, now=now)
            for notice_id, until in deferred.items():
                await repo.defer_outbox(session=session, ids=[notice_id], until=until)
            for kind in LATEST_ONLY:
                sent = [n.id for n in batch if n.kind == kind and n.id is not None and n.id not in deferred]
                if sent:
                    await repo.supersede_outbox(
                        session=session, game_id=batch[0].game_id, kinds=[kind], before_id=max(sent), now=now
                    )
        return len(done)

    @staticmethod
    async def _release(
        session: AsyncSession, failed: list[Notice], cause: BaseException, *, transient: bool, now: datetime
    ) -> None:
        """Give failed notices back, each to be tried again after its pause; a passing failure is
        given up only by age, any other after :data:`MAX_ATTEMPTS` tries."""
        for attempts, group in groupby(sorted(failed, key=lambda n: n.attempts), key=lambda n: n.attempts):
            await repo.release_outbox(
                session=session,
                ids=[n.id or 0 for n in group],
                error=repr(cause),
                retry_at=now + pause_after(attempts),
                give_up_after=None if transient else MAX_ATTEMPTS,
                give_up_before=now - GIVE_UP_AGE,
                now=now,
            )

    async def retry_now(self) -> int:
        """The Bot API answers again after failing: what waits for its next try goes now."""
        async with self.sessions() as session, session.begin():
            return await repo.retry_failed_now(session=session, now=self.clock())

    async def next_due(self) -> datetime | None:
        """When the soonest pending notice may be sent (None: nothing is pending)."""
        async with self.sessions() as session:
            return await repo.next_outbox_due(session=session, now=self.clock())

    async def pending(self) -> int:
        async with self.sessions() as session:
            return await repo.pending_outbox_count(session=session)
