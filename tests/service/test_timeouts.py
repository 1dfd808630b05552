"""What counts as a timeout, and what is told as one: a missed turn of the play counts toward
``/settings timeouts N`` and is narrated "⏰ Time ran out"; the swap phase's deadline does not count
(a one-off choice the bot makes for the player), and a move the bot makes after it — the forced
first play, say — is not a timeout: that turn's deadline never passed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from persistence.models import Move
from shithead_bot.service import Announcement, AnnouncePayload, Autoplay, GameService
from testkit.clock import FakeClock
from tests.service.helpers import GROUP, lobby_with, time_out, user

TURN = 60  # seconds


async def log_of(sessions: async_sessionmaker[AsyncSession], game_id: int) -> list[Move]:
    async with sessions() as session:
        return list((await session.execute(select(Move).where(Move.game_id == game_id).order_by(Move.seq))).scalars())


async def chat(service: GameService, chat_id: int, **settings: object) -> None:
    await service.ensure_chat(chat_id, "group", "Friends")
    await service.update_chat(chat_id, **settings)
    await service.set_turn_time(chat_id, TURN)


@pytest.mark.parametrize("after", ["remove", "computer"])
async def test_a_swap_phase_timeout_does_not_count_toward_the_missed_turns(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock, after: str
) -> None:
    """Nobody swaps in time: everybody is made ready, and nobody has missed a turn. The idle player
    is removed (or taken over) at the deadline of their second missed turn of the play, and the
    group is told the number of turns that counted."""
    await chat(service, GROUP, max_timeouts=2, after_timeouts=after)
    game_id = await lobby_with(service, humans=3, autoplay=Autoplay.OFF)
    await service.start(game_id, user(0).id)
    await time_out(service, clock, game_id)  # the swap phase's deadline
    game = await service.game_view(game_id)
    assert game.status == "playing"
    counted = [s.timeouts_in_row for s in game.seats]
    assert game.state is not None
    assert game.state.to_act is not None
    idle = game.state.to_act
    missed, told = 0, None
    for _ in range(200):
        game = await service.game_view(game_id)
        assert game.state is not None
        assert game.is_active
        seat = game.state.to_act
        assert seat is not None
        if seat != idle:  # the others play at once
            move = game.state.legal_moves(seat)[0]
            await service.play(game_id, user(seat).id, move, game.seat(seat).keyboard_version)
            continue
        missed += 1
        result = await time_out(service, clock, game_id)
        told = next((n for n in result.notices if n.seat == idle and isinstance(n.payload, AnnouncePayload)), None)
        if told is not None:
            break
    assert told is not None
    assert isinstance(told.payload, AnnouncePayload)
    expected = Announcement.REMOVED if after == "remove" else Announcement.TAKEN_OVER
    assert (told.payload.what, told.payload.timeouts) == (expected, 2)
    assert missed == 2, "removed (or taken over) at the deadline of the second missed turn of the play"
    assert counted == [0, 0, 0], "the swap phase's deadline counted"


async def test_the_stand_in_at_the_swap_deadline_leaves_the_first_play_to_its_player(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    """With ``on_timeout standin``, the stand-in swaps and readies a player who let the swap
    phase's deadline pass — and stops there. If that player starts, the first play is theirs: made
    by the bot when forced (an autoplay, told as such), else their turn, with its full time."""
    starters = 0
    for idle in range(3):
        chat_id = GROUP - idle
        await chat(service, chat_id, on_timeout="standin")
        game_id = await lobby_with(service, humans=3, chat_id=chat_id)
        await service.start(game_id, user(0).id)
        for n in range(3):  # the others are ready in time
            if n != idle:
                game = await service.game_view(game_id)
                await service.play(game_id, user(n).id, "r", game.seat(n).keyboard_version)
        await time_out(service, clock, game_id)
        log = await log_of(sessions, game_id)
        ready = next(i for i, m in enumerate(log) if m.seat == idle and m.move == "r")
        assert log[ready].actor == "timeout"
        after = [(m.seat, m.actor) for m in log[ready + 1 :]]
        assert (idle, "timeout") not in after, f"seat {idle}: the bot's moves after the swap phase: {after}"
        game = await service.game_view(game_id)
        assert game.seat(idle).timeouts_in_row == 0
        assert game.state is not None
        starters += game.state.to_act == idle or after[:1] == [(idle, "autoplay")]
        if game.state.to_act == idle:  # not forced: the turn is theirs, with its full time
            assert game.may_act(idle)
            assert game.game.deadline_at == clock.now + timedelta(seconds=TURN)
    assert starters, "in one of these deals the idle player starts"
