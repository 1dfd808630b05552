"""RULES.md §1.13: every worked example, one test each."""

from __future__ import annotations

import pytest

from engine import IllegalMoveError, card_of, preset
from engine.events import BlindFailed, Burned, PickedUp, Played
from tests.engine.helpers import face_up, hand, kinds, moves, pile, playable, position


def test_example_1_smelly_invisible_three_on_queen() -> None:
    state = position(preset("smelly"), hands=[["J", "Q", "K", "A", "2", "3", "10"], ["5"]], pile=["Q", "3"])
    assert playable(state) == {"Q", "K", "A", "2", "3", "10"}
    with pytest.raises(IllegalMoveError):
        state.apply(0, "p:h:J:1")


def test_example_2_smelly_four_queens_through_threes_burn() -> None:
    state = position(preset("smelly"), hands=[["Q", "5", "6"], ["7"]], pile=["Q", "Q", "3", "Q", "3"])
    events = state.apply(0, "p:h:Q:1")
    assert kinds(events) == ["Played", "Burned"]
    assert events[1] == Burned(seat=0, pile_size=6, four=True)
    assert pile(state) == []
    assert len(state.discard) == 52 - 2 - 1  # everything but the two hands
    assert state.to_act == 0
    assert playable(state) == {"5", "6"}


def test_example_3_smelly_four_beats_a_two() -> None:
    state = position(preset("smelly"), hands=[["4", "9"], ["5"]], pile=["K", "2"])
    assert "4" in playable(state)
    state.apply(0, "p:h:4:1")
    assert state.view(1).effective_top == 4


@pytest.mark.parametrize("on_pile", [["7"], ["7", "8"]], ids=["seven", "eight-on-seven"])
def test_example_4_classic_seven_is_lower_and_eight_is_see_through(on_pile: list[str]) -> None:
    state = position(preset("classic"), hands=[["4", "7", "2", "8", "9", "10", "A"], ["5"]], pile=on_pile)
    assert playable(state) == {"4", "7", "2", "8"}
    for illegal in ("9", "10", "A"):
        with pytest.raises(IllegalMoveError):
            state.apply(0, f"p:h:{illegal}:1")


def test_example_5_classic_eight_on_jack_next_must_beat_the_jack() -> None:
    state = position(preset("classic"), hands=[["8", "4"], ["9", "J", "Q", "10", "8", "5"]], pile=["J"])
    state.apply(0, "p:h:8:1")
    assert state.to_act == 1
    assert state.view(1).effective_top == 11
    assert playable(state) == {"J", "Q", "10", "8"}


def test_example_6_free_wild_five_on_king_then_five_or_lower() -> None:
    state = position(preset("free"), hands=[["5", "9"], ["3", "5", "2", "10", "6"]], pile=["K"])
    assert "5" in playable(state)
    state.apply(0, "p:h:5:1")
    assert playable(state) == {"3", "5", "2", "10"}
    with pytest.raises(IllegalMoveError):
        state.apply(1, "p:h:6:1")


def test_example_7_standard_four_fives_over_two_players_burn() -> None:
    state = position(preset("standard"), hands=[["5", "5", "5", "9"], ["5", "7", "8"], ["K"]])
    events = state.apply(0, "p:h:5:3")
    assert kinds(events) == ["Played"]
    assert state.to_act == 1
    events = state.apply(1, "p:h:5:1")
    assert kinds(events) == ["Played", "Burned"]
    assert events[1] == Burned(seat=1, pile_size=4, four=True)
    assert state.to_act == 1
    assert pile(state) == []


def test_example_8_smelly_pick_up_then_lead_on_the_empty_table() -> None:
    state = position(preset("smelly"), hands=[["5", "6"], ["7"]], pile=["K", "A"])
    assert moves(state) == ["t"]
    events = state.apply(0, "t")
    assert events == [PickedUp(seat=0, amount=2, face_up=None)]
    assert state.to_act == 0
    assert pile(state) == []
    assert hand(state, 0) == ["5", "6", "K", "A"]
    assert "t" not in moves(state)
    assert playable(state) == {"5", "6", "K", "A"}


def test_example_9_smelly_face_up_pick_up_takes_the_chosen_six() -> None:
    state = position(
        preset("smelly"),
        hands=[[], ["7"]],
        face_up=[["9", "6"], []],
        face_down=[["4", "5", "8"], []],
        pile=["K"],
    )
    assert sorted(moves(state)) == ["t:6", "t:9"]
    events = state.apply(0, "t:6")
    assert kinds(events) == ["PickedUp"]
    picked = events[0]
    assert isinstance(picked, PickedUp)
    assert picked.amount == 2
    assert picked.face_up is not None
    assert picked.face_up.rank == 6
    assert hand(state, 0) == ["6", "K"]
    assert face_up(state, 0) == ["9"]
    assert state.to_act == 0


@pytest.mark.parametrize(("name", "next_seat"), [("standard", 1), ("classic", 1), ("free", 1), ("smelly", 0)])
def test_example_10_face_down_four_on_queen_goes_to_hand_with_the_pile(name: str, next_seat: int) -> None:
    state = position(preset(name), hands=[[], ["7"]], face_down=[["4", "9", "K"], []], pile=["Q"])
    four = state.face_down[0][0]
    assert four is not None
    events = state.apply(0, "p:d:1")
    assert events == [BlindFailed(seat=0, source="d", card=four), PickedUp(seat=0, amount=2, face_up=None)]
    assert hand(state, 0) == ["4", "Q"]
    assert state.face_down[0] == [None, state.face_down[0][1], state.face_down[0][2]]
    assert pile(state) == []
    assert state.to_act == next_seat


def test_example_10_face_down_legal_card_is_played_not_picked_up() -> None:
    state = position(preset("standard"), hands=[[], ["7"]], face_down=[["K", "9", "4"], []], pile=["Q"])
    events = state.apply(0, "p:d:1")
    assert events == [Played(seat=0, source="d", cards=(card_of(11),))]
    assert pile(state) == ["Q", "K"]
    assert state.to_act == 1
