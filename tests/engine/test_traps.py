"""Traps: the places where a Shithead engine usually goes wrong."""

from __future__ import annotations

import random

import pytest

from engine import (
    PRESETS,
    CardNotOwnedError,
    InvalidMoveError,
    NotYourTurnError,
    PlayFaceDown,
    Rules,
    ShitheadState,
    new_game,
    parse_move,
    preset,
)
from engine.events import Burned, GameOver, PlayStarted, WentOut
from tests.engine.helpers import all_cards, kinds, moves, pile, playable, position

SMELLY = preset("smelly")
STANDARD = preset("standard")


# ----------------------------------------------------------------- going out on a burn


def test_last_card_a_ten_from_hand_still_burns_and_the_turn_passes() -> None:
    state = position(STANDARD, hands=[["10"], ["5"], ["6"]], pile=["9", "A"])
    events = state.apply(0, "p:h:10:1")
    assert kinds(events) == ["Played", "Burned", "WentOut"]
    assert events[1] == Burned(seat=0, pile_size=3, four=False)
    assert events[2] == WentOut(seat=0, place=1)
    assert pile(state) == []
    assert state.to_act == 1


def test_last_card_a_ten_from_face_down_still_burns_and_the_turn_passes() -> None:
    state = position(STANDARD, hands=[[], ["5"], ["6"]], face_down=[["10"], [], []], pile=["A"])
    events = state.apply(0, "p:d:1")
    assert kinds(events) == ["Played", "Burned", "WentOut"]
    assert state.to_act == 1
    assert playable(state) == {"5"}


def test_last_cards_completing_four_still_burn_and_the_turn_passes() -> None:
    state = position(STANDARD, hands=[[], ["5"], ["6"]], face_up=[["7", "7"], [], []], pile=["7", "7"])
    events = state.apply(0, "p:u:7:2")
    assert kinds(events) == ["Played", "Burned", "WentOut"]
    assert events[1] == Burned(seat=0, pile_size=4, four=True)
    assert state.to_act == 1


def test_last_card_a_ten_with_one_opponent_left_ends_the_game() -> None:
    state = position(STANDARD, hands=[["10"], ["5"]], pile=["A"])
    events = state.apply(0, "p:h:10:1")
    assert kinds(events) == ["Played", "Burned", "WentOut", "GameOver"]
    assert events[-1] == GameOver(places=(1, 2), winners=(0,), loser=1)


# ----------------------------------------------------------------- see-through on see-through


def test_see_through_on_see_through_looks_down_to_the_visible_card() -> None:
    state = position(SMELLY, hands=[["3", "4"], ["J", "K"]], pile=["Q", "3"])
    state.apply(0, "p:h:3:1")
    assert state.view(1).effective_top == 12
    assert playable(state) == {"K"}


def test_see_through_on_an_empty_pile_leaves_no_effective_top() -> None:
    state = position(SMELLY, hands=[["3", "9"], ["4", "K"]])
    state.apply(0, "p:h:3:1")
    assert pile(state) == ["3"]
    assert state.view(1).effective_top is None
    assert playable(state) == {"4", "K"}


def test_see_through_on_a_pile_of_only_see_through_cards() -> None:
    rules = SMELLY.with_rules({"four_burns": "off", "decks": 2})
    state = position(rules, hands=[["3", "9"], ["4", "K"]], pile=["3"] * 6)
    assert state.view(0).effective_top is None
    state.apply(0, "p:h:3:1")
    assert state.view(1).effective_top is None
    assert playable(state) == {"4", "K"}


def test_two_see_through_ranks_stacked_look_down_past_both() -> None:
    rules = SMELLY.with_rule("8", "invisible")
    state = position(rules, hands=[["8", "4"], ["J", "K"]], pile=["Q", "3", "8", "3"])
    state.apply(0, "p:h:8:1")
    assert state.view(1).effective_top == 12
    assert playable(state) == {"K"}


def test_see_through_cards_four_of_them_burn() -> None:
    state = position(SMELLY, hands=[["3", "4"], ["J"]], pile=["3", "3", "3"])
    events = state.apply(0, "p:h:3:1")
    assert events[-1] == Burned(seat=0, pile_size=4, four=True)


# ----------------------------------------------------------------- one face-down card per move


def test_no_move_plays_two_face_down_cards() -> None:
    for text in ("p:d:1:2", "p:d:12", "p:d:1,2", "p:d:1:1", "p:d:0", "p:d:4"):
        with pytest.raises(InvalidMoveError):
            parse_move(text)
    assert PlayFaceDown.__dataclass_fields__.keys() == {"slot"}


def test_face_down_moves_each_name_one_slot() -> None:
    state = position(STANDARD, hands=[[], ["5"]], face_down=[["4", "9", "K"], []], pile=["3"])
    assert moves(state) == ["p:d:1", "p:d:2", "p:d:3"]


def test_face_down_second_card_waits_for_the_next_turn() -> None:
    state = position(STANDARD, hands=[[], ["5", "5", "5"]], face_down=[["9", "J", "K"], []], pile=["3"])
    state.apply(0, "p:d:1")
    with pytest.raises(NotYourTurnError):
        state.apply(0, "p:d:2")
    state.apply(1, "t")
    assert state.to_act == 0
    assert kinds(state.apply(0, "p:d:2")) == ["Played"]


