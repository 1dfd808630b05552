"""Delivering the outbox: at least once, game by game, in order; plan, then send.

A worker claims undelivered notices for a short lease (so two workers never send the same ones at
once) and, in the same session, reads what sending them needs: each game's claimed notices become a
:class:`Plan` (the game with its newest moves, the message ids known in its players' private
chats). The sender renders and sends a plan without calling the service, and returns a
:class:`Report`; one transaction then marks the notices delivered, writes the report (the message
ids to keep editing, players who cannot be reached, a migrated chat, a group that silenced the bot:
its game pauses) and claims the game's next notices, written meanwhile (a computer moved, a timer
fired), as the next plan. So a press costs three sessions: the use case, the claim, the report.
If the sender fails, what it sent is recorded all the same and the rest goes back to the outbox, to
be tried again later; if the process dies, the lease runs out and another worker (or the restarted
one) takes the notices, and the sender, seeing a retried plan, clears the keyboards of copies it may
have sent unrecorded. A report that comes after another worker took its claim over marks what it
sent delivered and records none of its messages: the newer claimant's are the ones to keep.

Telegram has bad minutes: a failure that passes (the network, a timeout, a 5xx, a 429) never gives a
notice up while it is younger than :data:`GIVE_UP_AGE`; it is tried again after a pause that doubles
from :data:`FIRST_PAUSE` up to :data:`LONGEST_PAUSE`, and at once when the Bot API is heard from
again (:meth:`Outbox.retry_now`). Any other failure is given up after :data:`MAX_ATTEMPTS` tries, so
a notice that can never be sent does not hold its game's later notices back for a day.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime, timedelta
from itertools import groupby
from typing import TypeVar

from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from persistence import repo
from persistence.models import Outbox as OutboxRow
from persistence.models import utcnow
from shithead_bot.service.chats import silenced
from shithead_bot.service.errors import GameNotFoundError
from shithead_bot.service.faults import is_transient as is_transient_db
from shithead_bot.service.faults import retry_transient
from shithead_bot.service.inbox import Inbox, read_inbox
from shithead_bot.service.notices import Notice, NoticeKind
from shithead_bot.service.report import PartialDelivery, Plan, Report
from shithead_bot.service.snapshot import GameSnapshot, moves_of
from shithead_bot.service.unit import Core, Handed

log = logging.getLogger(__name__)
T = TypeVar("T")

# A sender sends a game's notices in order (it may put some off) and tells what it did. One that has
# a ``stopping()`` method (the bot's) is asked before each claim: a worker that stops claims nothing.
Sender = Callable[[Plan], Awaitable[Report]]
LATEST_ONLY = (NoticeKind.TABLE, NoticeKind.LOBBY)  # rendered from the current state: only the newest matters
MAX_ATTEMPTS = 12  # a notice failing for another reason than an outage is given up after this many tries
FIRST_PAUSE = timedelta(seconds=5)  # after a failed try; doubled after each further one…
LONGEST_PAUSE = timedelta(minutes=5)  # …up to this
GIVE_UP_AGE = timedelta(days=1)  # a notice failing for a passing reason is kept this long
TRANSIENT = (OSError, TimeoutError)  # connection refused or reset, timed out
MOVES = 40  # the newest moves a plan carries (the private messages tell a turn's moves)
# A game's delivery claims its next notices (written while it sent) with each report, until none
# are left: a round takes only what use cases wrote during the round before, so a chain ends when
# the game rests. Past this many rounds (a game that never rests) the sweep takes the rest.
ROUNDS = 20
_now = time.monotonic  # the clock of a claim's hold, as the sender reads it (the tests replace it)
HELD_SHARE = 0.8  # a sender starts no step after this share of the claim's lease: then it may be another's


def stopping(sender: Sender) -> bool:
    """Whether the sender's worker stops (SIGTERM): then it is handed nothing more."""
    check = getattr(sender, "stopping", None)
    return bool(check()) if callable(check) else False


