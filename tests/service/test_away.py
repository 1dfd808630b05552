"""Away, not gone: a stand-in plays an absent player's turns at once, from their seat's view only;
no reminders and no timeouts meanwhile; back by /back (or a press), mid-turn too. And the stand-in
at a deadline: ``on_timeout standin`` and ``after_timeouts computer``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from engine import AnyState
from engine.ai import make_player
from persistence.models import Move, Outbox
from shithead_bot.service import Autoplay, GameService
from shithead_bot.service import autoplay as autoplay_module
from shithead_bot.service.autoplay import computer_move, computer_seed
from shithead_bot.service.away import AwayTooLongError
from shithead_bot.timers.sweeper import Sweeper
from testkit.clock import FakeClock
from tests.service.helpers import GROUP, lobby_with, make_service, user

OFF = Autoplay.OFF  # every move of a present player is their own tap: the stand-in's are told apart


async def log_of(sessions: async_sessionmaker[AsyncSession], game_id: int) -> list[tuple[int, str, str]]:
    async with sessions() as session:
        rows = (await session.execute(select(Move).where(Move.game_id == game_id).order_by(Move.seq))).scalars()
        return [(m.seat, m.move, m.actor) for m in rows]


async def outbox(sessions: async_sessionmaker[AsyncSession], kind: str) -> list[dict[str, Any]]:
    async with sessions() as session:
        rows = (await session.execute(select(Outbox).where(Outbox.kind == kind).order_by(Outbox.id))).scalars()
        return [{"game_id": r.game_id, **r.payload} for r in rows]


async def present_play_to_end(service: GameService, game_id: int, present: set[int], limit: int = 3000) -> None:
    """The present players play heuristic moves as soon as they are to act; the away ones never do."""
    bots = {n: make_player("heuristic", n) for n in present}
    for _ in range(limit):
        game = await service.game_view(game_id)
        if game.is_over:
            return
        assert game.state is not None
        to_act = [n for n in game.state.seats_to_act() if n in present]
        assert to_act, f"nobody present is to act: {game.state.seats_to_act()} (away seats wait?)"
        seat = game.seat(to_act[0])
        move = bots[seat.number].choose(game.state.view(seat.number))
        result = await service.play(game_id, seat.player_id or 0, move, seat.keyboard_version)
        if result.thinking:
            await service.play_on(game_id)
    raise AssertionError("the game did not end")


async def started(service: GameService, humans: int, chat_id: int = GROUP) -> int:
    game_id = await lobby_with(service, humans=humans, chat_id=chat_id, autoplay=OFF)
    await service.start(game_id, user(0).id)
    return game_id


async def test_a_stand_in_plays_every_turn_of_an_away_player_in_every_game(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    games = [await started(service, 2, chat_id=GROUP - n) for n in range(2)]
    away = await service.go_away(user(1), timedelta(days=3))
    assert sorted(away.game_ids) == sorted(games)
    for game_id in games:
        game = await service.game_view(game_id)
        assert game.seat(1).stood_in
        assert game.names[1] == "🤖 User1"
        assert game.seat(1).away_until == clock.now + timedelta(days=3)
        assert game.status == "swapping"
        assert 1 not in game.state.seats_to_act()
        await present_play_to_end(service, game_id, {0})
        mine = [actor for seat, _, actor in await log_of(sessions, game_id) if seat == 1]
        assert mine
        assert set(mine) == {"standin"}
        assert "r" in [move for seat, move, _ in await log_of(sessions, game_id) if seat == 1]
    told = [a for a in await outbox(sessions, "announce") if a["what"] == "away"]
    assert sorted(a["game_id"] for a in told) == sorted(games)  # each group told once
    assert all(a["seat"] == 1 and a["until"] == (clock.now + timedelta(days=3)).isoformat() for a in told)
    assert not [r for r in await outbox(sessions, "reminder") if r["seat"] == 1]
    turns_after = [t for t in await outbox(sessions, "turn") if t["seat"] == 1]
    assert not turns_after  # no buttons while away
    moved = [m for m in await outbox(sessions, "moved") if m["seat"] == 1]
    assert moved
    assert all(m.get("auto") for m in moved)


async def test_two_away_players_in_one_game(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    game_id = await started(service, 3)
    await service.go_away(user(1), timedelta(days=1))
    await service.go_away(user(2), timedelta(hours=12))
    await present_play_to_end(service, game_id, {0})
    log = await log_of(sessions, game_id)
    for number in (1, 2):
        assert {actor for seat, _, actor in log if seat == number} == {"standin"}
    assert (await service.game_view(game_id)).is_over


async def test_a_stand_in_sees_only_its_seats_view(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[int, type]] = []
    real = autoplay_module.make_player

    class Spy:
        def __init__(self, level: str, seed: int) -> None:
            self.player = real(level, seed)

        def choose(self, view: Any) -> Any:
            seen.append((view.seat, type(view)))
            return self.player.choose(view)

    monkeypatch.setattr(autoplay_module, "make_player", Spy)
    game_id = await started(service, 3)
    await service.go_away(user(2), timedelta(days=1))
    await present_play_to_end(service, game_id, {0, 1})
    assert seen
    assert {seat for seat, _ in seen} == {2}
    assert all(kind.__name__ == "ShitheadView" for _, kind in seen)  # a view, never the state


async def test_the_stand_in_plays_the_seats_view_as_a_normal_computer_would(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    game_id = await started(service, 2)
    for n in range(2):
        await service.play(game_id, user(n).id, "r", (await service.game_view(game_id)).seat(n).keyboard_version)
    game = await service.game_view(game_id)
    assert game.state is not None
    state: AnyState = game.state
    if state.to_act == 0:  # seat 0 moves first: then the stand-in answers
        move = make_player("heuristic", 0).choose(state.view(0))
        await service.play(game_id, user(0).id, move, game.seat(0).keyboard_version)
        game = await service.game_view(game_id)
        assert game.state is not None
        state = game.state
    if state.to_act != 1:
        pytest.skip("seat 0 plays again (a burn)")
    expected = computer_move(
        state, 1, "normal", computer_seed((await service.record(game_id)).seed, game.game.move_count)
    )
    await service.go_away(user(1), timedelta(hours=1))
    first = next(m for m in await log_of(sessions, game_id) if m[2] == "standin")
    assert first == (1, str(expected), "standin")


async def test_away_survives_a_restart_and_the_deadline_sweep_counts_no_timeout(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    await service.ensure_chat(GROUP, "group", "Friends")
    await service.set_turn_time(GROUP, 600)
    game_id = await started(service, 3)
    await service.go_away(user(2), timedelta(hours=2))
    restarted = make_service(sessions, clock)  # another process, the same database
    sweeper = Sweeper(restarted)
    for _ in range(3):  # seats 0 and 1 sleep through their deadlines; seat 2 never has one
        clock.advance(seconds=601)
        await sweeper.sweep()
    game = await restarted.game_view(game_id)
    assert game.seat(2).stood_in
    assert game.seat(2).timeouts_in_row == 0
    assert game.seat(0).timeouts_in_row + game.seat(1).timeouts_in_row >= 2
    log = await log_of(sessions, game_id)
    assert {actor for seat, _, actor in log if seat == 2} == {"standin"}
    assert not [r for r in await outbox(sessions, "reminder") if r["seat"] == 2]
    clock.advance(hours=2)  # back by the clock: the stand-in stops at once
    game = await restarted.game_view(game_id)
    assert not game.seat(2).stood_in
    assert game.names[2] == "User2"


async def test_coming_back_mid_turn_takes_the_turn_over(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    await service.ensure_chat(GROUP, "group", "Friends")
    await service.update_chat(GROUP, standin_level="hard")  # slow: a press hands the stand-in back
    game_id = await started(service, 2)
    for n in range(2):
        await service.play(game_id, user(n).id, "r", (await service.game_view(game_id)).seat(n).keyboard_version)
    if (await service.game_view(game_id)).state.to_act != 0:  # type: ignore[union-attr]
        pytest.skip("seat 1 leads")
    await service.go_away(user(1), timedelta(days=1))
    bot = make_player("heuristic", 0)
    for _ in range(20):
        game = await service.game_view(game_id)
        assert game.state is not None
        result = await service.play(game_id, user(0).id, bot.choose(game.state.view(0)), game.seat(0).keyboard_version)
        if result.thinking:
            break
    else:
        pytest.skip("seat 0 never handed the turn over")
    before = await log_of(sessions, game_id)
    back = await service.come_back(user(1).id)
    assert back is not None
    assert back.game_ids == [game_id]
    game = await service.game_view(game_id)
    assert game.may_act(1)
    assert not game.seat(1).stood_in
    assert game.seat(1).keyboard_version == game.game.version  # their buttons are live again
    assert [t for t in await outbox(sessions, "turn") if t["seat"] == 1][-1]["version"] == game.game.version
    assert await service.play_on(game_id) is None  # the stand-in does not move any more
    assert await log_of(sessions, game_id) == before
    assert game.state is not None
    move = make_player("heuristic", 1).choose(game.state.view(1))
    await service.play(game_id, user(1).id, move, game.seat(1).keyboard_version)
    assert (await log_of(sessions, game_id))[len(before)] == (1, str(move), "human")
    assert await service.come_back(user(1).id) is None  # back already: nothing to do


async def test_away_without_a_game_and_bad_times(service: GameService, clock: FakeClock) -> None:
    away = await service.go_away(user(5), timedelta(days=2))
    assert away.results == []
    assert away.until == clock.now + timedelta(days=2)
    assert await service.away_until(user(5).id) == clock.now + timedelta(days=2)
    for bad in (timedelta(0), timedelta(days=400), timedelta(hours=-1)):
        with pytest.raises(AwayTooLongError):
            await service.go_away(user(5), bad)
    assert await service.away_until(user(5).id) == clock.now + timedelta(days=2)  # unchanged


async def test_a_player_away_while_paused_is_stood_in_on_resume(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    game_id = await started(service, 2)
    await service.pause(game_id, user(0).id)
    await service.go_away(user(1), timedelta(days=1))
    assert not [m for m in await log_of(sessions, game_id) if m[2] == "standin"]  # a paused game waits
    await service.resume(game_id, user(0).id)
    assert {actor for seat, _, actor in await log_of(sessions, game_id) if seat == 1} == {"standin"}


async def test_on_timeout_standin_plays_the_stand_ins_move_and_counts(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    await service.ensure_chat(GROUP, "group", "Friends")
    await service.update_chat(GROUP, on_timeout="standin")
    await service.set_turn_time(GROUP, 300)
    game_id = await started(service, 2)
    clock.advance(seconds=301)  # the swap phase: nobody swapped; the stand-in swaps, then ready
    await Sweeper(service).sweep()
    game = await service.game_view(game_id)
    assert game.status == "playing"
    assert game.seat(0).timeouts_in_row == 0  # the swap phase's deadline is not a missed turn
    assert game.seat(1).timeouts_in_row == 0
    log = await log_of(sessions, game_id)
    assert {actor for _, _, actor in log} == {"timeout"}
    assert [m for _, m, _ in log].count("r") == 2
    assert game.state is not None
    to_act = game.state.to_act
    assert to_act is not None
    expected = computer_move(
        game.state, to_act, "normal", computer_seed((await service.record(game_id)).seed, game.game.move_count)
    )
    clock.advance(seconds=301)
    await Sweeper(service).sweep()
    assert (await log_of(sessions, game_id))[len(log)] == (to_act, str(expected), "timeout")
    assert (await service.game_view(game_id)).seat(to_act).timeouts_in_row == 1


async def test_after_timeouts_computer_keeps_the_seat_for_the_rest_of_the_game(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    await service.ensure_chat(GROUP, "group", "Friends")
    await service.update_chat(GROUP, max_timeouts=2, after_timeouts="computer")
    await service.set_turn_time(GROUP, 60)
    game_id = await started(service, 3)
    for n in range(3):
        await service.play(game_id, user(n).id, "r", (await service.game_view(game_id)).seat(n).keyboard_version)
    idle = (await service.game_view(game_id)).state.to_act  # type: ignore[union-attr]
    assert idle is not None
    sweeper = Sweeper(service)
    bots = {n: make_player("heuristic", n) for n in range(3)}
    for _ in range(3000):
        game = await service.game_view(game_id)
        if game.is_over:
            break
        assert game.state is not None
        seat = game.state.to_act
        assert seat is not None
        if seat == idle and not game.seat(idle).stood_in:
            clock.advance(seconds=61)
            await sweeper.sweep()
            continue
        assert not game.seat(seat).stood_in, "a stood-in seat never waits"
        move = bots[seat].choose(game.state.view(seat))
        await service.play(game_id, user(seat).id, move, game.seat(seat).keyboard_version)
    game = await service.game_view(game_id)
    assert game.is_over
    assert not game.seat(idle).forfeited
    assert game.seat(idle).place is not None
    assert game.seat(idle).stood_in  # for good: no away time needed
    actors = [actor for seat, _, actor in await log_of(sessions, game_id) if seat == idle][1:]  # after ready
    assert actors[0] == "timeout"
    assert set(actors[1:]) == {"standin"}
    told = [a["what"] for a in await outbox(sessions, "announce") if a.get("seat") == idle]
    assert told.count("taken_over") == 1
    assert "removed" not in told
    assert [r for r in await outbox(sessions, "result") if r["seat"] == idle]  # still told how it ended
    record = await service.player_record(user(idle).id)
    assert record is not None
    assert record.stood_in_moves == len(actors) - 1
    assert record.stood_in_games == 1


async def test_chat_settings_refuse_unknown_choices(service: GameService) -> None:
    await service.ensure_chat(GROUP, "group", "Friends")
    for key, value in (("standin_level", "godlike"), ("on_timeout", "skip"), ("after_timeouts", "kick")):
        with pytest.raises(ValueError, match=key):
            await service.update_chat(GROUP, **{key: value})
    chat = await service.update_chat(GROUP, standin_level="easy", on_timeout="standin", after_timeouts="computer")
    assert (chat.standin_level, chat.on_timeout, chat.after_timeouts) == ("easy", "standin", "computer")
