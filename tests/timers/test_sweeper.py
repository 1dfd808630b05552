"""Idle players over days, with an injectable clock: reminders, actions at the deadline, removal,
quiet hours, pause and resume, closing stale games, nudges, races, and restarts."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from persistence.models import Game, Move, Outbox
from shithead_bot.service import (
    Autoplay,
    GameService,
    NotAllowedError,
    QuietHoursError,
    RateLimitedError,
    StaleVersionError,
)
from shithead_bot.service.schedule import QuietHours, deadline_after, reminder_offsets
from shithead_bot.timers.sweeper import Sweeper
from testkit.clock import FakeClock
from tests.service.helpers import GROUP, lobby_with, make_service, user

OFF = Autoplay.OFF  # these tests are about what happens to a player's own moves at their deadline


async def reminders(sessions: async_sessionmaker[AsyncSession]) -> list[dict[str, Any]]:
    async with sessions() as session:
        rows = (await session.execute(select(Outbox).where(Outbox.kind == "reminder").order_by(Outbox.id))).scalars()
        return [r.payload for r in rows]


async def actors(sessions: async_sessionmaker[AsyncSession], game_id: int) -> list[tuple[int, str, str]]:
    async with sessions() as session:
        rows = (await session.execute(select(Move).where(Move.game_id == game_id).order_by(Move.seq))).scalars()
        return [(m.seat, m.move, m.actor) for m in rows]


async def game_row(sessions: async_sessionmaker[AsyncSession], game_id: int) -> Game:
    async with sessions() as session:
        game = await session.get(Game, game_id)
        assert game is not None
        return game


async def ready_all(service: GameService, game_id: int, humans: int) -> None:
    for n in range(humans):
        ctx = await service.game_view(game_id)
        if ctx.game.status != "swapping":
            return
        await service.play(game_id, user(n).id, "r", ctx.seat(n).keyboard_version)


def test_reminder_defaults() -> None:
    assert reminder_offsets(86400, None) == [43200, 3600]  # half time, one hour before
    assert reminder_offsets(300, None) == [150]  # short turns: half time only
    assert reminder_offsets(3600, ["1h", "50%"]) == [1800]  # a reminder at the very start is dropped
    assert reminder_offsets(86400, []) == []


async def test_swap_phase_reminders_then_everyone_made_ready(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    game_id = await lobby_with(service, autoplay=OFF, humans=2)
    await service.start(game_id, user(0).id)
    await service.play(game_id, user(0).id, "r", (await service.game_view(game_id)).seat(0).keyboard_version)
    sweeper = Sweeper(service)
    clock.advance(hours=11)
    assert (await sweeper.sweep()).fired == 0
    clock.advance(hours=1, seconds=1)
    assert (await sweeper.sweep()).fired == 1
    assert [(r["seat"], r["what"]) for r in await reminders(sessions)] == [(1, "reminder")]  # only who must act
    clock.advance(hours=11)
    await sweeper.sweep()
    assert len(await reminders(sessions)) == 2  # one hour before
    clock.advance(hours=1)
    await sweeper.sweep()
    game = await game_row(sessions, game_id)
    assert game.status == "playing"
    assert (await actors(sessions, game_id))[-1] == (1, "r", "timeout")


async def test_play_phase_deadline_acts_for_the_player(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    await service.ensure_chat(GROUP, "group", "Friends")
    await service.set_turn_time(GROUP, 300)
    game_id = await lobby_with(service, autoplay=OFF, humans=2)
    await service.start(game_id, user(0).id)
    await ready_all(service, game_id, 2)
    ctx = await service.game_view(game_id)
    to_act = ctx.state.to_act if ctx.state else None
    sweeper = Sweeper(service)
    clock.advance(seconds=151)
    await sweeper.sweep()
    assert [r["what"] for r in await reminders(sessions)] == ["reminder"]  # half time only
    clock.advance(seconds=150)
    report = await sweeper.sweep()
    assert report.fired == 1
    last = (await actors(sessions, game_id))[-1]
    assert last[0] == to_act
    assert last[2] == "timeout"
    assert last[1].startswith("p:h:")  # the first play of the game: the forced lowest card
    after = await service.game_view(game_id)
    assert after.seat(to_act or 0).timeouts_in_row == 1
    assert after.game.deadline_at == clock.now + timedelta(seconds=300)  # the next turn's clock


async def test_neighbor_keeps_at_the_deadline(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    game_id = await lobby_with(service, autoplay=OFF, humans=2, kind="neighbor")
    await service.start(game_id, user(0).id)
    clock.advance(hours=24, seconds=1)
    await Sweeper(service).sweep()
    assert (await actors(sessions, game_id))[-1][1:] == ("k", "timeout")


async def test_removed_after_n_timeouts_in_a_row_and_a_move_resets_the_count(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    await service.ensure_chat(GROUP, "group", "Friends")
    await service.update_chat(GROUP, max_timeouts=2)
    await service.set_turn_time(GROUP, 60)
    game_id = await lobby_with(service, autoplay=OFF, humans=3)
    await service.start(game_id, user(0).id)
    await ready_all(service, game_id, 3)
    sweeper = Sweeper(service)
    idle = (await service.game_view(game_id)).state.to_act  # type: ignore[union-attr]
    assert idle is not None
    for _ in range(40):
        ctx = await service.game_view(game_id)
        if ctx.seat(idle).forfeited or ctx.game.status != "playing":
            break
        assert ctx.state is not None
        seat = ctx.state.to_act
        assert seat is not None
        if seat == idle:
            clock.advance(seconds=61)
            await sweeper.sweep()
        else:  # the others play at once: a real move resets their own count
            move = ctx.state.legal_moves(seat)[0]
            await service.play(game_id, ctx.seat(seat).player_id or 0, move, ctx.seat(seat).keyboard_version)
            assert (await service.game_view(game_id)).seat(seat).timeouts_in_row == 0
    ctx = await service.game_view(game_id)
    assert ctx.seat(idle).forfeited
    assert (idle, "f", "timeout") in await actors(sessions, game_id)
    async with sessions() as session:
        told = (await session.execute(select(Outbox.payload).where(Outbox.kind == "announce"))).scalars().all()
    about_idle = [p["what"] for p in told if p.get("seat") == idle]
    assert about_idle.count("removed") == 1
    assert "forfeited" not in about_idle  # said once, not twice


async def test_quiet_hours_silence_reminders_but_not_deadlines(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    # The clock stands at 12:00 UTC: quiet hours 11:00-14:00 UTC cover the half-time reminder.
    await service.ensure_chat(GROUP, "group", "Friends")
    await service.set_turn_time(GROUP, 3600)
    game_id = await lobby_with(service, autoplay=OFF, humans=2)
    for n in range(2):
        await service.set_quiet_hours(user(n).id, QuietHours.parse("11:00-14:00 UTC"))
    await service.start(game_id, user(0).id)
    start = clock.now
    sweeper = Sweeper(service)
    clock.advance(minutes=31)  # past half time: the reminder is due, but quiet
    await sweeper.sweep()
    assert await reminders(sessions) == []
    clock.advance(minutes=29)  # to the deadline
    await sweeper.sweep()
    game = await game_row(sessions, game_id)
    assert game.status == "playing"  # the deadline did not move: everyone was made ready
    assert game.deadline_at is not None
    assert start + timedelta(hours=1) <= clock.now


async def test_deadlines_may_skip_quiet_hours(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    quiet = QuietHours.parse("13:00-15:00 UTC")
    assert deadline_after(clock.now, 3 * 3600, quiet) == clock.now + timedelta(hours=5)
    await service.ensure_chat(GROUP, "group", "Friends")
    await service.update_chat(GROUP, deadlines_skip_quiet=True)
    await service.set_turn_time(GROUP, 3 * 3600)
    game_id = await lobby_with(service, autoplay=OFF, humans=2)
    await service.start(game_id, user(0).id)
    await ready_all(service, game_id, 2)
    ctx = await service.game_view(game_id)
    await service.set_quiet_hours(ctx.seat(ctx.state.to_act or 0).player_id or 0, quiet)  # type: ignore[union-attr]
    # The next turn is computed with the quiet hours of whoever must act.
    await service.pause(game_id, user(0).id)
    await service.resume(game_id, user(0).id)
    game = await game_row(sessions, game_id)
    assert game.deadline_at == clock.now + timedelta(hours=5)


async def test_pause_resume_and_closing_stale_games(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    game_id = await lobby_with(service, autoplay=OFF, humans=2)
    await service.start(game_id, user(0).id)
    await service.pause(game_id, user(0).id)
    sweeper = Sweeper(service)
    clock.advance(days=29)
    await sweeper.sweep()
    assert (await game_row(sessions, game_id)).status == "paused"  # no deadline runs while paused
    await service.resume(game_id, user(1).id)
    resumed = await game_row(sessions, game_id)
    assert resumed.deadline_at == clock.now + timedelta(hours=24)  # the full turn time again
    await service.pause(game_id, user(0).id)
    clock.advance(days=30, seconds=1)
    await sweeper.sweep()
    assert (await game_row(sessions, game_id)).status == "aborted"
    lobby = await lobby_with(service, autoplay=OFF, humans=1, chat_id=-777)
    clock.advance(days=7, seconds=1)
    await sweeper.sweep()
    assert (await game_row(sessions, lobby)).status == "aborted"


async def test_pause_by_majority_vote(service: GameService, sessions: async_sessionmaker[AsyncSession]) -> None:
    game_id = await lobby_with(service, autoplay=OFF, humans=3)
    await service.start(game_id, user(0).id)
    first = await service.vote_pause(game_id, user(1).id)
    assert first.status == "swapping"
    assert (await game_row(sessions, game_id)).pause_votes == [user(1).id]
    second = await service.vote_pause(game_id, user(2).id)
    assert second.status == "paused"
    admin = await lobby_with(service, autoplay=OFF, humans=2, chat_id=-888)
    await service.start(admin, user(0).id)
    assert (await service.vote_pause(admin, user(1).id, is_admin=True)).status == "paused"


async def test_nudge_once_an_hour(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    game_id = await lobby_with(service, autoplay=OFF, humans=2)
    await service.start(game_id, user(0).id)
    await ready_all(service, game_id, 2)
    ctx = await service.game_view(game_id)
    to_act = ctx.state.to_act if ctx.state else 0
    other = user(1 - (to_act or 0)).id
    with pytest.raises(NotAllowedError):
        await service.nudge(game_id, ctx.seat(to_act or 0).player_id or 0)  # not yourself
    await service.nudge(game_id, other)
    assert (await reminders(sessions))[-1]["what"] == "nudge"
    clock.advance(minutes=59)
    with pytest.raises(RateLimitedError) as limited:
        await service.nudge(game_id, other)
    assert 0 < limited.value.seconds_left <= 60
    await service.set_quiet_hours(ctx.seat(to_act or 0).player_id or 0, QuietHours.parse("00:00-23:59 UTC"))
    clock.advance(minutes=2)
    with pytest.raises(QuietHoursError):
        await service.nudge(game_id, other)


async def test_a_move_and_a_deadline_racing_only_one_applies(
    db_url: str, service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    from persistence.db import make_engine, make_sessionmaker

    for round_ in range(4):
        game_id = await lobby_with(service, autoplay=OFF, humans=2, chat_id=-500 - round_)
        await service.start(game_id, user(0).id)
        await ready_all(service, game_id, 2)
        clock.advance(hours=24, seconds=1)
        ctx = await service.game_view(game_id)
        seat = ctx.state.to_act if ctx.state else 0
        move = ctx.state.legal_moves(seat or 0)[0] if ctx.state else "t"
        engines = [make_engine(db_url), make_engine(db_url)]
        player_side, timer_side = (make_service(make_sessionmaker(e), clock) for e in engines)
        due = await timer_side.due()
        version = next(v for g, v in due if g == game_id)
        results = await asyncio.gather(
            player_side.play(game_id, ctx.seat(seat or 0).player_id or 0, move, ctx.seat(seat or 0).keyboard_version),
            timer_side.fire_due(game_id, version),
            return_exceptions=True,
        )
        for engine in engines:
            await engine.dispose()
        applied = [r for r in results if r is not None and not isinstance(r, BaseException)]
        assert len(applied) == 1, results
        assert all(isinstance(r, StaleVersionError) for r in results if isinstance(r, BaseException))
        moves_after_ready = (await actors(sessions, game_id))[2:]
        assert len(moves_after_ready) == 1
        clock.advance(seconds=1)


async def test_restart_with_overdue_deadline_gives_grace_not_a_penalty(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    game_id = await lobby_with(service, autoplay=OFF, humans=2)
    await service.start(game_id, user(0).id)
    await ready_all(service, game_id, 2)
    before = await actors(sessions, game_id)
    clock.advance(hours=30)  # the bot was down through the deadline
    sweeper = Sweeper(service)
    await sweeper.sweep()
    assert await actors(sessions, game_id) == before  # no instant penalty
    assert (await reminders(sessions))[-1]["what"] == "grace"
    game = await game_row(sessions, game_id)
    assert game.deadline_at == clock.now + timedelta(hours=2, minutes=24)  # 10 % of 24 h
    clock.advance(hours=2, minutes=24, seconds=1)
    await sweeper.sweep()
    assert (await actors(sessions, game_id))[-1][2] == "timeout"


async def test_timers_fire_once_with_two_sweepers(
    db_url: str, service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    from persistence.db import make_engine, make_sessionmaker

    games = []
    for n in range(12):
        game_id = await lobby_with(service, autoplay=OFF, humans=2, chat_id=-900 - n)
        await service.start(game_id, user(0).id)
        games.append(game_id)
    clock.advance(hours=24, seconds=1)
    engines = [make_engine(db_url), make_engine(db_url)]
    sweepers = [Sweeper(make_service(make_sessionmaker(e), clock), batch=5) for e in engines]
    reports = await asyncio.gather(*(s.sweep() for s in sweepers))
    for engine in engines:
        await engine.dispose()
    assert sum(r.fired for r in reports) == len(games)
    for game_id in games:
        timed_out = [a for a in await actors(sessions, game_id) if a[2] == "timeout" and a[1] == "r"]
        assert len(timed_out) == 2  # both players made ready, once


async def test_a_stopping_worker_fires_no_more_timers_and_leaves_them_to_the_next(
    service: GameService, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM: the worker fires nothing more (a sweep of many due games would keep it past its
    stop, and a fleet's orchestrator kills it then); the next worker fires them, each once."""
    games = [await lobby_with(service, autoplay=OFF, humans=2, chat_id=GROUP - n) for n in range(3)]
    for game_id in games:
        await service.start(game_id, user(0).id)
    clock.advance(days=2)
    stopping = Sweeper(service)
    fire_due = service.fire_due

    async def fire_then_stop(game_id: int, version: int, *watching: Any) -> object:
        result = await fire_due(game_id, version, *watching)
        stopping.stop()  # SIGTERM comes while the first game's timer fires
        return result

    monkeypatch.setattr(service, "fire_due", fire_then_stop)
    assert (await stopping.sweep()).fired == 1
    assert (await stopping.sweep()).fired == 0
    monkeypatch.undo()
    assert (await Sweeper(service).sweep()).fired == len(games) - 1


