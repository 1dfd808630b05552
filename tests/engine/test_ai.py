"""Computer players: every level makes legal moves, decides from its view alone, and repeats itself
under a seed."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import PRESETS, NeighborRules, NeighborState, ShitheadState, new_game
from engine.ai import LEVELS, SearchPlayer, make_player, search
from engine.ai.search import score
from engine.ai.worlds import hidden_cards, sample_world
from engine.common import Outcome, Phase
from engine.views import ShitheadView
from tests.conftest import examples
from tests.engine.helpers import position

# Small and deterministic for tests.
FAST = {"playouts": 24, "time_limit": None, "neighbor_samples": 20, "swap_playouts": 24}
positions = settings(deadline=None, max_examples=examples(25), suppress_health_check=[HealthCheck.too_slow])


def player(level: str, seed: int) -> object:
    return SearchPlayer(seed, **FAST) if level == "hard" else make_player(level, seed)  # type: ignore[arg-type]


def advance(state: ShitheadState | NeighborState, rng: random.Random, moves: int) -> None:
    """Random legal moves, so that positions of every kind come up."""
    for _ in range(moves):
        if state.is_over:
            return
        seat = rng.choice(state.seats_to_act())
        state.apply(seat, rng.choice(state.legal_moves(seat)))


def shuffle_hidden(state: ShitheadState, seat: int, rng: random.Random) -> ShitheadState:
    """The same position for ``seat``, with every card it cannot see dealt again."""
    view = state.view(seat)
    assert isinstance(view, ShitheadView)
    other = sample_world(view, rng)
    other.seed, other.moves_applied = state.seed, state.moves_applied
    return other


@positions
@given(
    st.sampled_from(sorted(PRESETS)),
    st.integers(2, 5),
    st.integers(0, 2**32 - 1),
    st.integers(0, 300),
    st.sampled_from(LEVELS),
)
def test_every_level_plays_legal_moves_in_any_position(name: str, seats: int, seed: int, skip: int, level: str) -> None:
    state = new_game("shithead", PRESETS[name], seats, seed)
    rng = random.Random(seed)
    advance(state, rng, skip)
    for _ in range(20):  # then the level plays every seat for a while
        if state.is_over:
            return
        seat = state.seats_to_act()[0]
        move = player(level, seed).choose(state.view(seat))  # type: ignore[attr-defined]
        assert move in state.legal_moves(seat)
        state.apply(seat, move)


@settings(deadline=None, max_examples=examples(20))
@given(st.integers(2, 12), st.integers(0, 2**32 - 1), st.integers(0, 40), st.sampled_from(LEVELS))
def test_every_level_plays_legal_neighbor_moves(seats: int, seed: int, skip: int, level: str) -> None:
    state = new_game("neighbor", NeighborRules(), seats, seed)
    rng = random.Random(seed)
    advance(state, rng, skip)
    for _ in range(60):
        if state.is_over:
            return
        seat = state.seats_to_act()[0]
        move = player(level, seed).choose(state.view(seat))  # type: ignore[attr-defined]
        assert move in state.legal_moves(seat)
        state.apply(seat, move)


@positions
@given(st.sampled_from(sorted(PRESETS)), st.integers(2, 4), st.integers(0, 2**32 - 1), st.integers(4, 200))
def test_the_search_does_not_depend_on_hidden_cards(name: str, seats: int, seed: int, skip: int) -> None:
    state = new_game("shithead", PRESETS[name], seats, seed)
    rng = random.Random(seed)
    advance(state, rng, skip)
    if state.phase is not Phase.PLAY:
        return
    assert isinstance(state, ShitheadState)
    seat = state.seats_to_act()[0]
    shuffled = shuffle_hidden(state, seat, random.Random(seed + 1))
    assert shuffled.view(seat) == state.view(seat)
    for level in LEVELS:
        a = player(level, 7).choose(state.view(seat))  # type: ignore[attr-defined]
        b = player(level, 7).choose(shuffled.view(seat))  # type: ignore[attr-defined]
        assert a == b, level


def test_a_sampled_world_keeps_what_the_view_shows() -> None:
    rng = random.Random(3)
    state = new_game("shithead", PRESETS["standard"], 4, 3)
    assert isinstance(state, ShitheadState)
    advance(state, rng, 120)
    seat = state.seats_to_act()[0]
    view = state.view(seat)
    world = sample_world(view, rng)
    assert world.view(seat) == view
    hidden = set(hidden_cards(view))
    for s in range(4):
        if s != seat:
            assert set(world.hand_of(s)) - set(view.seats[s].known_hand) <= hidden


@settings(deadline=None, max_examples=examples(40))
@given(st.sampled_from(["standard", "classic", "smelly"]), st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_sampled_hands_hold_no_barred_rank(name: str, seats: int, seed: int) -> None:
    """A seat forced to pick up is dealt nothing that would have fitted, in every sampled world."""
    state = new_game("shithead", PRESETS[name], seats, seed)
    assert isinstance(state, ShitheadState)
    rng = random.Random(seed)
    while not state.is_over:
        seat = state.seats_to_act()[0]
        view = state.view(seat)
        if view.phase is Phase.PLAY and any(i.barred_ranks for i in view.seats if i.seat != seat):
            world = sample_world(view, rng)
            assert world.view(seat) == view
            # The first barred hand dealt always fits; a later one may find too few cards that do
            # and fall back to any (engine/ai/worlds.py), so it is not checked here.
            info = next(i for i in view.seats if i.barred_ranks and i.seat != seat)
            unseen = set(world.hand_of(info.seat)) - set(info.known_hand)
            assert not {c.rank for c in unseen} & set(info.barred_ranks)
        state.apply(seat, rng.choice(view.legal_moves))


def test_the_same_seed_makes_the_same_game() -> None:
    def game(seed: int) -> list[str]:
        state = new_game("shithead", PRESETS["standard"], 3, 11)
        players = {s: player("hard" if s == 0 else "normal", seed + s) for s in range(3)}
        log: list[str] = []
        while not state.is_over:
            seat = state.seats_to_act()[0]
            move = players[seat].choose(state.view(seat))  # type: ignore[attr-defined]
            state.apply(seat, move)
            log.append(str(move))
        return log

    assert game(5) == game(5)


def test_the_search_leaves_forced_moves_and_an_unsearched_swap_to_normal() -> None:
    state = new_game("shithead", PRESETS["standard"], 3, 2)
    for seat in range(3):
        view = state.view(seat)
        unsearched = SearchPlayer(1, **{**FAST, "swap_playouts": 0})  # type: ignore[arg-type]
        assert unsearched.choose(view) == make_player("normal", 1).choose(view)
    for seat in range(3):
        state.apply(seat, "r")
    seat = state.seats_to_act()[0]
    forced = state.legal_moves(seat)
    assert player("hard", 1).choose(state.view(seat)) in forced  # type: ignore[attr-defined]


def test_the_search_turns_a_face_down_card_without_searching(monkeypatch: pytest.MonkeyPatch) -> None:
    # Nobody can tell the face-down slots apart: a search among them is noise and time, so the
    # choice goes to normal (a slot at random).
    state = position(PRESETS["standard"], [[], ["9", "9", "9"]], face_down=[["4", "J", "A"], []], pile=["Q"])
    view = state.view(0)
    assert len(view.legal_moves) == 3

    def no_worlds(*args: object) -> None:
        raise AssertionError("a world was sampled to choose a face-down slot")

    monkeypatch.setattr(search, "sample_world", no_worlds)
    assert SearchPlayer(4).choose(view) == make_player("normal", 4).choose(view)


def test_the_search_finds_the_only_winning_play() -> None:
    # Seat 0 holds a 5 and a King; seat 1 is down to one face-up 6 and nothing else. Leading the
    # 5 lets the 6 go out; the King makes seat 1 pick up, and seat 0 goes out on the empty table.
    state = position(PRESETS["standard"], [["5", "K"], []], face_up=[[], ["6"]])
    view = state.view(0)
    assert make_player("hard", 3).choose(view) == make_player("hard", 3).choose(view)
    move = player("hard", 3).choose(view)  # type: ignore[attr-defined]
    assert str(move) == "p:h:K:1"


@settings(deadline=None, max_examples=examples(5))
@given(st.integers(6, 8), st.integers(0, 2**32 - 1), st.integers(0, 400))
def test_the_search_plays_legal_moves_with_two_decks(seats: int, seed: int, skip: int) -> None:
    state = new_game("shithead", PRESETS["standard"].with_rule("decks", 2), seats, seed)
    advance(state, random.Random(seed), skip)
    for _ in range(10):
        if state.is_over:
            return
        seat = state.seats_to_act()[0]
        move = player("hard", seed).choose(state.view(seat))  # type: ignore[attr-defined]
        assert move in state.legal_moves(seat)
        state.apply(seat, move)


def test_first_place_is_worth_a_bonus_above_the_even_steps() -> None:
    state = new_game("shithead", PRESETS["standard"], 4, 1)
    assert isinstance(state, ShitheadState)
    rankings = ((1, 2, 3, 4), (2, 1, 3, 4), (3, 1, 2, 4), (4, 1, 2, 3))
    scores = [score(Outcome(p, (p.index(1),), p.index(4)), state, 0, 1.0) for p in rankings]
    assert scores == pytest.approx([2.0, 2 / 3, 1 / 3, 0.0])
    assert score(Outcome((1, 2, 3, 4), (0,), 3), state, 0) == 1.0  # no bonus unless asked


def test_every_candidate_is_played_out_with_each_worlds_own_random_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Common random numbers: the same move twice gets the same playout in every world."""
    state = new_game("shithead", PRESETS["standard"], 4, 3)
    assert isinstance(state, ShitheadState)
    advance(state, random.Random(3), 40)
    while state.stage is not Phase.PLAY or len(state.legal_moves(state.seats_to_act()[0])) < 2:
        advance(state, random.Random(4), 1)
    seat = state.seats_to_act()[0]
    move = state.legal_moves(seat)[0]
    places: list[tuple[int, ...] | None] = []

    def recorded(outcome: Outcome | None, trial: ShitheadState, seat: int, first_bonus: float = 0.0) -> float:
        assert first_bonus == search.FIRST_BONUS  # it plays for first place
        places.append(None if outcome is None else outcome.places)
        return score(outcome, trial, seat, first_bonus)

    monkeypatch.setattr(search, "score", recorded)
    view = state.view(seat)
    assert isinstance(view, ShitheadView)
    SearchPlayer(5, playouts=40, time_limit=None).best(view, [move, move])
    assert len(places) == 40
    assert places[0::2] == places[1::2]
    assert len(set(places)) > 1  # the worlds differ
