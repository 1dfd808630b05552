"""A game where every move is forced can come back to where it was, and would then never end.

Found by the end-to-end tests: in ``free`` (5 is a wild *lower* card) two 5s went round three
players for ever — the player holding one had nothing else to play, and the next, on face-up cards
above 5, could only pick it up. The engine ends such a game (decided here, see engine.shithead).
"""

from __future__ import annotations

import json
import random

import pytest

from engine import PRESETS, Rules, ShitheadState, preset
from engine.events import GameOver, Looped
from engine.shithead import LOOP_WATCH_AFTER
from tests.engine.helpers import position

FREE = preset("free")
STANDARD = preset("standard")


def two_fives_going_round() -> ShitheadState:
    """Seat 0 must pick up the 5; seat 1 holds the other 5; nobody can ever do anything else."""
    return position(
        FREE,
        hands=[[], ["5"], []],
        face_up=[["K", "A"], ["Q"], ["J"]],
        face_down=[["9", "9", "9"], ["8", "8", "8"], ["7", "7", "7"]],
        pile=["5"],
    )


def play_forced(state: ShitheadState, limit: int) -> list[object]:
    events: list[object] = []
    for _ in range(limit):
        if state.is_over:
            break
        seat = state.to_act
        assert seat is not None
        legal = state.legal_moves(seat)
        assert len(legal) == 1, f"seat {seat} has a choice: {legal}"
        events += state.apply(seat, legal[0])
    return events


def test_a_forced_loop_ends_the_game_once_the_position_comes_back() -> None:
    state = two_fives_going_round()
    events = play_forced(state, 60)
    assert state.is_over
    looped = [e for e in events if isinstance(e, Looped)]
    assert len(looped) == 1
    assert looped[0].moves == 6  # two 5s round three players: six moves, then the same position
    assert isinstance(events[-1], GameOver)
    # Short forced runs are not watched; then six moves to come back, and one more to see it.
    assert state.moves_applied == LOOP_WATCH_AFTER + 7


def test_the_player_holding_most_cards_is_the_loser_of_a_loop() -> None:
    state = two_fives_going_round()
    play_forced(state, 60)
    outcome = state.outcome
    assert outcome is not None
    held = {s: len(state.hand_of(s)) + len(state.face_up[s]) + state.fd_count[s] for s in range(3)}
    assert sorted(outcome.places) == [1, 2, 3]
    assert held == {0: 6, 1: 4, 2: 5}  # seat 0 holds a 5, K A and three face-down cards
    assert outcome.places == (3, 1, 2)
    assert outcome.loser == 0


def test_a_loop_survives_a_snapshot() -> None:
    state = two_fives_going_round()
    play_forced(state, LOOP_WATCH_AFTER + 3)
    data = json.loads(json.dumps(state.to_dict()))
    assert data["loop"]
    assert all(0 <= key < 2**52 for key in data["loop"])
    state = ShitheadState.from_dict(data)
    play_forced(state, 60)
    assert state.is_over
    assert state.moves_applied == LOOP_WATCH_AFTER + 7  # what was seen before the snapshot counts


def test_a_repeated_position_with_a_choice_does_not_end_the_game() -> None:
    # The same two 5s going round, but seat 0 could play its face-up 3 on them: it picks up by
    # choice (free: pick up any time), so the position comes back without anybody being forced.
    state = two_fives_going_round()
    data = state.to_dict()
    king = data["face_up"][0].pop(0)
    three = next(c for c in data["discard"] if c % 13 == 1)
    data["discard"].remove(three)
    data["discard"].append(king)
    data["face_up"][0].append(three)
    state = ShitheadState.from_dict(data)
    for _ in range(60):
        seat = state.to_act
        assert seat is not None
        legal = [str(m) for m in state.legal_moves(seat)]
        state.apply(seat, "t" if "t" in legal else legal[0])
    assert not state.is_over


def test_forced_moves_that_make_progress_never_count_as_a_loop() -> None:
    # Every move is forced, but each one plays a face-down card: the game moves on and ends.
    state = position(
        STANDARD,
        hands=[[], []],
        face_down=[["4"], ["5"]],
        pile=["K"],
    )
    events = play_forced(state, 20)
    assert not any(isinstance(e, Looped) for e in events)


def test_the_loop_is_told_in_words() -> None:
    from shithead_bot.narrate import Narrator

    state = two_fives_going_round()
    events = play_forced(state, 60)
    looped = next(e for e in events if isinstance(e, Looped))
    names = ["Ann", "Bob", "Cleo"]
    assert Narrator(names, FREE).line(looped) == (
        "every move was forced and the game came back to where it was 6 moves ago: it ends here"
    )
    assert Narrator(names, FREE, language="fr").line(looped) == (
        "chaque coup était forcé et la partie est revenue là où elle était il y a 6 coups : elle s'arrête ici"
    )


@pytest.mark.parametrize("rules", [*PRESETS.values(), PRESETS["smelly"].with_rule("may_pickup_anytime", "on")])
def test_forced_means_exactly_one_legal_move(rules: Rules) -> None:
    """The cheap test the engine runs after every move agrees with the list of legal moves."""
    rng = random.Random(7)
    checked = 0
    for seed in range(60):
        state = ShitheadState.new(rules, 2 + seed % 4, seed)
        while not state.is_over:
            seat = rng.choice(state.seats_to_act())
            legal = state.legal_moves(seat)
            if state.to_act is not None:
                assert state._forced(seat) == (len(legal) == 1), (state.to_dict(), legal)
                checked += 1
            state.apply(seat, rng.choice(legal))
    assert checked > 1000