async def test_a_busy_worker_that_was_watching_times_out_late_deadlines_and_gives_no_grace(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Grace is for a deadline nobody watched (the bot was down). A worker that was sweeping all along
    but fires late because it is busy (many deadlines at once on a loaded machine) times the players
    out as their deadline said: before, every game fired more than 30 s late got hours of grace, and
    a test of 200 simultaneous deadlines saw 96 of them put off that way."""
    games = [await lobby_with(service, autoplay=OFF, humans=2, chat_id=GROUP - n) for n in range(3)]
    for game_id in games:
        await service.start(game_id, user(0).id)
        await ready_all(service, game_id, 2)
    sweeper = Sweeper(service)
    deadline = (await game_row(sessions, games[0])).deadline_at
    assert deadline is not None
    clock.now = deadline - timedelta(seconds=5)
    await sweeper.sweep()  # watching before the deadline
    clock.now = deadline + timedelta(seconds=1)
    fire_due = service.fire_due

    async def slowly(game_id: int, version: int, *watching: Any) -> object:
        clock.advance(seconds=20)  # the machine is busy: each firing takes 20 s
        return await fire_due(game_id, version, *watching)

    monkeypatch.setattr(service, "fire_due", slowly)
    await sweeper.sweep()
    assert [(await actors(sessions, g))[-1][2] for g in games] == ["timeout"] * 3
    assert [r["what"] for r in await reminders(sessions)].count("grace") == 0
