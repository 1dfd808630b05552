"""The ``normal`` level's habits, from the examples of issue 11 (each one a position the old
heuristic got wrong)."""

from __future__ import annotations

import random

import pytest

from engine import PRESETS, Move, PickUp, Play, Ready, ShitheadState, Source, new_game
from engine.ai import make_player, rollout
from engine.ai.rollout import policy
from tests.engine.helpers import position

STANDARD = PRESETS["standard"]


def choose(state: object, seat: int = 0) -> Play:
    move = make_player("normal", 1).choose(state.view(seat))  # type: ignore[attr-defined]
    assert isinstance(move, Play)
    return move


def test_on_a_reset_it_leads_above_the_last_face_up_card_of_an_opponent_about_to_go_out() -> None:
    state = position(
        STANDARD, [["6", "9", "K"], []], face_up=[["4"], ["8"]], face_down=[["5"], ["4", "5"]], pile=["J", "2"]
    )
    assert choose(state) == Play(Source.HAND, 9, 1)


def test_it_leads_what_the_opponents_face_up_cards_cannot_follow() -> None:
    state = position(STANDARD, [["6", "A", "5"], []], face_up=[["4"], ["A", "K", "Q"]], face_down=[["5"], ["4"]])
    assert choose(state) == Play(Source.HAND, 14, 1)


def test_it_keeps_a_copy_back_when_the_opponent_is_on_face_down_cards() -> None:
    state = position(STANDARD, [["A", "A"], []], face_up=[["4"], []], face_down=[["5"], ["4", "6"]], pile=["J"])
    assert choose(state) == Play(Source.HAND, 14, 1)


def test_it_plays_a_plain_card_rather_than_burn_with_a_ten() -> None:
    pile = ["3", "4", "5", "6", "7", "J", "K", "8", "8"]
    state = position(STANDARD, [["2", "9", "10"], ["3", "4", "5"]], face_up=[["4"], ["5"]], pile=pile)
    assert choose(state) == Play(Source.HAND, 9, 1)


def test_it_still_gets_rid_of_its_lowest_cards_when_nobody_is_close_to_going_out() -> None:
    state = position(STANDARD, [["5", "5", "9", "K"], ["3", "4", "6", "7"]], face_up=[["4"], ["5"]], pile=["4"])
    assert choose(state) == Play(Source.HAND, 5, 2)


def test_it_completes_four_of_a_kind_with_plain_cards() -> None:
    state = position(STANDARD, [["4", "9", "9"], ["3", "4", "6", "7"]], face_up=[["4"], ["5"]], pile=["9", "9"])
    assert choose(state) == Play(Source.HAND, 9, 2)


def test_it_remembers_the_cards_an_opponent_picked_up() -> None:
    # Seat 1 picks up a pile of a 5 and a 7: its whole hand is known, so seat 0 plays above it.
    state = position(
        STANDARD, [["8", "6", "3"], []], face_up=[["4"], ["4"]], face_down=[["5"], ["4"]], pile=["5", "7"], to_act=1
    )
    state.apply(1, "t")  # it holds 5 7 and nothing else
    assert state.view(0).seats[1].known_hand
    assert choose(state) == Play(Source.HAND, 8, 1)


def test_it_plays_a_two_rather_than_a_high_card() -> None:
    state = position(STANDARD, [["2", "K", "4"], ["3", "5", "6"]], face_up=[["4"], ["5", "8"]], pile=["J"])
    assert choose(state) == Play(Source.HAND, 2, 1)


def test_against_a_seat_near_its_end_the_high_card_goes_rather_than_a_two() -> None:
    state = position(STANDARD, [["2", "K", "4"], ["3"]], face_up=[["4"], ["5"]], face_down=[["5"], ["6"]], pile=["J"])
    assert choose(state) == Play(Source.HAND, 13, 1)


def test_it_plays_a_high_rank_one_copy_at_a_time() -> None:
    state = position(STANDARD, [["A", "A", "4"], ["3", "5", "6"]], face_up=[["4"], ["5", "8"]], pile=["J"])
    assert choose(state) == Play(Source.HAND, 14, 1)


def test_in_classic_a_seven_stands_in_for_a_high_card() -> None:
    state = position(PRESETS["classic"], [["7", "K", "4"], ["3", "5", "6"]], face_up=[["4"], ["5", "8"]], pile=["6"])
    move = make_player("normal", 1).choose(state.view(0))
    assert move == Play(Source.HAND, 7, 1)


def test_in_classic_sevens_standing_in_go_all_at_once() -> None:
    state = position(PRESETS["classic"], [["7", "7", "K"], ["3", "5", "6"]], face_up=[["4"], ["5", "8"]], pile=["6"])
    assert choose(state) == Play(Source.HAND, 7, 2)


