"""Random legal play to the end, over games × presets × seats × seeds, checking invariants at every step."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import PRESETS, NeighborRules, NeighborState, ShitheadState, load_game, new_game, replay
from engine.views import NeighborView, ShitheadView
from tests.conftest import examples

# A safety net only: the engine has no turn cap. Over 5,600 random games measured (bench/engine.py
# --lengths) the longest took 82,588 moves (classic, two decks, ten players); typical games take
# 500-1,500. A property test that reaches this bound fails.
MOVE_BOUND = 1_000_000

one_deck = st.tuples(st.sampled_from(sorted(PRESETS)), st.integers(2, 5), st.integers(0, 2**32 - 1))
two_decks = st.tuples(st.sampled_from(sorted(PRESETS)), st.integers(6, 10), st.integers(0, 2**32 - 1))
slow = settings(deadline=None, max_examples=examples(40), suppress_health_check=[HealthCheck.too_slow])


def card_places(state: ShitheadState) -> Counter[int]:
    """How many times each card id appears across every place a card can be."""
    found: Counter[int] = Counter()
    for seat in range(state.seats):
        found.update(state.hand_of(seat))
        found.update(state.face_up[seat])
        found.update(c for c in state.face_down[seat] if c is not None)
    for pile in (state.stock, state.pile, state.discard):
        found.update(pile)
    return found


def hidden_from(state: ShitheadState, seat: int | None) -> set[int]:
    """Cards ``seat`` may not know: other seats' hands (but for the cards everybody saw them pick up,
    checked in tests/engine/test_memory.py) and every face-down card."""
    hidden = {c for s in range(state.seats) for c in state.face_down[s] if c is not None}
    for s in range(state.seats):
        if s != seat:
            hidden.update(set(state.hand_of(s)) - set(state.known_hand(s)))
    return hidden


def random_moves(state: ShitheadState | NeighborState, rng: random.Random) -> list[tuple[int, str]]:
    """Play uniformly random legal moves to the end; return the (seat, move text) log."""
    log: list[tuple[int, str]] = []
    while not state.is_over:
        seat = rng.choice(state.seats_to_act())
        move = rng.choice(state.legal_moves(seat))
        state.apply(seat, move)
        log.append((seat, str(move)))
        assert len(log) < MOVE_BOUND
    return log


def check_step(state: ShitheadState, all_cards: Counter[int]) -> None:
    assert card_places(state) == all_cards
    data = state.to_dict()
    assert load_game(json.loads(json.dumps(data))) == state
    for seat in [None, *range(state.seats)]:
        view = state.view(seat)
        assert isinstance(view, ShitheadView)
        assert not set(view.cards()) & hidden_from(state, seat)
        if seat is None:
            assert view.hand == ()


def check_outcome(state: ShitheadState | NeighborState) -> None:
    outcome = state.outcome
    assert outcome is not None
    assert sorted(outcome.ranking) == list(range(state.seats))
    assert all(1 <= p <= state.seats for p in outcome.places)
    if isinstance(state, ShitheadState):
        assert sorted(outcome.places) == list(range(1, state.seats + 1))
        assert outcome.loser is not None
        assert outcome.places[outcome.loser] == state.seats


@slow
@given(one_deck)
def test_every_step_keeps_cards_views_and_json(case: tuple[str, int, int]) -> None:
    name, seats, seed = case
    state = ShitheadState.new(PRESETS[name], seats, seed)
    rng = random.Random(seed)
    all_cards = Counter(range(52))
    check_step(state, all_cards)
    moves = 0
    while not state.is_over:
        seat = rng.choice(state.seats_to_act())
        state.apply(seat, rng.choice(state.legal_moves(seat)))
        check_step(state, all_cards)
        moves += 1
        assert moves < MOVE_BOUND
    check_outcome(state)


@settings(deadline=None, max_examples=examples(100))
@given(one_deck)
def test_game_ends_with_one_loser_and_replays_exactly(case: tuple[str, int, int]) -> None:
    name, seats, seed = case
    state = new_game("shithead", PRESETS[name], seats, seed)
    log = random_moves(state, random.Random(seed))
    check_outcome(state)
    assert replay("shithead", PRESETS[name], seats, seed, log) == state


@settings(deadline=None, max_examples=examples(25))
@given(two_decks)
def test_two_decks_up_to_ten_players(case: tuple[str, int, int]) -> None:
    name, seats, seed = case
    rules = PRESETS[name].with_rule("decks", 2)
    state = new_game("shithead", rules, seats, seed)
    assert isinstance(state, ShitheadState)
    all_cards = Counter(range(104))
    rng = random.Random(seed)
    log: list[tuple[int, str]] = []
    while not state.is_over:
        seat = rng.choice(state.seats_to_act())
        move = rng.choice(state.legal_moves(seat))
        state.apply(seat, move)
        log.append((seat, str(move)))
        assert len(log) < MOVE_BOUND
        if len(log) % 50 == 0:
            check_step(state, all_cards)
    check_step(state, all_cards)
    check_outcome(state)
    assert replay("shithead", rules, seats, seed, log) == state


@slow  # 40 whole games of up to 20 seats, every step's views and JSON checked: hundreds of checked states each
@given(st.integers(2, 20), st.sampled_from([3, 4]), st.integers(0, 2**32 - 1))
def test_neighbor_random_play(seats: int, lives: int, seed: int) -> None:
    rules = NeighborRules(lives=lives)
    state = new_game("neighbor", rules, seats, seed)
    assert isinstance(state, NeighborState)
    rng = random.Random(seed)
    log: list[tuple[int, str]] = []
    while not state.is_over:
        for seat in [None, *range(seats)]:
            view = state.view(seat)
            assert isinstance(view, NeighborView)
            assert set(view.cards()) <= known_to(state, seat)
        seat = rng.choice(state.seats_to_act())
        move = rng.choice(state.legal_moves(seat))
        state.apply(seat, move)
        log.append((seat, str(move)))
        assert load_game(json.loads(json.dumps(state.to_dict()))) == state
        assert len(log) < MOVE_BOUND
    check_outcome(state)
    assert replay("neighbor", rules, seats, seed, log) == state


def known_to(state: NeighborState, seat: int | None) -> set[int]:
    """Cards a Neighbor seat may know: its own, its swaps', blocked Kings and the last reveal."""
    known = {c for c in state.last_reveal if c is not None} | {c for _, c in state.blocked}
    if seat is not None:
        own = state.cards[seat]
        known |= {own} if own is not None else set()
        for memory in state.memories[seat]:
            known |= {memory.gave, memory.got}
    return known


def test_copy_is_independent() -> None:
    state = new_game("shithead", PRESETS["smelly"], 4, 11)
    twin = state.copy()
    rng = random.Random(3)
    random_moves(twin, rng)
    assert state == new_game("shithead", PRESETS["smelly"], 4, 11)
    assert twin != state
