"""The public memory in Shithead views: the cards everybody saw a seat take into its hand, and the
burned cards, checked against a model rebuilt from the public events alone."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import PRESETS, ShitheadState, new_game
from engine.cards import Card
from engine.events import BlindFailed, Burned, Event, Forfeited, PickedUp, Played, Swapped


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


@settings(deadline=None, max_examples=60)
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
