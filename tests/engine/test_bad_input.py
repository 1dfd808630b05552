"""Bad input: each mistake raises its own exception and changes nothing."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

from engine import (
    PRESETS,
    CardNotOwnedError,
    EngineError,
    Forfeit,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    Keep,
    Move,
    NeighborRules,
    NeighborState,
    NotYourTurnError,
    PickUp,
    Play,
    PlayFaceDown,
    Ready,
    RulesError,
    SchemaError,
    ShitheadState,
    Source,
    StockGamble,
    Swap,
    Trade,
    UnknownSeatError,
    load_game,
    new_game,
    parse_move,
    preset,
)
from tests.engine.helpers import neighbor_table, position

STANDARD = preset("standard")
AnyState = ShitheadState | NeighborState


def refused(state: AnyState, seat: Any, move: str, error: type[EngineError]) -> None:
    """``move`` by ``seat`` raises exactly ``error`` and leaves the state as it was."""
    before = state.to_dict()
    with pytest.raises(EngineError) as caught:
        state.apply(seat, move)
    assert type(caught.value) is error
    assert state.to_dict() == before


def playing() -> ShitheadState:
    """Seat 0 to act on a Queen, with one Queen, a 4 and a King in hand."""
    return position(
        STANDARD,
        hands=[["Q", "4", "K"], ["5", "6"], ["7"]],
        face_up=[["9", "J"], ["8"], ["A"]],
        face_down=[["3", "6", "2"], ["4"], ["5"]],
        pile=["8", "Q"],
        stock=["9"],
    )


def finished() -> ShitheadState:
    state = position(STANDARD, hands=[["A"], ["4"]], pile=["9"])
    state.apply(0, "p:h:A:1")
    assert state.is_over
    return state


# ----------------------------------------------------------------- InvalidMoveError


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hello",
        "p:h:Z:9",
        "p:h:Q:0",
        "p:h:Q:9",
        "p:h:q:1",
        "p:h:Q",
        "p:x:Q:1",
        "p:d:4",
        "p:d:1:2",
        "t:",
        "t:X",
        "x:Q",
        "x:Q:5:1",
        "P:H:Q:1",
        " p:h:Q:1",
        "p:h:Q:01",
        "p:h:T:1",
        "r:1",
        "g:1",
        "z" * 100,
    ],
)
def test_a_malformed_move_text_is_an_invalid_move(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        parse_move(text)
    refused(playing(), 0, text, InvalidMoveError)
    refused(neighbor_table(["3", "9", "J"]), 1, text, InvalidMoveError)


# ----------------------------------------------------------------- IllegalMoveError


@pytest.mark.parametrize(
    "text",
    ["p:h:4:1", "t", "p:u:J:1", "p:d:1", "x:4:9", "r", "k", "s", "g"],
    ids=[
        "below-the-queen",
        "pick-up-with-a-play",
        "face-up-before-hand",
        "face-down-before-hand",
        "swap-in-play",
        "ready-in-play",
        "neighbor-keep",
        "neighbor-swap",
        "stock-gamble-off",
    ],
)
def test_a_move_not_allowed_now_is_an_illegal_move(text: str) -> None:
    refused(playing(), 0, text, IllegalMoveError)


def test_a_shithead_move_in_neighbor_is_an_illegal_move() -> None:
    for text in ("p:h:Q:1", "t", "r", "g", "x:Q:5", "p:d:1"):
        refused(neighbor_table(["3", "9", "J"]), 1, text, IllegalMoveError)


def test_a_play_in_the_swap_phase_is_an_illegal_move() -> None:
    state = position(STANDARD, hands=[["4", "5"], ["6"]], face_up=[["K"], ["A"]], phase="swap")
    refused(state, 0, "p:h:4:1", IllegalMoveError)
    refused(state, 0, "x:5:5", IllegalMoveError)


def test_a_first_play_without_the_starting_rank_is_an_illegal_move() -> None:
    state = position(STANDARD, hands=[["3", "9"], ["5"]], required="3")
    refused(state, 0, "p:h:9:1", IllegalMoveError)


# ----------------------------------------------------------------- NotYourTurnError


def test_a_move_by_a_seat_not_to_act_is_not_your_turn() -> None:
    refused(playing(), 1, "p:h:5:1", NotYourTurnError)
    refused(playing(), 2, "t", NotYourTurnError)
    refused(neighbor_table(["3", "9", "J"]), 2, "k", NotYourTurnError)
    refused(neighbor_table(["3", "9", "J"]), 0, "s", NotYourTurnError)


def test_a_seat_already_ready_or_out_is_not_to_act() -> None:
    state = position(STANDARD, hands=[["4", "5"], ["6"]], face_up=[["K"], ["A"]], phase="swap")
    state.apply(0, "r")
    refused(state, 0, "x:4:K", NotYourTurnError)
    refused(state, 0, "r", NotYourTurnError)
    state = position(STANDARD, hands=[[], ["6"], ["7"]], out=[0], to_act=1)
    refused(state, 0, "f", NotYourTurnError)
    refused(neighbor_table(["3", None, "J"]), 1, "f", NotYourTurnError)


# ----------------------------------------------------------------- GameOverError


def test_a_move_after_the_end_is_game_over() -> None:
    for text in ("p:h:4:1", "t", "f", "r"):
        refused(finished(), 1, text, GameOverError)
        refused(finished(), 0, text, GameOverError)
    state = neighbor_table(["3", "9"], lives=[1, 1])
    state.apply(1, "k")
    state.apply(0, "k")
    assert state.is_over
    for text in ("k", "s", "f"):
        refused(state, 0, text, GameOverError)


# ----------------------------------------------------------------- CardNotOwnedError


@pytest.mark.parametrize("text", ["p:h:Q:2", "p:h:A:1", "p:h:2:1"], ids=["two-queens-holding-one", "ace", "two"])
def test_a_card_the_seat_does_not_hold_is_not_owned(text: str) -> None:
    refused(playing(), 0, text, CardNotOwnedError)


def test_a_face_up_card_the_seat_does_not_hold_is_not_owned() -> None:
    state = position(STANDARD, hands=[[], ["5"]], face_up=[["9", "K"], []], pile=["8"])
    refused(state, 0, "p:u:A:1", CardNotOwnedError)
    refused(state, 0, "p:u:9:2", CardNotOwnedError)


def test_an_empty_face_down_slot_is_not_owned() -> None:
    state = position(STANDARD, hands=[[], ["5"]], face_down=[["9", None, "K"], []])
    refused(state, 0, "p:d:2", CardNotOwnedError)


def test_a_swap_of_cards_not_held_is_not_owned() -> None:
    state = position(STANDARD, hands=[["4", "5"], ["6"]], face_up=[["K"], ["A"]], phase="swap")
    refused(state, 0, "x:9:K", CardNotOwnedError)
    refused(state, 0, "x:4:A", CardNotOwnedError)


def test_a_face_up_card_to_take_along_must_be_held() -> None:
    rules = STANDARD.with_rule("faceup_pickup_takes_one", "on")
    state = position(rules, hands=[[], ["5"]], face_up=[["4", "6"], []], pile=["K"])
    refused(state, 0, "t:9", CardNotOwnedError)


# ----------------------------------------------------------------- UnknownSeatError


@pytest.mark.parametrize("seat", [3, -1, 99, "0", 0.0, None, True])
def test_an_unknown_seat_is_refused(seat: Any) -> None:
    refused(playing(), seat, "p:h:Q:1", UnknownSeatError)
    refused(playing(), seat, "f", UnknownSeatError)
    refused(neighbor_table(["3", "9", "J"]), seat if seat != 3 else 5, "k", UnknownSeatError)


def test_an_unknown_seat_has_no_view_and_no_moves() -> None:
    state = playing()
    before = state.to_dict()
    for ask in (state.view, state.legal_moves):
        with pytest.raises(UnknownSeatError):
            ask(3)
    assert state.to_dict() == before
    with pytest.raises(UnknownSeatError):
        new_game("shithead", STANDARD, seats=3, dealer=3)


# ----------------------------------------------------------------- RulesError


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("7", "magic"),
        ("Z", "burn"),
        ("nonsense", "on"),
        ("four_burns", "maybe"),
        ("decks", "3"),
        ("decks", "two"),
        ("stock_gamble", ""),
    ],
)
def test_a_bad_house_rule_is_a_rules_error(key: str, value: str) -> None:
    rules = preset("classic")
    before = rules.to_dict()
    with pytest.raises(RulesError):
        rules.with_rule(key, value)
    assert rules.to_dict() == before
    assert preset("classic") == rules


def test_a_bad_preset_or_seat_count_is_a_rules_error() -> None:
    with pytest.raises(RulesError):
        preset("nope")
    with pytest.raises(RulesError):
        new_game("shithead", STANDARD, seats=6)
    with pytest.raises(RulesError):
        new_game("shithead", STANDARD, seats=1)
    with pytest.raises(RulesError):
        new_game("shithead", NeighborRules())
    with pytest.raises(RulesError):
        new_game("poker")
    with pytest.raises(RulesError):
        NeighborRules().with_rule("decks", "2")


# ----------------------------------------------------------------- SchemaError


SPOILED_SHITHEAD: dict[str, Callable[[dict[str, Any]], object]] = {
    "schema-version": lambda d: d.update(schema=99),
    "kind": lambda d: d.update(kind="chess"),
    "no-hands": lambda d: d.pop("hands"),
    "hands-for-one-seat": lambda d: d.update(hands=d["hands"][:1]),
    "card-id-too-big": lambda d: d.update(pile=[500]),
    "card-id-negative": lambda d: d["pile"].append(-1),
    "second-deck-card-in-one-deck": lambda d: d["pile"].append(60),
    "card-in-two-places": lambda d: d["pile"].append(d["discard"][0]),
    "card-missing": lambda d: d["discard"].pop(),
    "phase": lambda d: d.update(phase="lunch"),
    "top-not-a-rank": lambda d: d.update(top="Q"),
    "top-out-of-range": lambda d: d.update(top=20),
    "required-out-of-range": lambda d: d.update(required=99),
    "turn-out-of-range": lambda d: d.update(turn=7),
    "direction": lambda d: d.update(direction=0),
    "power": lambda d: d["rules"].update(powers={"Q": "fly"}),
    "face-down": lambda d: d.update(face_down="nothing"),
}


@pytest.mark.parametrize("spoil", SPOILED_SHITHEAD.values(), ids=SPOILED_SHITHEAD.keys())
def test_bad_serialised_shithead_data_is_a_schema_error(spoil: Callable[[dict[str, Any]], object]) -> None:
    state = playing()
    before = state.to_dict()
    data = state.to_dict()
    spoil(data)
    kept = copy.deepcopy(data)
    with pytest.raises(SchemaError):
        load_game(data)
    assert data == kept
    assert state.to_dict() == before


SPOILED_NEIGHBOR: dict[str, Callable[[dict[str, Any]], object]] = {
    "schema-version": lambda d: d.update(schema=0),
    "no-lives": lambda d: d.pop("lives"),
    "cards-for-one-seat": lambda d: d.update(cards=[1]),
    "deck-not-cards": lambda d: d.update(deck=["x"]),
    "card-id-negative": lambda d: d["cards"].__setitem__(0, -1),
    "card-in-two-places": lambda d: d["deck"].append(d["cards"][0]),
    "phase": lambda d: d.update(phase="?"),
    "dealer-out-of-range": lambda d: d.update(dealer=7),
    "turn-out-of-range": lambda d: d.update(turn=9),
    "negative-lives": lambda d: d["lives"].__setitem__(2, -1),
}


@pytest.mark.parametrize("spoil", SPOILED_NEIGHBOR.values(), ids=SPOILED_NEIGHBOR.keys())
def test_bad_serialised_neighbor_data_is_a_schema_error(spoil: Callable[[dict[str, Any]], object]) -> None:
    data = neighbor_table(["3", "9", "J"]).to_dict()
    spoil(data)
    kept = copy.deepcopy(data)
    with pytest.raises(SchemaError):
        load_game(data)
    assert data == kept


def test_not_a_saved_game_is_a_schema_error() -> None:
    bad: list[Any] = [{}, {"kind": "poker"}, [], None]
    for data in bad:
        with pytest.raises(SchemaError):
            load_game(data)


def test_good_serialised_data_loads_back_the_same_state() -> None:
    state = playing()
    assert load_game(state.to_dict()) == state
    table = neighbor_table(["3", "9", "J"])
    assert load_game(table.to_dict()) == table


# ----------------------------------------------------------------- move texts


def every_move() -> list[Move]:
    ranks = range(2, 15)
    found: list[Move] = [PickUp(), StockGamble(), Ready(), Forfeit(), Keep(), Trade()]
    found += [Play(src, r, k) for src in (Source.HAND, Source.FACE_UP) for r in ranks for k in range(1, 9)]
    found += [PlayFaceDown(slot) for slot in (1, 2, 3)]
    found += [PickUp(r) for r in ranks]
    found += [Swap(h, f) for h in ranks for f in ranks if h != f]
    return found


def test_every_move_text_round_trips_and_fits_in_40_bytes() -> None:
    for move in every_move():
        text = str(move)
        assert parse_move(text) == move
        assert str(parse_move(text)) == text
        assert len(text.encode()) <= 40


def test_every_legal_move_in_random_games_round_trips() -> None:
    seen: set[str] = set()
    for seed in range(40):
        rng = random.Random(seed)
        state = new_game("shithead", list(PRESETS.values())[seed % 4], seats=2 + seed % 4, seed=seed)
        while not state.is_over:
            seat = rng.choice(state.seats_to_act())
            legal = state.legal_moves(seat)
            for move in legal:
                seen.add(str(move))
            state.apply(seat, str(rng.choice(legal)))
    for text in seen:
        assert str(parse_move(text)) == text
        assert len(text.encode()) <= 40
    assert len(seen) > 100
