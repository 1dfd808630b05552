"""Idle players, the timers' use cases: what is due, firing it, nudges, turn times, quiet hours.

``game.due_at`` is the only clock: the next reminder, deadline, grace period, or stale lobby or
pause to close. Each firing is a versioned transaction, so it loses cleanly to a real move made at
the same moment, and two workers never fire the same event twice.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from persistence import repo
from shithead_bot.service.deadlines import (
    fire_nudges,
    grant_grace,
    humans_to_act,
    next_nudge,
    remind,
    restart_clock,
    schedule_next,
    turn_timer_due,
)
from shithead_bot.service.errors import (
    GameNotFoundError,
    NotAllowedError,
    QuietHoursError,
    RateLimitedError,
    StaleSettingsError,
    StaleVersionError,
)
from shithead_bot.service.inbox import fire_digests
from shithead_bot.service.notices import Announcement, AnnouncePayload, NoticeKind, Reminder, ReminderPayload
from shithead_bot.service.schedule import QuietHours, missed_after
from shithead_bot.service.snapshot import ACTIVE, ChatSnapshot
from shithead_bot.service.status import GameStatus
from shithead_bot.service.turns import chain_waiting, close, settle, time_out_everyone
from shithead_bot.service.unit import Core, GameTx, Result


async def due(core: Core, limit: int = 100) -> list[tuple[int, int]]:
    """Games whose timer is due now, as (id, version) to fire with :func:`fire_due`."""
    async with core.sessions() as session:
        return await repo.due_game_versions(session=session, now=core.clock(), limit=limit)


async def next_due_at(core: Core) -> datetime | None:
    async with core.sessions() as session:
        return await repo.next_due_at(session=session)


async def fire_due(
    core: Core, game_id: int, version: int, watching_since: datetime | None = None
) -> Result | None:
    """Whatever is due for this game: a reminder, the action at a deadline, a grace period for a
    deadline nobody was watching, or closing a stale lobby or pause. ``watching_since``: the firing
    worker has swept without a pause since then — a deadline after it was watched, however late it
    fires (a busy worker), and is never given grace.

    ``version`` is what the sweep saw: if the game moved since (a real move, or another worker's
    firing), the timer lost the race (StaleVersionError) — that is what makes a deadline fire once.
    On PostgreSQL the game row is locked FOR UPDATE SKIP LOCKED, so a worker does not even wait for
    a game another worker is firing: None (as when nothing is due any more)."""
    async with core.transaction() as session:
        tx = await core.read(session, game_id, lock=True, skip_locked=core.dialect == "postgresql")
        if tx is None:
            return None
        if tx.loaded_version != version:
            raise StaleVersionError(f"timer for version {version}, game is at {tx.loaded_version}")
        game = tx.game
        if game.due_at is None or game.due_at > tx.now:
            return None
        core.bump(tx)
        if tx.status == GameStatus.LOBBY:
            _expire(tx, Announcement.LOBBY_EXPIRED, NoticeKind.LOBBY, days=core.settings.lobby_expiry_days)
        elif tx.status == GameStatus.PAUSED:
            _expire(tx, Announcement.PAUSE_EXPIRED, NoticeKind.TABLE, days=core.settings.paused_expiry_days)
        elif tx.status in ACTIVE:
            _fire_turn_timer(core, tx, digested=await fire_digests(tx), watching_since=watching_since)
        else:
            game.due_at = None
        return await core.commit(tx)


def _expire(tx: GameTx, what: Announcement, kind: NoticeKind, days: int) -> None:
    close(tx, GameStatus.ABORTED)
    tx.announce(AnnouncePayload(what, days=days))
    tx.notify(kind)


def _fire_turn_timer(
    core: Core, tx: GameTx, *, digested: bool = False, watching_since: datetime | None = None
) -> None:
    game = tx.game
    if chain_waiting(tx):  # a press handed the computers' chain back and nobody carried it on
        settle(tx, core.settings)
        return
    nudged = fire_nudges(tx) or digested
    if game.deadline_at is None or not game.turn_seconds:
        game.due_at = next_nudge(tx)
        return
    if nudged and not turn_timer_due(tx):  # only a nudge was due
        schedule_next(tx)
        return
    watched = watching_since is not None and game.deadline_at >= watching_since
    if game.deadline_at > tx.now:
        remind(tx)
    elif tx.now - game.deadline_at > missed_after(core.settings.sweep_seconds) and not watched:
        grant_grace(tx, core.settings)
    else:
        time_out_everyone(tx)
        settle(tx, core.settings)


async def nudge(core: Core, game_id: int, user_id: int) -> Result:
    """Another player asks the bot to remind whoever must act: at most once an hour per game."""
    async with core.transaction() as session:
        tx = await core.load(session, game_id)
        tx.require(*ACTIVE)
        nudger = tx.seat_or_raise(user_id)
        targets = [n for n in humans_to_act(tx) if tx.seat(n).player_id != user_id]
        if not targets:
            raise NotAllowedError("nobody else is to act")
        interval = timedelta(seconds=core.settings.nudge_interval_seconds)
        if tx.game.last_nudge_at is not None and tx.now < tx.game.last_nudge_at + interval:
            left = int((tx.game.last_nudge_at + interval - tx.now).total_seconds())
            raise RateLimitedError("one nudge per hour per game", left)
        awake = [n for n in targets if not (q := tx.quiet.get(n)) or not q.contains(tx.now)]
        if not awake:
            raise QuietHoursError("the player to act is in their quiet hours")
        tx.game.last_nudge_at = tx.now
        for number in awake:
            tx.notify(NoticeKind.REMINDER, number, ReminderPayload(Reminder.NUDGE, by=nudger.name))
        return await core.commit(tx)


async def set_turn_time(core: Core, chat_id: int, seconds: int | None, version: int | None = None) -> ChatSnapshot:
    """A chat's turn time. Its open game uses it from the next turn; a game that had no time limit
    gets one for the current turn at once (else an absent player would hold it forever).
    ``version``: the settings version the asker saw (a keyboard's); an older one is refused."""
    async with core.transaction() as session:
        chat = await repo.get_chat(session=session, chat_id=chat_id)
        if chat is None:
            raise GameNotFoundError(f"unknown chat {chat_id}")
        if version is not None and version != chat.settings_version:
            raise StaleSettingsError(f"settings version {version}, the chat is at {chat.settings_version}")
        chat.turn_seconds = seconds
        chat.settings_version += 1
        game = await repo.open_game_in_chat(session=session, chat_id=chat_id)
        if game is not None:
            tx = await core.load(session, game.id or 0)
            tx.game.turn_seconds = seconds
            if tx.status in ACTIVE and (seconds is None or tx.game.deadline_at is None):
                restart_clock(tx)
                tx.notify(NoticeKind.TABLE)
            await core.commit(tx)
        return ChatSnapshot.of(chat)


async def set_quiet_hours(core: Core, player_id: int, quiet: QuietHours | None) -> None:
    async with core.transaction() as session:
        player = await repo.get_player(session=session, player_id=player_id)
        if player is None:
            raise GameNotFoundError(f"unknown player {player_id}")
        player.quiet_start = quiet.start if quiet else None
        player.quiet_end = quiet.end if quiet else None
        player.timezone = quiet.zone if quiet else None


async def quiet_hours(core: Core, player_id: int) -> QuietHours | None:
    async with core.sessions() as session:
        player = await repo.get_player(session=session, player_id=player_id)
    if player is None or player.quiet_start is None or player.quiet_end is None:
        return None
    return QuietHours(player.quiet_start, player.quiet_end, player.timezone or "UTC")