def test_face_down_the_same_slot_twice_is_refused_even_after_a_burn() -> None:
    state = position(STANDARD, hands=[[], ["5"]], face_down=[["10", "J", "K"], []], pile=["3"])
    state.apply(0, "p:d:1")
    assert state.to_act == 0
    with pytest.raises(CardNotOwnedError):
        state.apply(0, "p:d:1")
    assert moves(state) == ["p:d:2", "p:d:3"]


# ----------------------------------------------------------------- who starts always ends


def test_who_starts_identical_low_cards_in_two_decks_tie_to_left_of_dealer() -> None:
    rules = STANDARD.with_rule("decks", 2)
    hands = [["3", "3", "3", "3"], ["3", "3", "3", "3"], ["4"], ["5"]]
    for dealer, starter in [(0, 1), (1, 0), (2, 0), (3, 0)]:
        state = position(rules, hands=hands, dealer=dealer, phase="swap")
        for seat in range(4):
            events = state.apply(seat, "r")
        assert events[-1] == PlayStarted(seat=starter, rank=3)


def test_who_starts_two_decks_of_nothing_but_powers_ends_left_of_the_dealer() -> None:
    rules = STANDARD.with_rule("decks", 2)
    hands = [["2"] * 4, ["2"] * 4, ["10"] * 4, ["10"] * 4]
    state = position(rules, hands=hands, dealer=3, phase="swap")
    for seat in range(4):
        events = state.apply(seat, "r")
    assert events[-1] == PlayStarted(seat=0, rank=None)


# ----------------------------------------------------------------- no turn cap


HOUSE_RULES: list[Rules] = [
    *PRESETS.values(),
    STANDARD.with_rules({"8": "skip", "9": "reverse", "J": "skip"}),
    preset("free").with_rules({"decks": 2, "3": "invisible", "Q": "reverse"}),
    preset("classic").with_rules(
        {
            "four_burns": "on",
            "faceup_pickup_takes_one": "on",
            "may_pickup_anytime": "on",
            "stock_gamble": "on",
        }
    ),
    SMELLY.with_rules({"7": "lower", "lower_is_wild": "on", "burn_on_lower": "off", "8": "skip"}),
]


def play_out(rules: Rules, seats: int, seed: int) -> tuple[ShitheadState, int]:
    """Random legal moves from the deal to the end; returns the final state and the number of moves."""
    rng = random.Random(seed)
    state = new_game("shithead", rules, seats=seats, seed=seed, dealer=seed % seats)
    assert isinstance(state, ShitheadState)
    applied = 0
    while not state.is_over:
        seat = rng.choice(state.seats_to_act())
        state.apply(seat, rng.choice(state.legal_moves(seat)))
        applied += 1
    return state, applied


@pytest.mark.parametrize("rules", HOUSE_RULES, ids=lambda r: r.describe())
def test_random_games_always_end_with_one_loser(rules: Rules) -> None:
    longest = 0
    for seed in range(40):
        seats = 2 + seed % (rules.max_seats - 1)
        state, applied = play_out(rules, seats, seed)
        longest = max(longest, applied)
        outcome = state.outcome
        assert outcome is not None
        assert outcome.loser is not None
        assert sorted(outcome.places) == list(range(1, seats + 1))
        assert outcome.places[outcome.loser] == seats
        loser_cards = len(state.hand_of(outcome.loser)) + len(state.face_up[outcome.loser])
        loser_cards += sum(c is not None for c in state.face_down[outcome.loser])
        assert loser_cards > 0
        assert sorted(all_cards(state)) == list(range(52 * rules.decks))
    assert longest > 100


def test_no_turn_cap_a_game_past_a_billion_moves_still_plays() -> None:
    state = position(STANDARD, hands=[["5", "9"], ["6", "K"]])
    data = state.to_dict()
    data["moves_applied"] = 10**9
    state = ShitheadState.from_dict(data)
    state.apply(0, "p:h:5:1")
    state.apply(1, "p:h:6:1")
    assert state.to_act == 0
    assert not state.is_over


# ----------------------------------------------------------------- §1.12 views


def test_a_view_never_shows_another_hand_or_any_face_down_card() -> None:
    for seed in range(30):
        rules = HOUSE_RULES[seed % len(HOUSE_RULES)]
        rng = random.Random(seed)
        state = new_game("shithead", rules, seats=3, seed=seed)
        assert isinstance(state, ShitheadState)
        while not state.is_over:
            public = {int(c) for c in state.pile} | {int(c) for up in state.face_up for c in up}
            public |= {
                int(c) for s in range(3) for c in state.known_hand(s)
            }  # seen picked up (tests/engine/test_memory.py)
            public |= {int(c) for c in state.discard} - {int(c) for c in state.unseen_out}
            for seat in range(3):
                seen = {int(c) for c in state.view(seat).cards()}
                assert seen <= public | {int(c) for c in state.hand_of(seat)}
            assert {int(c) for c in state.view(None).cards()} <= public
            seat = rng.choice(state.seats_to_act())
            state.apply(seat, rng.choice(state.legal_moves(seat)))
