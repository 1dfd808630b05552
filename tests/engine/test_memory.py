"""The public memory in Shithead views: the cards everybody saw a seat take into its hand, and the
burned cards, checked against a model rebuilt from the public events alone."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import PRESETS, SchemaError, ShitheadState, new_game
from engine.cards import Card
from engine.events import BlindFailed, Burned, Event, Forfeited, PickedUp, Played, Swapped
from engine.moves import PickUp, Source
from tests.conftest import examples
from tests.engine.helpers import position


class PublicModel:
    """What a spectator with a perfect memory knows, from the events only."""

    def __init__(self, seats: int) -> None:
        self.pile: list[Card] = []
        self.known: list[list[Card]] = [[] for _ in range(seats)]
        self.out: list[Card] = []

    def see(self, events: list[Event]) -> None:
        for e in events:
            if isinstance(e, Played):
                self.pile += e.cards
                if e.source == "h":
                    for c in e.cards:
                        if c in self.known[e.seat]:
                            self.known[e.seat].remove(c)
            elif isinstance(e, BlindFailed):
                self.pile.append(e.card)
            elif isinstance(e, Burned):
                self.out += self.pile
                self.pile = []
            elif isinstance(e, PickedUp):
                taken = self.pile + ([e.face_up] if e.face_up is not None else [])
                self.known[e.seat] += taken
                self.pile = []
            elif isinstance(e, Swapped):
                if e.to_face_up in self.known[e.seat]:
                    self.known[e.seat].remove(e.to_face_up)
                self.known[e.seat].append(e.to_hand)
            elif isinstance(e, Forfeited):
                self.known[e.seat] = []


@settings(deadline=None, max_examples=examples(60))
@given(st.sampled_from(sorted(PRESETS)), st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_views_remember_what_everybody_saw(name: str, seats: int, seed: int) -> None:
    state = new_game("shithead", PRESETS[name], seats, seed)
    assert isinstance(state, ShitheadState)
    rng = random.Random(seed)
    model = PublicModel(seats)
    while not state.is_over:
        seat = rng.choice(state.seats_to_act())
        if rng.random() < 0.002 and state.phase.value == "play":
            seat = state.turn
            face_up = state.face_up[seat][:]  # public: they join the burned cards
            model.see(state.apply(seat, "f"))
            model.out += face_up
        else:
            model.see(state.apply(seat, rng.choice(state.legal_moves(seat))))
        view = state.view(rng.randrange(seats))
        for s, info in enumerate(view.seats):
            assert sorted(info.known_hand) == sorted(model.known[s])
            assert set(info.known_hand) <= set(state.hand_of(s))
        assert list(view.out) == model.out


def test_old_snapshots_without_memory_still_load() -> None:
    state = new_game("shithead", PRESETS["standard"], 3, 5)
    data = state.to_dict()
    del data["known"], data["unseen_out"]
    loaded = ShitheadState.from_dict(data)
    assert loaded.known == [0, 0, 0]
    assert loaded.view(0).out == ()


@settings(deadline=None, max_examples=examples(60))
@given(st.sampled_from(sorted(PRESETS)), st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_a_forced_pickup_bars_the_ranks_that_fitted(name: str, seats: int, seed: int) -> None:
    """Nothing unseen in a hand is of a barred rank; a forced pickup from hand bars what fitted."""
    state = new_game("shithead", PRESETS[name], seats, seed)
    assert isinstance(state, ShitheadState)
    rng = random.Random(seed)
    while not state.is_over:
        seat = rng.choice(state.seats_to_act())
        moves = state.legal_moves(seat)
        plays = [m for m in moves if not isinstance(m, PickUp)] if rng.random() < 0.9 else moves
        move = rng.choice(plays or moves)
        forced = isinstance(move, PickUp) and state.source(seat) is Source.HAND and len(moves) == 1
        unseen_before = len(state.hand_of(seat)) - len(state.known_hand(seat))
        fits = [r for r in range(2, 15) if state._c.legal[state.top][r]]
        state.apply(seat, move)
        if forced and unseen_before and not PRESETS[name].may_pickup_anytime:
            assert set(fits) <= set(state.view(seat).seats[seat].barred_ranks)
            loaded = ShitheadState.from_dict(json.loads(json.dumps(state.to_dict())))
            assert loaded.view(seat) == state.view(seat)
        for info in state.view(None).seats:
            unseen = set(state.hand_of(info.seat)) - set(info.known_hand)
            assert not {c.rank for c in unseen} & set(info.barred_ranks), info
            if PRESETS[name].may_pickup_anytime or not unseen:
                assert info.barred_ranks == ()


def test_a_forced_pickup_bars_what_fitted_until_the_seat_draws() -> None:
    rules = PRESETS["standard"]
    state = position(rules, hands=[["6", "7", "8", "9"], ["4", "5"]], pile=["K"], stock=["J"], to_act=1)
    fitted = tuple(r for r in range(2, 15) if state._c.legal[13][r])
    assert fitted == (2, 10, 13, 14)
    state.apply(1, "t")  # nothing fits the King: so no 2, no 10, no Ace in seat 1's hand either
    assert state.view(0).seats[1].barred_ranks == fitted
    state.apply(0, "p:h:6:1")
    assert state.view(0).seats[1].barred_ranks == fitted  # it still holds 4 5 unseen, and the King
    state.apply(1, "p:h:K:1")  # down to two cards: it draws the Jack, unseen
    assert state.view(0).seats[1].barred_ranks == ()


def test_a_voluntary_pickup_bars_nothing() -> None:
    state = position(PRESETS["free"], hands=[["6", "7", "8", "9"], ["4", "A"]], pile=["K"], to_act=1)
    state.apply(1, "t")
    assert state.view(0).seats[1].barred_ranks == ()


def test_old_snapshots_without_bars_still_load() -> None:
    state = new_game("shithead", PRESETS["standard"], 3, 5)
    data = state.to_dict()
    del data["barred"]
    assert ShitheadState.from_dict(data).barred == [0, 0, 0]
    data["barred"] = [[1], [], []]
    with pytest.raises(SchemaError):
        ShitheadState.from_dict(data)