def test_in_smelly_it_spends_its_invisible_cards_all_at_once_rather_than_burn_a_big_pile() -> None:
    # With pickup_then_play a pickup costs less: the 10 is kept.
    pile = ["4", "5", "6", "7", "8", "9", "A"]
    state = position(PRESETS["smelly"], [["3", "3", "10", "2"], ["4", "5", "6"]], face_up=[["4"], ["5"]], pile=pile)
    assert choose(state) == Play(Source.HAND, 3, 2)
    standard = position(STANDARD, [["10", "2", "K"], ["4", "5", "6"]], face_up=[["4"], ["5"]], pile=pile)
    assert choose(standard) == Play(Source.HAND, 10, 1)  # elsewhere the big pile burns


def test_in_free_it_keeps_the_wild_lower_card_for_last() -> None:
    state = position(PRESETS["free"], [["5", "2", "K"], ["4", "6", "7"]], face_up=[["4"], ["6"]], pile=["A"])
    assert choose(state) == Play(Source.HAND, 2, 1)


def test_in_free_it_picks_up_rather_than_turn_a_stock_card_when_nothing_fits() -> None:
    state = position(
        PRESETS["free"], [["K", "Q"], ["4", "6", "7"]], face_up=[["4"], ["6"]], pile=["9", "A"], stock=["3", "8"]
    )
    move = make_player("normal", 1).choose(state.view(0))
    assert isinstance(move, PickUp)
    assert rollout_move(state) == move


def test_in_a_loop_it_moves_at_random_now_and_then() -> None:
    state = position(STANDARD, [["K", "4", "5"], ["6", "7", "8"]], face_up=[["4"], ["6"]], pile=["3"])
    player = make_player("normal", 1)
    moves = {player.choose(state.view(0)) for _ in range(200)}  # the same position over and over
    assert Play(Source.HAND, 13, 1) in moves  # never the heuristic's own choice (the 4)


def test_in_the_swap_it_keeps_its_twos_in_hand_and_lays_a_ten_face_up() -> None:
    state = position(
        STANDARD, [["K", "10", "4"], ["3", "5", "6"]], face_up=[["2", "3", "5"], ["7", "8", "9"]], phase="swap"
    )
    player = make_player("normal", 1)
    for _ in range(6):
        move = player.choose(state.view(0))
        if move == Ready():
            break
        state.apply(0, move)
    face_up = sorted(c.rank for c in state.view(0).seats[0].face_up)
    assert face_up == [5, 10, 13]


# ----------------------------------------------------------------- the search's playouts


def rollout_move(state: ShitheadState) -> Move:
    seat = state.to_act
    assert seat is not None
    return policy(state, seat, lambda: 0.5)  # never the loop breaker's plain play


@pytest.mark.parametrize(
    ("hands", "face_down", "expected"),
    [
        ([["2", "K", "4"], ["3", "5", "6"]], [[], ["9", "9"]], Play(Source.HAND, 2, 1)),  # a 2 for the King
        ([["2", "K", "4"], ["3"]], [[], ["6"]], Play(Source.HAND, 13, 1)),  # the next seat is near its end
        ([["A", "A", "4"], ["3", "5", "6"]], [[], ["9", "9"]], Play(Source.HAND, 14, 1)),  # one Ace at a time
        ([["9", "9", "4"], ["3", "5", "6"]], [[], ["8", "8"]], Play(Source.HAND, 9, 2)),  # a low rank: all of it
    ],
)
def test_the_playouts_play_with_the_heuristics_habits(
    hands: list[list[str]], face_down: list[list[str]], expected: Play
) -> None:
    state = position(STANDARD, hands, face_up=[["4"], ["5", "8"]], face_down=face_down, pile=["8"])
    assert rollout_move(state) == expected
    assert choose(state) == expected  # the same as the heuristic's own choice


@pytest.mark.parametrize(
    ("preset", "hands", "pile", "expected"),
    [
        (
            "smelly",
            [["3", "3", "10", "2"], ["4", "5", "6"]],
            ["4", "5", "6", "7", "8", "9", "A"],
            Play(Source.HAND, 3, 2),
        ),
        ("free", [["5", "2", "K"], ["4", "6", "7"]], ["A"], Play(Source.HAND, 2, 1)),
        ("classic", [["7", "7", "K"], ["3", "5", "6"]], ["6"], Play(Source.HAND, 7, 2)),
    ],
)
def test_the_playouts_play_with_the_heuristics_habits_in_other_presets(
    preset: str, hands: list[list[str]], pile: list[str], expected: Play
) -> None:
    state = position(PRESETS[preset], hands, face_up=[["4"], ["5", "8"]], face_down=[[], ["9", "9"]], pile=pile)
    assert rollout_move(state) == expected
    assert choose(state) == expected


