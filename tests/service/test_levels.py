"""Computer levels in the service: each computer keeps the level it was added at (old names too),
a private game takes one, and slow levels think off the event loop — outside the transaction, in
a worker process — making exactly the decisions they would have made inline."""

from __future__ import annotations

import threading
import time
from typing import ClassVar

import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import engine.ai
from engine import EngineError, Move, load_game, new_game, rules_from_dict
from engine.ai import HeuristicPlayer
from engine.views import NeighborView, ShitheadView
from persistence.models import Seat
from shithead_bot.service import GameService, pool, thinking
from shithead_bot.service.autoplay import computer_move, computer_seed, next_computer
from testkit.clock import FakeClock
from tests.service.helpers import lobby_with, play_humans_to_end, user


class SlowPlayer:
    """Plays like ``normal`` but takes its time, and notes the thread each decision was made in."""

    threads: ClassVar[list[str]] = []

    def __init__(self, seed: int) -> None:
        self.inner = HeuristicPlayer(seed)

    def choose(self, view: ShitheadView | NeighborView) -> Move:
        SlowPlayer.threads.append(threading.current_thread().name)
        time.sleep(0.004)  # longer than a quick level's decision
        return self.inner.choose(view)


@pytest.fixture
def slow_hard(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setitem(engine.ai.REGISTRY, "hard", SlowPlayer)
    SlowPlayer.threads = []
    return SlowPlayer.threads


async def test_each_computer_keeps_its_level(service: GameService) -> None:
    game_id = await lobby_with(service, humans=1)
    for level in ("easy", "hard", "heuristic", "random"):
        await service.add_computer(game_id, user(0).id, level)
    with pytest.raises(EngineError, match="unknown computer level"):
        await service.add_computer(game_id, user(0).id, "grandmaster")
    seats = (await service.game_view(game_id)).seats
    assert [s.computer_level for s in seats] == [None, "easy", "hard", "normal", "easy"]


async def test_a_private_game_at_a_level(service: GameService) -> None:
    result = await service.open_private_game(user(0), computers=3, level="hard", chat_title="Me")
    seats = (await service.game_view(result.game_id)).seats
    assert [s.computer_level for s in seats] == [None, "hard", "hard", "hard"]


async def test_rows_with_the_old_names_play_on(
    service: GameService, sessions: async_sessionmaker[AsyncSession]
) -> None:
    game_id = await lobby_with(service, humans=1, computers=2, level="normal")
    async with sessions() as session, session.begin():  # as an older version stored them
        await session.execute(
            update(Seat).where(Seat.game_id == game_id, Seat.number == 1).values(computer_level="random")
        )
        await session.execute(
            update(Seat).where(Seat.game_id == game_id, Seat.number == 2).values(computer_level="heuristic")
        )
    await service.start(game_id, user(0).id)
    await play_humans_to_end(service, game_id)
    assert (await service.game_view(game_id)).game.status == "finished"


async def test_slow_computers_think_in_a_worker_process(service: GameService, slow_hard: list[str]) -> None:
    before = pool.decided
    result = await service.open_private_game(user(0), computers=3, level="hard", chat_title="Me")
    await play_humans_to_end(service, result.game_id)
    assert pool.decided > before, "the hard computers made no decision in the worker"
    assert slow_hard == [], "a hard decision was made in this process"  # the worker notes its own
    await _replays_as_inline(service, result.game_id)


async def test_quick_levels_are_decided_inline(service: GameService) -> None:
    result = await service.open_private_game(user(0), computers=3, level="normal", chat_title="Me")
    await play_humans_to_end(service, result.game_id)
    assert service.core.thinker.inline > service.core.thinker.thought  # learnt once that "normal" is quick
    await _replays_as_inline(service, result.game_id)


class ColdStartPlayer(HeuristicPlayer):
    """Plays like ``normal``; its very first decision is slow (a cold start, a busy machine)."""

    started: ClassVar[bool] = False

    def choose(self, view: ShitheadView | NeighborView) -> Move:
        if not ColdStartPlayer.started:
            ColdStartPlayer.started = True
            time.sleep(0.01)  # slower than a quick decision, within the inline budget
        return super().choose(view)


async def test_one_slow_decision_does_not_send_a_quick_level_to_the_thread(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(engine.ai.REGISTRY, "normal", ColdStartPlayer)
    monkeypatch.setattr(thinking, "INLINE_BUDGET_SECONDS", float("inf"))  # only the level's speed may defer
    ColdStartPlayer.started = False
    result = await service.open_private_game(user(0), computers=3, level="normal", chat_title="Me")
    await play_humans_to_end(service, result.game_id)
    assert ColdStartPlayer.started
    assert service.core.thinker.thought == 0  # every "normal" decision was made inline


async def _replays_as_inline(service: GameService, game_id: int) -> None:
    """Every computer move in the log is what the level decides inline for that state and seed."""
    record = await service.record(game_id)
    view = await service.game_view(game_id)
    levels = {s.number: s.computer_level for s in view.seats if s.computer_level}
    rules = rules_from_dict(record.kind, record.rules)
    state = new_game(record.kind, rules, len(record.names), record.seed, record.dealer)
    for count, line in enumerate(record.moves):
        if line.actor == "computer":
            found = next_computer(state, levels)
            assert found is not None
            assert found[0] == line.seat
            expected = computer_move(load_game(state.to_dict()), line.seat, found[1], computer_seed(record.seed, count))
            assert str(expected) == line.move, (count, line)
        state.apply(line.seat, line.move)
    assert state.is_over


async def test_a_press_is_taken_before_the_computers_think_and_they_play_on_after(
    service: GameService, slow_hard: list[str], clock: FakeClock
) -> None:
    """Answer first, then think: the press's transaction holds the human's move only; the computers'
    chain is a use case of its own (``play_on``), which the timer sweep also runs if nobody does."""
    game_id = (await service.open_private_game(user(0), computers=3, level="hard", chat_title="Me")).game_id
    for _ in range(2000):  # to a turn whose move hands the chain back to three thinking computers
        game = await service.game_view(game_id)
        assert game.state is not None
        if game.is_over:
            raise AssertionError("no press handed the chain back")
        mover = HeuristicPlayer(1).choose(game.state.view(0))
        result = await service.play(game_id, user(0).id, mover, game.seat(0).keyboard_version)
        if result.thinking:
            break
    after = await service.game_view(game_id)
    assert after.state is not None
    assert after.state.to_act != 0  # a computer is to act: nothing of theirs was decided in the press
    assert after.game.due_at == clock.now  # due at once: the sweep carries on if nobody else does
    assert {str(n.kind) for n in result.notices} >= {"moved", "table"}
    carried = await service.play_on(game_id)
    assert carried is not None
    done = await service.game_view(game_id)
    assert done.is_over or (done.state is not None and done.may_act(0))
    assert await service.play_on(game_id) is None  # nothing waits any more


async def test_the_timer_sweep_carries_a_handed_back_chain_on(
    service: GameService, slow_hard: list[str], clock: FakeClock
) -> None:
    from shithead_bot.timers.sweeper import Sweeper

    game_id = (await service.open_private_game(user(0), computers=3, level="hard", chat_title="Me")).game_id
    for _ in range(2000):
        game = await service.game_view(game_id)
        assert game.state is not None
        assert not game.is_over, "no press handed the chain back"
        mover = HeuristicPlayer(1).choose(game.state.view(0))
        if (await service.play(game_id, user(0).id, mover, game.seat(0).keyboard_version)).thinking:
            break
    assert (await Sweeper(service).sweep()).fired == 1  # the bot died before play_on: the sweep plays on
    done = await service.game_view(game_id)
    assert done.is_over or (done.state is not None and done.may_act(0))
