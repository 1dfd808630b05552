"""The ``hard`` level's searched swap: it settles on one arrangement of its own six cards, reaches
it in a few moves whoever asks, and cannot see the cards it was not shown."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import PRESETS, Ready, ShitheadState, Swap, new_game
from engine.ai import SearchPlayer, swap_search
from engine.ai.heuristic import HeuristicPlayer
from engine.cards import RANK_OF
from engine.views import ShitheadView
from tests.conftest import examples

PLAYOUTS = 40


def game(preset: str, seats: int, seed: int) -> ShitheadState:
    state = new_game("shithead", PRESETS[preset], seats, seed)
    assert isinstance(state, ShitheadState)
    return state


def view_of(state: ShitheadState, seat: int) -> ShitheadView:
    view = state.view(seat)
    assert isinstance(view, ShitheadView)
    return view


def face_up_ranks(state: ShitheadState, seat: int) -> tuple[int, ...]:
    return tuple(sorted(RANK_OF[c] for c in state.face_up[seat]))


def redeal_unseen(state: ShitheadState, seat: int, rng: random.Random) -> ShitheadState:
    """The same deal for ``seat``'s six cards, every other card dealt again (the others' face-up
    cards too: the swap search does not read them, since they change while those seats swap)."""
    other = state.copy()
    places: list[tuple[str, int, int]] = []
    cards = []
    for s in range(state.seats):
        for slot, card in enumerate(other.face_down[s]):
            if card is not None:
                places.append(("down", s, slot))
                cards.append(card)
        if s != seat:
            places += [("up", s, slot) for slot in range(len(other.face_up[s]))]
            cards += other.face_up[s]
            cards += other.hand_of(s)
            places += [("hand", s, 0)] * other.hand_count[s]
            other.hands[s] = [[] for _ in other.hands[s]]
            other.masks[s], other.hand_count[s] = 0, 0
    places += [("stock", 0, i) for i in range(len(other.stock))]
    cards += other.stock
    rng.shuffle(cards)
    hands: dict[int, list[int]] = {}
    for (where, s, slot), card in zip(places, cards, strict=True):
        if where == "down":
            other.face_down[s][slot] = card
        elif where == "up":
            other.face_up[s][slot] = card
        elif where == "hand":
            hands.setdefault(s, []).append(card)
        else:
            other.stock[slot] = card
    for s, hand in hands.items():
        other._add_to_hand(s, hand)  # type: ignore[arg-type]
    return other


@settings(deadline=None, max_examples=examples(12))
@given(st.sampled_from(sorted(PRESETS)), st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_the_swap_reaches_its_arrangement_and_readies_whoever_asks(preset: str, seats: int, seed: int) -> None:
    """A new player with a new seed for every move, as the bot asks, while the others swap too."""
    state = game(preset, seats, seed)
    aim = swap_search.target(view_of(state, 0), PLAYOUTS)
    normal = HeuristicPlayer(seed)
    for step in range(4):
        move = SearchPlayer(seed + step, swap_playouts=PLAYOUTS).choose(view_of(state, 0))
        assert move in state.legal_moves(0)
        state.apply(0, move)
        if move == Ready():
            break
        for s in range(1, seats):  # the others' face-up cards change between this seat's moves
            if not state.ready[s]:
                state.apply(s, normal.choose(view_of(state, s)))
    assert state.ready[0]
    assert face_up_ranks(state, 0) == aim


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_swap_does_not_depend_on_the_cards_it_cannot_see(seed: int) -> None:
    state = game("standard", 4, seed)
    shuffled = redeal_unseen(state, 2, random.Random(seed))
    assert shuffled.hand_of(2) == state.hand_of(2)
    assert shuffled.face_up[2] == state.face_up[2]
    assert [shuffled.hand_of(s) for s in (0, 1, 3)] != [state.hand_of(s) for s in (0, 1, 3)]
    swap_search._TARGETS.clear()
    first = swap_search.target(view_of(state, 2), PLAYOUTS)
    swap_search._TARGETS.clear()  # searched again, not remembered
    assert swap_search.target(view_of(shuffled, 2), PLAYOUTS) == first


def test_the_swap_aims_at_the_same_arrangement_however_the_cards_lie_now() -> None:
    state = game("standard", 3, 7)
    swap_search._TARGETS.clear()
    aim = swap_search.target(view_of(state, 1), PLAYOUTS)
    swapped = next(m for m in state.legal_moves(1) if isinstance(m, Swap))
    state.apply(1, swapped)
    swap_search._TARGETS.clear()
    assert swap_search.target(view_of(state, 1), PLAYOUTS) == aim


@settings(deadline=None, max_examples=examples(60))
@given(st.sampled_from(sorted(PRESETS)), st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_the_other_seats_swap_in_the_sampled_deals_as_normal_does(preset: str, seats: int, seed: int) -> None:
    state = game(preset, seats, seed)
    copy = state.copy()
    for seat in range(seats):
        hand = [RANK_OF[c] for c in state.hand_of(seat)]
        for h, f in swap_search.normal_swaps(state.rules, hand, [RANK_OF[c] for c in state.face_up[seat]]):
            state.apply(seat, Swap(h, f))
        player = HeuristicPlayer(seed)
        while (move := player.choose(view_of(copy, seat))) != Ready():
            copy.apply(seat, move)
        assert face_up_ranks(state, seat) == face_up_ranks(copy, seat)


def test_a_seat_that_left_during_the_swap_gets_no_cards_in_the_sampled_deals() -> None:
    state = game("standard", 4, 11)
    state.apply(3, "f")  # forfeits before the play starts
    view = view_of(state, 0)
    assert swap_search.target(view, PLAYOUTS) in {
        tuple(sorted(r)) for r in [[RANK_OF[c] for c in cards] for cards in _threes(state, 0)]
    }
    seen = {*view.hand, *view.seats[0].face_up, *view.out}
    deal = swap_search._deal(view, random.Random(1), [c for c in swap_search.CARDS[:52] if c not in seen])
    assert (deal.hand_count[3], deal.fd_count[3], deal.active[3]) == (0, 0, False)


def _threes(state: ShitheadState, seat: int) -> list[list[int]]:
    six = [*state.hand_of(seat), *state.face_up[seat]]
    return [list(c) for c in combinations(six, 3)]


def test_games_with_two_decks_keep_normals_swap() -> None:
    state = new_game("shithead", PRESETS["standard"].with_rule("decks", 2), 6, 5)
    for seat in range(6):
        view = view_of(state, seat)
        assert SearchPlayer(3).choose(view) == HeuristicPlayer(3).choose(view)
