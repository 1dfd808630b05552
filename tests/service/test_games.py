"""Whole games through the service, and what each use case stores and says."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from engine import load_game
from persistence.models import Game, Move, Outbox, Seat
from shithead_bot.service import (
    Announcement,
    Autoplay,
    GameService,
    MoveRejectedError,
    NotAllowedError,
    NoticeKind,
    StaleVersionError,
    TooFewPlayersError,
    WrongStateError,
    thinking,
)
from testkit.clock import FakeClock
from tests.service.helpers import GROUP, kinds, lobby_with, make_service, play_humans_to_end, time_out, user


@pytest.mark.parametrize("preset", ["smelly", "classic", "free", "standard"])
async def test_full_game_with_computers_for_every_preset(service: GameService, preset: str) -> None:
    game_id = await lobby_with(service, humans=2, computers=2, preset=preset)
    started = await service.start(game_id, user(0).id)
    assert started.status == "swapping"
    assert {n.seat for n in started.notices if n.kind == NoticeKind.SWAP} == {0, 1}
    await play_humans_to_end(service, game_id)
    ctx = await service.game_view(game_id)
    assert ctx.game.status == "finished"
    assert ctx.game.finished_at is not None
    assert sorted(s.place or 0 for s in ctx.seats) == [1, 2, 3, 4]
    assert sum(s.is_loser for s in ctx.seats) == 1
    assert await service.rebuild(game_id) == load_game(ctx.game.snapshot or {})


async def test_neighbor_to_the_end(service: GameService) -> None:
    game_id = await lobby_with(service, humans=2, computers=3, kind="neighbor")
    started = await service.start(game_id, user(0).id)
    assert started.status == "playing"
    await play_humans_to_end(service, game_id)
    ctx = await service.game_view(game_id)
    assert ctx.game.status == "finished"
    assert any(s.place == 1 for s in ctx.seats)
    assert await service.rebuild(game_id) == load_game(ctx.game.snapshot or {})


async def test_a_move_is_one_transaction_with_log_and_outbox(
    sessions: async_sessionmaker[AsyncSession], service: GameService, game_id: int
) -> None:
    ctx = await service.game_view(game_id)
    version = ctx.game.version
    result = await service.play(game_id, user(0).id, "r", ctx.seat(0).keyboard_version)
    assert result.version == version + 1
    assert kinds(result) == ["moved", "table"]
    async with sessions() as session:
        moves = (await session.execute(select(Move).where(Move.game_id == game_id))).scalars().all()
        assert [(m.seat, m.move, m.actor) for m in moves] == [(0, "r", "human")]
        assert moves[0].events == [{"type": "Readied", "seat": 0}]
        outbox = (await session.execute(select(func.count()).select_from(Outbox))).scalar_one()
        assert outbox >= len(result.notices)


@pytest.mark.parametrize("busy", [False, True], ids=["quiet", "busy"])
async def test_computers_answer_in_the_same_call(
    sessions: async_sessionmaker[AsyncSession], service: GameService, monkeypatch: pytest.MonkeyPatch, busy: bool
) -> None:
    """Quick computers answer within the press's own call while its inline budget lasts; once it is
    spent (a loaded machine: under CI's load this test once met a computer still to act), the press
    says so (``thinking``) and ``play_on`` — the bot calls it right after answering — moves them."""
    monkeypatch.setattr(thinking, "INLINE_BUDGET_SECONDS", -1.0 if busy else 60.0)
    game_id = await lobby_with(service, humans=1, computers=3)
    started = await service.start(game_id, user(0).id)
    ctx = await service.game_view(game_id)
    assert ctx.state is not None
    assert ctx.state.seats_to_act() == [0]  # computers swapped and readied already
    done = await service.play(game_id, user(0).id, "r", ctx.seat(0).keyboard_version)
    assert done.thinking == busy
    if done.thinking:
        await service.play_on(game_id)
    ctx = await service.game_view(game_id)
    assert ctx.state is not None
    assert ctx.state.to_act == 0 or ctx.state.is_over
    async with sessions() as session:
        actors = (await session.execute(select(Move.actor).where(Move.game_id == game_id))).scalars().all()
    assert "computer" in actors
    assert started.notices


async def test_engine_refusal_changes_nothing(service: GameService, game_id: int) -> None:
    before = await service.game_view(game_id)
    with pytest.raises(MoveRejectedError) as refused:
        await service.play(game_id, user(0).id, "p:h:Q:3", before.seat(0).keyboard_version)
    assert refused.value.cause in {"IllegalMoveError", "CardNotOwnedError"}
    with pytest.raises(MoveRejectedError, match="not a move"):
        await service.play(game_id, user(0).id, "zzz", before.seat(0).keyboard_version)
    after = await service.game_view(game_id)
    assert after.game.version == before.game.version
    assert after.game.snapshot == before.game.snapshot


async def test_stale_button_is_refused(service: GameService, game_id: int) -> None:
    ctx = await service.game_view(game_id)
    old = ctx.seat(0).keyboard_version
    swaps = [m for m in ctx.state.legal_moves(0) if str(m).startswith("x")] if ctx.state else []
    await service.play(game_id, user(0).id, swaps[0], old)
    with pytest.raises(StaleVersionError):
        await service.play(game_id, user(0).id, "r", old)


async def test_swapping_players_do_not_outdate_each_other(service: GameService) -> None:
    game_id = await lobby_with(service, humans=3)
    await service.start(game_id, user(0).id)
    ctx = await service.game_view(game_id)
    versions = {n: ctx.seat(n).keyboard_version for n in range(3)}
    await service.play(game_id, user(0).id, "r", versions[0])
    await service.play(game_id, user(1).id, "r", versions[1])  # seat 0's move did not outdate seat 1
    result = await service.play(game_id, user(2).id, "r", versions[2])
    assert result.status == "playing"
    assert any(n.kind == NoticeKind.TURN for n in result.notices)


async def test_forfeit_pause_resume_abort(sessions: async_sessionmaker[AsyncSession], clock: FakeClock) -> None:
    service = make_service(sessions, clock, default_turn_seconds=3600)
    game_id = await lobby_with(service, humans=3)
    await service.start(game_id, user(0).id)
    with pytest.raises(NotAllowedError):
        await service.pause(game_id, user(1).id)
    paused = await service.pause(game_id, user(1).id, is_admin=True)
    assert paused.status == "paused"
    with pytest.raises(WrongStateError):
        await service.play(game_id, user(0).id, "r", None)
    clock.advance(hours=5)
    resumed = await service.resume(game_id, user(2).id)
    assert resumed.status == "swapping"
    ctx = await service.game_view(game_id)
    assert ctx.game.deadline_at == clock.now.replace() + (ctx.game.deadline_at - clock.now)
    forfeited = await service.forfeit(game_id, user(2).id)
    assert "announce" in kinds(forfeited)
    ctx = await service.game_view(game_id)
    assert ctx.seat(2).forfeited
    assert ctx.seat(2).place is None  # places are written at the end
    aborted = await service.abort(game_id, user(0).id)
    assert aborted.status == "aborted"
    with pytest.raises(WrongStateError):
        await service.forfeit(game_id, user(1).id)


async def test_last_forfeit_ends_the_game(service: GameService, game_id: int) -> None:
    result = await service.forfeit(game_id, user(1).id)
    assert result.status == "finished"
    ctx = await service.game_view(game_id)
    assert [s.place for s in ctx.seats] == [1, 2]
    assert not any(s.is_loser for s in ctx.seats)


async def test_rematch_same_players_loser_deals(service: GameService) -> None:
    game_id = await lobby_with(service, humans=1, computers=2)
    await service.start(game_id, user(0).id)
    await play_humans_to_end(service, game_id)
    finished = await service.game_view(game_id)
    loser = next(s.number for s in finished.seats if s.is_loser)
    again = await service.rematch(game_id, user(0).id)
    assert again.game_id != game_id
    ctx = await service.game_view(again.game_id)
    assert ctx.game.dealer == loser
    assert ctx.game.rematch_of == game_id
    assert [(s.player_id, s.computer_level) for s in ctx.seats] == [
        (s.player_id, s.computer_level) for s in finished.seats
    ]


async def test_timeout_acts_for_the_player_and_loses_to_a_real_move(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    game_id = await lobby_with(service, humans=2, autoplay=Autoplay.OFF)  # the timeout's move, not autoplay's
    await service.start(game_id, user(0).id)
    ctx = await service.game_view(game_id)
    await service.play(game_id, user(0).id, "r", ctx.seat(0).keyboard_version)
    seen = await service.game_view(game_id)
    await service.play(game_id, user(1).id, "r", seen.seat(1).keyboard_version)
    with pytest.raises(StaleVersionError):
        await time_out(service, clock, game_id, seen.game.version)  # a real move came first
    result = await time_out(service, clock, game_id)
    assert {"moved", "table"} <= {str(n.kind) for n in result.notices}
    async with sessions() as session:
        actors = (await session.execute(select(Move.actor).where(Move.game_id == game_id))).scalars().all()
    assert actors[-1] == "timeout"


async def test_removal_after_timeouts_in_a_row(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    game_id = await lobby_with(service, humans=3)
    await service.update_chat(GROUP, max_timeouts=2)
    await service.start(game_id, user(0).id)
    for n in range(3):
        ctx = await service.game_view(game_id)
        await service.play(game_id, user(n).id, "r", ctx.seat(n).keyboard_version)
    removed = None
    for _ in range(20):
        ctx = await service.game_view(game_id)
        if ctx.game.status != "playing":
            break
        result = await time_out(service, clock, game_id)
        removed = next((n for n in result.notices if n.announcement is Announcement.REMOVED), removed)
        if removed:
            break
    assert removed is not None
    ctx = await service.game_view(game_id)
    assert ctx.seat(removed.seat or 0).forfeited
    async with sessions() as session:
        seats = (await session.execute(select(Seat).where(Seat.game_id == game_id))).scalars().all()
        assert any(s.timeouts_in_row == 2 for s in seats)
        game = await session.get(Game, game_id)
        assert game is not None


async def test_a_forfeit_does_not_end_a_pause(service: GameService) -> None:
    game_id = await lobby_with(service, humans=3)
    await service.start(game_id, user(0).id)
    await service.pause(game_id, user(0).id)
    result = await service.forfeit(game_id, user(2).id)
    assert result.status == "paused"
    ctx = await service.game_view(game_id)
    assert ctx.game.deadline_at is None
    with pytest.raises(NotAllowedError):
        await service.resume(game_id, user(2).id)  # who left may not resume
    assert (await service.resume(game_id, user(1).id)).status == "swapping"


async def test_rematch_leaves_out_who_left(service: GameService) -> None:
    game_id = await lobby_with(service, humans=3)
    await service.start(game_id, user(0).id)
    await service.forfeit(game_id, user(2).id)
    await service.forfeit(game_id, user(1).id)
    ctx = await service.game_view(game_id)
    assert ctx.game.status == "finished"
    with pytest.raises(TooFewPlayersError):
        await service.rematch(game_id, user(0).id)


async def test_a_new_chat_gets_the_configured_turn_time(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    service = make_service(sessions, clock, default_turn_seconds=3600)
    game_id = await lobby_with(service, humans=2)
    ctx = await service.game_view(game_id)
    assert ctx.chat.turn_seconds == 3600
    assert ctx.game.turn_seconds == 3600
    await service.set_turn_time(GROUP, 86400)
    again = await service.ensure_chat(GROUP, "group", "Friends")
    assert again.turn_seconds == 86400  # an admin's choice stays
