"""Forced moves: the one move a seat may make, and whether everybody could tell it was forced."""

from __future__ import annotations

from engine import preset
from engine.forced import Forced, forced_move
from tests.engine.helpers import position

STANDARD = preset("standard")


def forced(**where: object) -> tuple[str, Forced] | None:
    state = position(STANDARD, **where)  # type: ignore[arg-type]
    found = forced_move(state.view(state.to_act))
    return None if found is None else (str(found[0]), found[1])


def test_a_pickup_when_nothing_fits_is_public() -> None:
    assert forced(hands=[["4", "5"], ["6"]], pile=["K"]) == ("t", Forced.PUBLIC)


def test_the_last_card_in_hand_is_public() -> None:
    assert forced(hands=[["9"], ["6"]], pile=["5"]) == ("p:h:9:1", Forced.PUBLIC)


def test_the_one_fitting_card_of_a_bigger_hand_is_private() -> None:
    assert forced(hands=[["4", "9"], ["6"]], pile=["8"], stock=["5"]) == ("p:h:9:1", Forced.PRIVATE)


def test_a_play_from_the_face_up_cards_is_public() -> None:
    assert forced(hands=[[], ["6"]], face_up=[["K"], ["7"]], pile=["8"]) == ("p:u:K:1", Forced.PUBLIC)


def test_the_last_face_down_card_is_public() -> None:
    assert forced(hands=[[], ["6"]], face_up=[[], []], face_down=[["Q"], ["4"]], pile=["8"]) == (
        "p:d:1",
        Forced.PUBLIC,
    )


def test_a_choice_is_not_forced() -> None:
    assert forced(hands=[["9", "J"], ["6"]], pile=["8"]) is None  # two cards fit
    assert forced(hands=[["9", "9"], ["6"]], pile=["8"]) is None  # one 9 or both
    assert forced(hands=[[], ["6"]], face_up=[[], []], face_down=[["Q", "3"], ["4"]], pile=["8"]) is None  # two slots


def test_the_swap_phase_and_other_seats_are_never_forced() -> None:
    from engine import new_game

    game = new_game("shithead", STANDARD, seats=2, seed=1)
    assert forced_move(game.view(0)) is None
    state = position(STANDARD, hands=[["4", "5"], ["6"]], pile=["K"])
    assert forced_move(state.view(1)) is None  # not its turn
    assert forced_move(state.view(None)) is None  # a spectator
