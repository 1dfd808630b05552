"""Delivering the outbox: at least once, game by game, in order.

A worker claims undelivered notices for a short lease (so two workers never send the same ones at
once), hands each game's notices to the sender in order, and marks them delivered once the sender
returns. If the sender fails, the notices go back to the outbox and are tried again later; if the
process dies, the lease runs out and another worker (or the restarted one) takes them.
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

log = logging.getLogger(__name__)

# A sender sends a game's notices in order and may put some off: it returns {notice id: not before}.
Sender = Callable[[list[Notice]], Awaitable[dict[int, datetime] | None]]
LATEST_ONLY = (NoticeKind.TABLE, NoticeKind.LOBBY)  # rendered from the current state: only the newest matters
MAX_ATTEMPTS = 12  # then a notice is given up (logged), so a broken one cannot repeat forever


class PartialDelivery(Exception):
    """A sender got some of a batch's notices out before failing: those count as delivered."""

    def __init__(self, done: Sequence[int], cause: BaseException, wait: timedelta | None = None) -> None:
        super().__init__(f"{len(done)} sent, then {cause!r}")
        self.done = list(done)
        self.cause = cause
        self.wait = wait  # the send rate is used up: try the rest after this, and it is no failure


class Outbox:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Callable[[], datetime] = utcnow,
        lease: timedelta = timedelta(seconds=30),
        retry_after: timedelta = timedelta(seconds=5),
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.lease = lease
        self.retry_after = retry_after

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
                failed = [i for i in ids if i not in done]
                wait = exc.wait if isinstance(exc, PartialDelivery) else None
                if wait is not None:  # the send rate is used up: later, and no failure
                    await repo.defer_outbox(session=session, ids=failed, until=now + wait, uncount=True)
                    return len(done)
                await repo.release_outbox(
                    session=session,
                    ids=failed,
                    error=repr(cause),
                    retry_at=now + self.retry_after,
                    give_up_after=MAX_ATTEMPTS,
                    now=now,
                )
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

    async def next_due(self) -> datetime | None:
        """When the soonest pending notice may be sent (None: nothing is pending)."""
        async with self.sessions() as session:
            return await repo.next_outbox_due(session=session, now=self.clock())

    async def pending(self) -> int:
        async with self.sessions() as session:
            return await repo.pending_outbox_count(session=session)