def pause_after(attempts: int) -> timedelta:
    """How long a notice waits after its ``attempts``-th failed try."""
    return min(LONGEST_PAUSE, FIRST_PAUSE * 2 ** max(0, min(attempts - 1, 16)))


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
        core: Core | None = None,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.lease = lease
        self.core = core or Core(sessions, clock=clock)  # reads the games; pauses a silenced chat's

    async def deliver(
        self, sender: Sender, *, game_id: int | None = None, limit: int = 200, older_than: timedelta | None = None
    ) -> int:
        """Send what is pending (of one game, or all — with ``older_than``, only leftovers that the
        use case's own delivery did not take); games' plans go out concurrently, each in order, each
        followed by the game's newer notices. Returns how many notices were delivered."""
        if stopping(sender):  # what is pending stays for the next worker, untouched
            return 0
        async with self.sessions() as session, session.begin():
            handed = self.core.take_handed(game_id) if game_id is not None else None
            plans = await self._claim(session, game_id=game_id, limit=limit, older_than=older_than, handed=handed)
        return sum(await asyncio.gather(*(self._rounds(sender, plan) for plan in plans)))

    async def _rounds(self, sender: Sender, plan: Plan) -> int:
        sent, next_plan = 0, plan
        for _ in range(ROUNDS):
            if stopping(sender):
                break
            done, following = await self._send(sender, next_plan)
            sent += done
            if following is None:
                return sent
            next_plan = following
        async with self.sessions() as session, session.begin():  # claimed, not sent: back, for the sweep
            ids = [n.id or 0 for n in next_plan.notices]
            await repo.defer_outbox(session=session, ids=ids, until=self.clock(), uncount=True)
        return sent

    async def _claim(
        self,
        session: AsyncSession,
        *,
        game_id: int | None = None,
        limit: int = 200,
        older_than: timedelta | None = None,
        handed: Handed | None = None,
    ) -> list[Plan]:
        """Claim pending notices and read, in this session, what sending them needs: a plan per game
        (``handed``: the game as the press whose delivery this is committed it, see :class:`Handed`)."""
        started = _now()  # no later than the lease's start: other workers count it from ``now``
        now = self.clock()
        rows = await repo.claim_outbox(
            session=session, now=now, lease=self.lease, limit=limit, game_id=game_id, older_than=older_than
        )
        rows.sort(key=lambda r: (r.game_id or 0, r.id or 0))  # each game's notices together, in order
        games = [list(group) for _, group in groupby(rows, key=lambda r: r.game_id or 0)]
        games.sort(key=lambda group: group[0].id or 0)  # the game waiting longest first: it asks the rate first
        plans = []
        for group in games:
            plan = await self._plan(session, group[0].game_id or 0, group, handed, started=started)
            if plan is not None:
                plans.append(plan)
        return plans

    async def _plan(
        self, session: AsyncSession, game_id: int, rows: list[OutboxRow], handed: Handed | None, *, started: float
    ) -> Plan | None:
        notices = tuple(Notice.from_row(r.kind, game_id, r.payload, r.id, r.attempts) for r in rows)
        game = await self._game(session, game_id, rows, handed)
        if game is None:  # cannot be rendered: failed, like a sender's error
            cause = GameNotFoundError(f"no game {game_id}")
            await self._release(session, list(notices), cause, transient=False, now=self.clock())
            return None
        moves = moves_of(await repo.last_moves(session=session, game_id=game_id, count=MOVES))
        unrecorded = {s.number for s in game.seats if s.private_message_id is None}  # a press on an unknown copy
        pressed_unknown = any(n.kind == NoticeKind.MOVED and n.seat in unrecorded for n in notices)
        known = await self._known(session, game, notices, also=pressed_unknown)
        lease = self.lease.total_seconds()  # counted from the claim, not from this read: it may have been slow
        held, ends = started + lease * HELD_SHARE, started + lease  # (a margin for the report's write)
        inboxes = await self._inboxes(session, game, notices)
        claim = rows[0].claimed_until  # one statement claimed them all, until the same moment
        game = replace(game, moves=moves)
        return Plan(game, notices, known, held_until=held, lease_ends=ends, inboxes=inboxes, claimed_until=claim)

    async def _inboxes(
        self, session: AsyncSession, game: GameSnapshot, notices: tuple[Notice, ...]
    ) -> dict[int, Inbox]:
        """The inboxes of the players the plan's INBOX notices are about, as they are now."""
        players = {game.seat(n.seat).player_id for n in notices if n.kind == NoticeKind.INBOX and n.seat is not None}
        now = self.clock()
        return {p: await read_inbox(session, p, now) for p in sorted(p for p in players if p is not None)}

    async def _game(
        self, session: AsyncSession, game_id: int, rows: list[OutboxRow], handed: Handed | None
    ) -> GameSnapshot | None:
        """The game to render: as the press committed it, when these are exactly that press's
        notices on their first try (nothing else touched the game since); else read now."""
        claimed = [(r.id or 0, r.attempts) for r in rows]
        if handed is not None and handed.snapshot.game.id == game_id and handed.stands_for(claimed):
            return replace(handed.snapshot, now=self.core.clock())
        tx = await self.core.read(session, game_id, lock=False)
        return None if tx is None else tx.snapshot()

    async def _known(
        self, session: AsyncSession, game: GameSnapshot, notices: tuple[Notice, ...], *, also: bool = False
    ) -> dict[int, frozenset[int]]:
        """For a retried plan (an earlier attempt may have sent some of it unrecorded) — ``also``: a
        player pressed a copy whose sending was never recorded — the messages in its players' private
        chats that the clean-up of such a copy must leave alone: their games' (open, or ended within a
        day) and the ones that are no game's (their own, the bot's answers). This game's are the plan's
        own, as read with the game: one that another attempt recorded since is not the plan's to keep."""
        players = [s.player_id for s in game.seats if s.player_id is not None]
        if not players or (all(n.attempts <= 1 for n in notices) and not also):
            return {}
        since = self.clock() - timedelta(days=1)
        games = await repo.private_message_ids_of(session=session, player_ids=players, since=since, but=game.game.id)
        foreign = await repo.foreign_message_ids_of(session=session, player_ids=players)
        for seat in game.seats:
            if seat.player_id is not None:
                games[seat.player_id] |= {i for i in (seat.private_message_id, seat.reminder_message_id) if i}
        return {p: frozenset(games.get(p, set()) | foreign.get(p, set())) for p in players}

    async def _send(self, sender: Sender, plan: Plan) -> tuple[int, Plan | None]:
        """One plan: sent, then its report written with the delivered marks and, when all went well,
        the game's next notices claimed in the same transaction (None: the game rests). If that
        transaction is lost (the database dropped the connection), it is as if the process died
        after sending: the notices come back when their lease runs out, and the sender, seeing
        them retried, takes the keyboards off the copies it cannot find recorded."""
        try:
            report = await sender(plan)
        except Exception as exc:  # the sender's failure must not lose the notices, nor what it sent
            partial = exc.report if isinstance(exc, PartialDelivery) else Report(plan.game_id)
            cause = exc.cause if isinstance(exc, PartialDelivery) else exc
            wait = exc.wait if isinstance(exc, PartialDelivery) else None
            passing = is_transient(exc)
            lapsed = isinstance(exc, PartialDelivery) and exc.lapsed
            done = await self._written(
                plan, lambda: self._fail(plan, partial, cause, wait, transient=passing, lapsed=lapsed)
            )
            return (0 if done is None else len(done)), None
        written = await self._written(plan, lambda: self._succeed(plan, report))
        if written is None:
            return 0, None
        done, following = written
        return len(done), following

    async def _written(self, plan: Plan, write: Callable[[], Awaitable[T]]) -> T | None:
        """The report's transaction, tried again on a transient fault as a use case's is (a lost
        report sends the batch twice); lost for good, the lease brings the notices back."""
        try:
            return await retry_transient(write)()
        except DBAPIError as exc:
            if not is_transient_db(exc):
                raise
            log.warning("game %s: the delivery report was lost (%s); the lease brings it back", plan.game_id, exc)
            return None

    async def _fail(
        self,
        plan: Plan,
        report: Report,
        cause: BaseException,
        wait: timedelta | None,
        *,
        transient: bool,
        lapsed: bool = False,
    ) -> list[int]:
        ids = [n.id for n in plan.notices if n.id is not None]
        done = [i for i in ids if i in set(report.sent) and i not in report.again and i not in report.deferred]
        level = logging.INFO if wait is not None else logging.WARNING  # put off (a rate, a stop): no failure
        log.log(level, "delivery for game %s stopped after %d of %d: %r", plan.game_id, len(done), len(ids), cause)
        async with self.sessions() as session, session.begin():
            now = self.clock()
            held = await self._still_held(session, plan)
            await self.write(session, report, since=plan.now, messages=held)
            await repo.mark_delivered(session=session, ids=done, now=now)
            if lapsed or not held:  # the rest: whoever claimed them since sends them; else their lease brings them back
                return done
            await self._again(session, plan, report, now)
            await self._put_off(session, report, now)
            kept = {*done, *report.again, *report.deferred}
            failed = [n for n in plan.notices if n.id is not None and n.id not in kept]
            if wait is not None:  # the send rate is used up: later, and no failure
                later = [n.id or 0 for n in failed]
                await repo.defer_outbox(session=session, ids=later, until=now + wait, uncount=True)
            else:
                await self._release(session, failed, cause, transient=transient, now=now)
        return done

    async def _succeed(self, plan: Plan, report: Report) -> tuple[list[int], Plan | None]:
        ids = [n.id for n in plan.notices if n.id is not None]
        done = [i for i in ids if i not in report.deferred and i not in report.again]
        async with self.sessions() as session, session.begin():
            now = self.clock()
            held = await self._still_held(session, plan)
            await self.write(session, report, since=plan.now, messages=held)
            await repo.mark_delivered(session=session, ids=done, now=now)
            if not held:  # the rest is the claim's that took this one over
                return done, None
            await self._again(session, plan, report, now)
            await self._put_off(session, report, now)
            for kind in LATEST_ONLY:
                sent = [n.id for n in plan.notices if n.kind == kind and n.id is not None and n.id in done]
                if sent:
                    await repo.supersede_outbox(
                        session=session, game_id=plan.game_id, kinds=[kind], before_id=max(sent), now=now
                    )
            following = await self._claim(session, game_id=plan.game_id)
        return done, following[0] if following else None

    @staticmethod
    async def _still_held(session: AsyncSession, plan: Plan) -> bool:
        """Whether the plan's notices are still its claim's (locked for the report's transaction): not
        when the lease ran out and another worker claimed them. That one sends them again, and its
        messages are the ones to record; this report marks what it sent delivered and records none
        of its messages (unrecorded, the retried plan takes their keyboards off)."""
        if plan.claimed_until is None:
            return True
        ids = [n.id for n in plan.notices if n.id is not None]
        if await repo.hold_claim(session=session, ids=ids, until=plan.claimed_until):
            return True
        log.info("game %s: the claim ran out before its report, and another worker claimed the notices", plan.game_id)
        return False

    async def _write_messages(self, session: AsyncSession, report: Report) -> None:
        """The messages the sender sent or edited, to keep editing: each seat's private message and
        reminder, the inboxes, the nudges armed for silent turns, the game's table and lobby."""
        game_id = report.game_id
        messages = {number: (m.message_id, m.version) for number, m in report.private.items()}
        await repo.set_seat_messages(session=session, game_id=game_id, messages=messages)
        for number, reminder_id in report.reminders.items():
            await repo.set_reminder_message(session=session, game_id=game_id, number=number, message_id=reminder_id)
        await self._write_inboxes(session, report)
        for number, nudge in report.nudges.items():
            await repo.arm_nudge(session=session, game_id=game_id, number=number, version=nudge.version, at=nudge.at)
        if columns := report.game_messages():
            await repo.set_game_messages(session=session, game_id=game_id, **columns)

    async def write(self, session: AsyncSession, report: Report, *, since: datetime, messages: bool = True) -> None:
        """What a sender learnt, in the caller's transaction: a migrated chat first (what follows
        names the new one), the messages to keep editing, the players it cannot write to (unless they
        showed it may since ``since``, the plan's claim: a /start meanwhile is newer than its 403), and the
        chats that removed or muted the bot — their game pauses (notices of its own, written here).
        What it decided for every worker is stored too, for the next plan, whoever sends it: the turn
        it called an unreachable player for, a chat that refuses pictures, the table's last edit.
        Without ``messages`` (the claim was taken over), none of the messages it sent are recorded."""
        if report.empty:
            return
        for old_id, new_id in report.migrated:
            await repo.migrate_chat(session=session, old_id=old_id, new_id=new_id)
        if messages:
            await self._write_messages(session, report)
        for number, version in report.called.items():
            await repo.set_seat_called(session=session, game_id=report.game_id, number=number, version=version)
        for chat_id, until in report.photos_refused.items():
            await repo.set_photos_refused(session=session, chat_id=chat_id, until=until)
        for player_id in sorted(report.unreachable):  # met since ``since`` (the plan's claim): a newer /start wins
            player = await repo.get_player(session=session, player_id=player_id)
            if player is not None and (player.reachable_at is None or player.reachable_at <= since):
                player.can_message = False
        for chat_id in sorted(report.silenced):
            await silenced(self.core, session, chat_id)
        if report.tidy:  # each tried again alone, after a pause
            now = self.clock()
            rows = [Notice(NoticeKind.TIDY, report.game_id, payload=tidy).to_json() for tidy in report.tidy]
            await repo.insert_outbox(
                session=session,
                rows=[
                    {
                        "game_id": report.game_id,
                        "kind": str(NoticeKind.TIDY),
                        "payload": payload,
                        "created_at": now,
                        "not_before": now + FIRST_PAUSE,
                    }
                    for payload in rows
                ],
            )

    async def _write_inboxes(self, session: AsyncSession, report: Report) -> None:
        """A digest's new inbox message is the live one (noted as no game's message, so a crash's
        clean-up leaves its buttons); a deleted one is forgotten unless another replaced it."""
        for player_id, (message_id, _) in report.inbox_sent.items():
            await repo.set_inbox_message(session=session, player_id=player_id, message_id=message_id)
            await repo.note_foreign_messages(
                session=session, player_id=player_id, message_ids=[message_id], now=self.clock()
            )
        for player_id, message_id in report.inbox_gone.items():
            await repo.set_inbox_message(
                session=session, player_id=player_id, message_id=None, was=message_id, only_if=True
            )

    @staticmethod
    async def _put_off(session: AsyncSession, report: Report, now: datetime) -> None:
        """Notices the sender put off to respect a rate (the table's, a group post's): later, no failure."""
        for notice_id, wait in report.deferred.items():
            await repo.defer_outbox(session=session, ids=[notice_id], until=now + wait)

    @staticmethod
    async def _again(session: AsyncSession, plan: Plan, report: Report, now: datetime) -> None:
        """Clean-ups (TIDY) that failed again, alone: each is put off for its pause — without holding
        its game's other notices back — and given up after :data:`MAX_ATTEMPTS` tries."""
        for notice in plan.notices:
            if notice.id is None or notice.id not in report.again:
                continue
            if notice.attempts >= MAX_ATTEMPTS:
                log.warning("game %s: clean-up %s given up after %d tries", plan.game_id, notice.id, notice.attempts)
                await repo.mark_delivered(session=session, ids=[notice.id], now=now)
            else:
                await repo.defer_outbox(session=session, ids=[notice.id], until=now + pause_after(notice.attempts))

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
