"""The inbox and digest mode.

**The inbox** is one private message per player, "📥 Your games": every game where they must act,
longest wait first, then the games waiting on others (whose turn, until when). It is kept current by
editing it in place — an INBOX notice of the game that changed (see :mod:`waiting`), delivered by the
outbox like any other, so it survives a restart and only the newest state is shown. /games sends it
anew (the previous one is retired); a deleted one is forgotten, not sent again.

**Digest mode** (``/settings notify digest``): turns come silently, and the inbox is sent anew with a
notification at most once an interval (``/settings digest 4h``), when a game waits on the player and
not in their quiet hours. It is driven by the timer sweep: a digest player's seat that must act gets
``nudge_at`` (see :func:`waiting.arm_digests`), and :func:`fire_digests` takes the player's digest in
one conditional update of ``player.digested_at`` — two workers, or two of the player's games, never
both send one. Reminders before a deadline still notify: a deadline never passes unseen.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from engine import load_game
from persistence import repo
from shithead_bot.i18n import N_
from shithead_bot.service.autoplay import Notify
from shithead_bot.service.deadlines import humans_to_act
from shithead_bot.service.notices import InboxPayload, NoticeKind
from shithead_bot.service.schedule import SettingError, parse_duration
from shithead_bot.service.snapshot import ACTIVE, SeatSnapshot
from shithead_bot.service.status import GameStatus
from shithead_bot.service.unit import Core, GameTx, UserInfo
from shithead_bot.service.waiting import digest_seconds

SHORTEST_DIGEST = timedelta(minutes=15)
LONGEST_DIGEST = timedelta(days=7)


@dataclass(frozen=True)
class InboxLine:
    """One game in a player's inbox."""

    game_id: int
    chat_title: str  # "" for a game in our private chat
    since: datetime | None  # when its turn began: the longest wait first
    deadline: datetime | None  # None: no turn time
    mine: bool  # the player must act here
    to_act: tuple[str, ...] = ()  # whoever must act (the others' games)
    paused: bool = False


@dataclass(frozen=True)
class Inbox:
    """A player's inbox as it is now: what :func:`render.inbox` shows. Never any card."""

    player_id: int
    message_id: int | None  # the live inbox message (None: none yet)
    language: str | None
    now: datetime
    waiting: tuple[InboxLine, ...]  # the games waiting on them, longest wait first
    others: tuple[InboxLine, ...]  # the games waiting on others, soonest deadline first


async def read_inbox(session: AsyncSession, player_id: int, now: datetime) -> Inbox:
    """The player's inbox, read in the caller's session (the outbox's, or a query's)."""
    player = await repo.get_player(session=session, player_id=player_id)
    away = player is not None and player.away_until is not None and player.away_until > now
    waiting: list[InboxLine] = []
    others: list[InboxLine] = []
    for found in await repo.games_of_player(session=session, player_id=player_id):
        game, seat = found.game, found.seat
        paused = game.status == GameStatus.PAUSED
        if (game.status not in ACTIVE and not paused) or game.snapshot is None:
            continue
        state = load_game(game.snapshot)
        if state.is_over:
            continue
        seats = await repo.seats_of(session=session, game_id=game.id or 0)
        to_act = [n for n in state.seats_to_act() if n < len(seats)]
        mine = not paused and not away and not seat.standin and seat.number in to_act
        names = tuple(SeatSnapshot.of(seats[n]).name for n in to_act if n != seat.number)
        title = found.chat.title if found.chat.kind != "private" else ""
        line = InboxLine(game.id or 0, title, game.turn_started_at, game.deadline_at, mine, names, paused)
        (waiting if mine else others).append(line)
    waiting.sort(key=lambda line: (line.since or now, line.game_id))
    others.sort(key=lambda line: (line.deadline is None, line.deadline or now, line.game_id))
    language = player.language if player is not None else None
    message_id = player.inbox_message_id if player is not None else None
    return Inbox(player_id, message_id, language, now, tuple(waiting), tuple(others))


async def fire_digests(tx: GameTx) -> bool:
    """The digest checks due now in this game (a digest player's seat ``nudge_at``, armed when their
    turn began): nothing if their last digest came after this turn began (it listed this game
    already); else their digest goes — an INBOX notice that sends the inbox anew, notifying — if none
    went within their interval and they are not in their quiet hours; else the check comes back
    when it may. True when one was due."""
    due = [s for s in tx.seats if s.number in tx.waiting.digests and s.nudge_at is not None and s.nudge_at <= tx.now]
    to_act = set(humans_to_act(tx))
    for seat in due:
        quiet = tx.quiet.get(seat.number)
        if seat.number not in to_act or seat.player_id is None:
            seat.nudge_at = None
        elif quiet is not None and quiet.contains(tx.now):
            seat.nudge_at = quiet.ends_after(tx.now)
        else:
            seat.nudge_at = await _digest(tx, seat.number, seat.player_id)
    return bool(due)


async def _digest(tx: GameTx, number: int, player_id: int) -> datetime | None:
    """One digest check, in one conditional update of the player's row; when to look again (None:
    done — sent, or told by the last one)."""
    player = await repo.get_player(session=tx.session, player_id=player_id)
    last = player.digested_at if player is not None else None
    began = tx.game.turn_started_at or tx.now
    if last is not None and last >= began:  # the last digest listed this game already
        return None
    every = timedelta(seconds=tx.waiting.digests[number])
    if await repo.claim_digest(session=tx.session, player_id=player_id, now=tx.now, since=tx.now - every):
        tx.notify(NoticeKind.INBOX, number, InboxPayload(digest=True))
        return None
    if player is not None:  # one went within the interval (maybe another worker's, a moment ago)
        await tx.session.refresh(player)
        last = player.digested_at
    return max((last or tx.now) + every, tx.now + timedelta(seconds=1))


# ----------------------------------------------------------------------------- use cases


async def inbox_of(core: Core, player_id: int) -> Inbox:
    """A player's inbox as it is now (/games)."""
    async with core.sessions() as session:
        return await read_inbox(session, player_id, core.clock())


async def keep_inbox(core: Core, player_id: int, message_id: int) -> int | None:
    """/games sent the inbox anew: it is the live one now. Returns the previous one, to retire."""
    async with core.transaction() as session:
        player = await repo.get_player(session=session, player_id=player_id)
        if player is None:
            return None
        previous, player.inbox_message_id = player.inbox_message_id, message_id
        await repo.note_foreign_messages(
            session=session, player_id=player_id, message_ids=[message_id], now=core.clock()
        )
        return previous if previous != message_id else None


def parse_digest(text: str) -> int:
    """``/settings digest 4h``: the interval in seconds (30m, 2h, 1d…); SettingError otherwise."""
    seconds = parse_duration(text)
    if not SHORTEST_DIGEST.total_seconds() <= seconds <= LONGEST_DIGEST.total_seconds():
        raise SettingError(N_("{text}: a digest interval from 15m to 7d"), text=repr(text[:20]))
    return seconds


async def set_digest(core: Core, user: UserInfo, seconds: int) -> int:
    """Digest mode's interval for this player (from their next digest on)."""
    async with core.transaction() as session:
        player = await core.player(session, user)
        player.digest_seconds = seconds
    return seconds


async def digest_of(core: Core, player_id: int) -> tuple[Notify, int]:
    """A player's notify setting and digest interval (seconds)."""
    async with core.sessions() as session:
        player = await repo.get_player(session=session, player_id=player_id)
    if player is None:
        return Notify.SMART, digest_seconds(None)
    return Notify.of(player.notify), digest_seconds(player.digest_seconds)