@pytest.mark.parametrize(
    ("hands", "face_up", "face_down", "pile", "expected"),
    [
        # The next seat is down to 8 and two face-down cards: lead what the 8 cannot follow.
        ([["6", "9", "K"], []], [["4"], ["8"]], [["5"], ["4", "5"]], ["J", "2"], Play(Source.HAND, 9, 1)),
        # A free burn: two Queens on two Queens, rather than one kept back.
        ([["4", "Q", "Q"], ["3", "4", "6", "7"]], [["4"], ["5"]], [[], []], ["Q", "Q"], Play(Source.HAND, 12, 2)),
        # The last two cards, both Queens: out, not one Queen kept back.
        ([["Q", "Q"], ["3", "4", "6"]], [[], ["5"]], [[], ["7"]], ["8"], Play(Source.HAND, 12, 2)),
        # Two seats, the other down to four cards it shows but one: the 9, which only its J follows.
        ([["5", "9"], []], [["4"], ["6", "8", "J"]], [[], ["3"]], ["4"], Play(Source.HAND, 9, 1)),
    ],
)
def test_the_playouts_look_at_the_end_as_the_heuristic_does(
    hands: list[list[str]], face_up: list[list[str]], face_down: list[list[str]], pile: list[str], expected: Play
) -> None:
    state = position(STANDARD, hands, face_up=face_up, face_down=face_down, pile=pile)
    assert choose(state) == expected
    assert rollout_move(state) == expected


def looping_world() -> ShitheadState:
    """A ``free`` position (found by search) where the playout policy with ``random.Random(1)`` loops."""
    state = new_game("shithead", PRESETS["free"], 2, 0)
    assert isinstance(state, ShitheadState)
    players = [make_player("normal", seat) for seat in range(2)]
    for _ in range(10):
        seat = state.seats_to_act()[0]
        state.apply(seat, players[seat].choose(state.view(seat)))
    return state


def test_a_playout_caught_in_a_loop_stops_as_soon_as_the_game_stands_still() -> None:
    # Moves counted by the state itself: the playout is compiled with mypyc, so patching its
    # policy would not reach it.
    world = looping_world()
    start = world.moves_applied
    assert rollout.playout(world, random.Random(1).random, 3000, stall=0) is None
    assert world.moves_applied - start == 3000  # without the check it plays the loop to the end of its budget
    world = looping_world()
    start = world.moves_applied
    assert rollout.playout(world, random.Random(1).random, 3000) is None
    assert world.moves_applied - start < 4 * rollout.STALL
    assert not world.is_over


@pytest.mark.parametrize(
    ("pile", "burns"),
    [
        (["8", "3", "8", "8"], False),  # an invisible top: only its own row at the very top counts
        (["Q", "8", "8", "8"], True),
        (["8", "8", "8", "3"], False),  # the 8 on a 3: only one 8 at the top
        (["Q", "3", "Q", "Q"], False),  # a Queen is no 8
    ],
)
def test_the_playouts_know_when_an_invisible_rank_burns(pile: list[str], burns: bool) -> None:
    """RULES.md §1.7: "when the top card is itself invisible, only a row of that invisible rank at
    the very top counts" — another invisible rank below does not let the row go on."""
    rules = STANDARD.with_rules({"3": "invisible", "8": "invisible"})
    state = position(rules, [["8", "4"], ["5", "6"]], pile=pile)
    move = Play(Source.HAND, 8, 1)
    assert rollout.burns(state, move) is burns
    assert any(e.__class__.__name__ == "Burned" for e in state.copy().apply(0, move)) is burns


def test_the_playouts_burn_as_the_rules_do_in_random_positions() -> None:
    """Whether a play burns, asked of the playouts, is what applying it does, in every preset and
    with two invisible ranks (house rules)."""
    rule_sets = [*PRESETS.values(), STANDARD.with_rules({"3": "invisible", "8": "invisible", "4": "skip"})]
    rng = random.Random(7)
    checked = 0
    for i in range(600):
        state = new_game("shithead", rule_sets[i % len(rule_sets)], 2 + i % 3, i)
        while not state.is_over and checked < 20000:
            seat = rng.choice(state.seats_to_act())
            moves = state.legal_moves(seat)
            for m in moves:
                if isinstance(m, Play) and state.to_act == seat:
                    burned = any(e.__class__.__name__ == "Burned" for e in state.copy().apply(seat, m))
                    assert rollout.burns(state, m) is burned, (state.to_dict(), m)
                    checked += 1
            state.apply(seat, moves[int(rng.random() * len(moves))])
    assert checked > 1000
