"""RULES.md Part 1: the powers (§1.7), the toggles (§1.11) and the course of a game (§1.2-§1.10)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import (
    CardNotOwnedError,
    Event,
    GameOverError,
    IllegalMoveError,
    NotYourTurnError,
    Outcome,
    Power,
    Rules,
    ShitheadState,
    Source,
    new_game,
    preset,
)
from engine.events import (
    BlindFailed,
    Burned,
    Drew,
    Forfeited,
    GameOver,
    PickedUp,
    Played,
    PlayStarted,
    Readied,
    Reversed,
    Skipped,
    WentOut,
)
from tests.engine.helpers import all_cards, face_up, hand, kinds, moves, pile, playable, position

STANDARD = preset("standard")
SKIP_8 = STANDARD.with_rule("8", "skip")
REVERSE_9 = STANDARD.with_rule("9", "reverse")
EVERY_RANK = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


# ----------------------------------------------------------------- §1.7 powers


def test_reset_two_goes_on_anything() -> None:
    state = position(STANDARD, hands=[["2", "3"], ["5"]], pile=["A"])
    assert playable(state) == {"2"}


def test_reset_after_a_two_any_rank_may_be_played() -> None:
    state = position(STANDARD, hands=[EVERY_RANK, ["5"]], pile=["A", "2"])
    assert playable(state) == set(EVERY_RANK)


def test_invisible_goes_on_anything_and_next_must_beat_the_card_under_it() -> None:
    rules = STANDARD.with_rule("9", "invisible")
    state = position(rules, hands=[["9", "3"], ["Q", "J", "4"]], pile=["Q"])
    assert "9" in playable(state)
    state.apply(0, "p:h:9:1")
    assert pile(state) == ["Q", "9"]
    assert state.view(1).effective_top == 12
    assert playable(state) == {"Q"}


def test_burn_ten_sends_the_pile_to_the_discard_and_the_same_player_plays_again() -> None:
    state = position(STANDARD, hands=[["10", "4"], ["5"]], pile=["9", "A"])
    discarded = len(state.discard)
    events = state.apply(0, "p:h:10:1")
    assert kinds(events) == ["Played", "Burned"]
    assert events[1] == Burned(seat=0, pile_size=3, four=False)
    assert pile(state) == []
    assert len(state.discard) == discarded + 3
    assert state.to_act == 0
    assert playable(state) == {"4"}


def test_lower_not_wild_may_not_go_on_a_higher_card() -> None:
    state = position(preset("classic"), hands=[["7", "K"], ["5"]], pile=["9"])
    assert playable(state) == {"K"}


def test_lower_not_wild_goes_on_a_lower_card_by_value() -> None:
    state = position(preset("classic"), hands=[["7", "K"], ["5"]], pile=["6"])
    assert playable(state) == {"7", "K"}


def test_lower_wild_goes_on_anything() -> None:
    state = position(preset("free"), hands=[["5", "9"], ["3"]], pile=["A"])
    assert playable(state) == {"5"}


def test_after_a_lower_card_the_next_play_is_that_value_or_lower_or_wild() -> None:
    state = position(preset("classic"), hands=[["7", "4"], EVERY_RANK], pile=["5"])
    state.apply(0, "p:h:7:1")
    assert playable(state) == {"2", "3", "4", "5", "6", "7", "8"}


def test_skip_one_card_skips_one_player() -> None:
    state = position(SKIP_8, hands=[["8", "4"], ["5"], ["6"], ["7"]], pile=["6"])
    events = state.apply(0, "p:h:8:1")
    assert Skipped((1,)) in events
    assert state.to_act == 2


def test_skip_two_cards_skip_two_players() -> None:
    state = position(SKIP_8, hands=[["8", "8", "4"], ["5"], ["6"], ["7"]], pile=["6"])
    events = state.apply(0, "p:h:8:2")
    assert Skipped((1, 2)) in events
    assert state.to_act == 3


def test_skip_with_two_players_the_same_player_plays_again() -> None:
    state = position(SKIP_8, hands=[["8", "4"], ["5"]], pile=["6"])
    events = state.apply(0, "p:h:8:1")
    assert Skipped((1,)) in events
    assert state.to_act == 0


def test_skip_does_not_count_players_already_out() -> None:
    state = position(SKIP_8, hands=[["8", "4"], [], ["6"], ["7"]], pile=["6"], out=[1])
    events = state.apply(0, "p:h:8:1")
    assert Skipped((2,)) in events
    assert state.to_act == 3


def test_skip_is_played_by_value_not_wild() -> None:
    state = position(SKIP_8, hands=[["8", "4"], ["5"]], pile=["9"])
    assert "8" not in playable(state)
    state = position(SKIP_8, hands=[["8", "4"], ["5"]], pile=["7"])
    assert "8" in playable(state)


def test_reverse_flips_the_direction_of_play() -> None:
    state = position(REVERSE_9, hands=[["9", "4"], ["5"], ["6"], ["J", "3"]], pile=["6"])
    events = state.apply(0, "p:h:9:1")
    assert Reversed(-1) in events
    assert state.to_act == 3
    state.apply(3, "p:h:J:1")
    assert state.to_act == 2


def test_reverse_with_two_players_changes_nothing() -> None:
    state = position(REVERSE_9, hands=[["9", "4"], ["J", "3"]], pile=["6"])
    state.apply(0, "p:h:9:1")
    assert state.to_act == 1
    state.apply(1, "p:h:J:1")
    assert state.to_act == 0


def test_reverse_is_played_by_value_not_wild() -> None:
    state = position(REVERSE_9, hands=[["9", "4"], ["5"]], pile=["J"])
    assert playable(state) == set()
    assert moves(state) == ["t"]


def test_two_reverse_cards_in_one_play_cancel_out() -> None:
    """Engine decision (shithead.py docstring): each reverse card flips the direction."""
    state = position(REVERSE_9, hands=[["9", "9", "4"], ["5"], ["6"], ["7"]], pile=["6"])
    state.apply(0, "p:h:9:2")
    assert state.direction == 1
    assert state.to_act == 1


def test_going_out_with_a_skip_still_skips() -> None:
    state = position(SKIP_8, hands=[["8"], ["5"], ["6"], ["7"]], pile=["6"])
    events = state.apply(0, "p:h:8:1")
    assert WentOut(seat=0, place=1) in events
    assert Skipped((1,)) in events
    assert state.to_act == 2


def test_going_out_with_a_reverse_still_flips_the_direction() -> None:
    state = position(REVERSE_9, hands=[["9"], ["5"], ["6"], ["7"]], pile=["6"])
    events = state.apply(0, "p:h:9:1")
    assert WentOut(seat=0, place=1) in events
    assert Reversed(-1) in events
    assert state.to_act == 3


def test_a_rank_has_at_most_one_power() -> None:
    rules = STANDARD.with_rule("10", "skip")
    assert rules.power(10) is Power.SKIP
    assert [p for r, p in rules.powers if r == 10] == [Power.SKIP]


# ----------------------------------------------------------------- §1.11 toggles


def test_burn_on_lower_off_ten_may_not_go_on_a_seven() -> None:
    state = position(preset("classic"), hands=[["10", "4"], ["5"]], pile=["7"])
    assert playable(state) == {"4"}


def test_burn_on_lower_on_ten_goes_on_a_seven() -> None:
    rules = preset("classic").with_rule("burn_on_lower", "on")
    state = position(rules, hands=[["10", "4"], ["5"]], pile=["7"])
    assert playable(state) == {"4", "10"}


def test_four_burns_on_four_of_a_rank_burns_the_pile() -> None:
    state = position(STANDARD, hands=[["6", "6", "6", "6", "4"], ["5"]], pile=["3"])
    events = state.apply(0, "p:h:6:4")
    assert events[-1] == Burned(seat=0, pile_size=5, four=True)
    assert state.to_act == 0


def test_four_burns_off_four_of_a_rank_does_not_burn() -> None:
    state = position(preset("classic"), hands=[["5", "4"], ["6"]], pile=["5", "5", "5"])
    events = state.apply(0, "p:h:5:1")
    assert kinds(events) == ["Played"]
    assert pile(state) == ["5", "5", "5", "5"]
    assert state.to_act == 1


def test_four_burns_more_than_four_in_a_row_burns_too() -> None:
    rules = STANDARD.with_rule("decks", 2)
    state = position(rules, hands=[["6", "6", "6", "4"], ["5"]], pile=["6", "6"])
    events = state.apply(0, "p:h:6:3")
    assert events[-1] == Burned(seat=0, pile_size=5, four=True)


def test_four_burns_invisible_cards_inside_the_row_do_not_break_it() -> None:
    rules = STANDARD.with_rule("8", "invisible")
    state = position(rules, hands=[["6", "4"], ["5"]], pile=["6", "8", "6", "8", "8", "6"])
    events = state.apply(0, "p:h:6:1")
    assert events[-1] == Burned(seat=0, pile_size=7, four=True)


def test_four_burns_a_plain_card_inside_the_row_breaks_it() -> None:
    state = position(STANDARD, hands=[["6", "4"], ["5"]], pile=["6", "6", "3", "6"])
    events = state.apply(0, "p:h:6:1")
    assert kinds(events) == ["Played"]


def test_four_burns_top_invisible_only_a_row_of_that_rank_counts() -> None:
    smelly = preset("smelly")
    state = position(smelly, hands=[["3", "4"], ["5"]], pile=["Q", "Q", "Q"])
    assert kinds(state.apply(0, "p:h:3:1")) == ["Played"]
    state = position(smelly, hands=[["3", "4"], ["5"]], pile=["3", "Q", "3", "3"])
    assert kinds(state.apply(0, "p:h:3:1")) == ["Played"]
    state = position(smelly, hands=[["3", "4"], ["5"]], pile=["Q", "3", "3", "3"])
    events = state.apply(0, "p:h:3:1")
    assert events[-1] == Burned(seat=0, pile_size=5, four=True)


def test_four_burns_completed_across_three_players() -> None:
    state = position(STANDARD, hands=[["5", "9"], ["5", "5", "9"], ["5", "9"]], pile=["4"])
    state.apply(0, "p:h:5:1")
    state.apply(1, "p:h:5:2")
    events = state.apply(2, "p:h:5:1")
    assert events[-1] == Burned(seat=2, pile_size=5, four=True)
    assert state.to_act == 2


def test_four_burns_loses_the_skip() -> None:
    state = position(SKIP_8, hands=[["8", "4"], ["5"], ["6"]], pile=["8", "8", "8"])
    events = state.apply(0, "p:h:8:1")
    assert kinds(events) == ["Played", "Burned"]
    assert state.to_act == 0


def test_four_burns_loses_the_reverse() -> None:
    state = position(REVERSE_9, hands=[["9", "4"], ["5"], ["6"]], pile=["9", "9", "9"])
    events = state.apply(0, "p:h:9:1")
    assert kinds(events) == ["Played", "Burned"]
    assert state.direction == 1
    assert state.to_act == 0


def test_pickup_then_play_on_the_same_player_leads_again() -> None:
    rules = STANDARD.with_rule("pickup_then_play", "on")
    state = position(rules, hands=[["4"], ["5"]], pile=["K"])
    state.apply(0, "t")
    assert state.to_act == 0
    assert pile(state) == []


def test_pickup_then_play_off_the_turn_passes_left() -> None:
    state = position(STANDARD, hands=[["4"], ["5"], ["6"]], pile=["K"])
    state.apply(0, "t")
    assert state.to_act == 1
    assert hand(state, 0) == ["4", "K"]


def test_faceup_pickup_takes_one_on_a_pickup_must_name_a_face_up_card() -> None:
    rules = STANDARD.with_rule("faceup_pickup_takes_one", "on")
    state = position(rules, hands=[[], ["5"]], face_up=[["9", "6"], []], pile=["K"])
    assert sorted(moves(state)) == ["t:6", "t:9"]
    with pytest.raises(IllegalMoveError):
        state.apply(0, "t")
    with pytest.raises(CardNotOwnedError):
        state.apply(0, "t:4")
    events = state.apply(0, "t:9")
    assert kinds(events) == ["PickedUp"]
    assert hand(state, 0) == ["9", "K"]
    assert face_up(state, 0) == ["6"]
    assert state.to_act == 1


def test_faceup_pickup_takes_one_off_the_face_up_cards_stay() -> None:
    state = position(STANDARD, hands=[[], ["5"]], face_up=[["9", "6"], []], pile=["K"])
    assert moves(state) == ["t"]
    with pytest.raises(IllegalMoveError):
        state.apply(0, "t:6")
    state.apply(0, "t")
    assert hand(state, 0) == ["K"]
    assert face_up(state, 0) == ["9", "6"]


def test_faceup_pickup_takes_one_does_not_apply_to_a_pickup_from_hand() -> None:
    rules = STANDARD.with_rule("faceup_pickup_takes_one", "on")
    state = position(rules, hands=[["4"], ["5"]], face_up=[["9", "6"], []], pile=["K"])
    assert moves(state) == ["t"]


def test_may_pickup_anytime_on_a_player_with_a_play_may_pick_up() -> None:
    rules = STANDARD.with_rule("may_pickup_anytime", "on")
    state = position(rules, hands=[["A", "4"], ["5"]], pile=["K"])
    assert "t" in moves(state)
    events = state.apply(0, "t")
    assert events[0] == PickedUp(seat=0, amount=1, face_up=None)
    assert hand(state, 0) == ["4", "K", "A"]


def test_may_pickup_anytime_on_not_on_an_empty_pile() -> None:
    rules = STANDARD.with_rule("may_pickup_anytime", "on")
    state = position(rules, hands=[["A", "4"], ["5"]])
    assert "t" not in moves(state)
    with pytest.raises(IllegalMoveError):
        state.apply(0, "t")


def test_may_pickup_anytime_on_from_face_down_too() -> None:
    rules = STANDARD.with_rule("may_pickup_anytime", "on")
    state = position(rules, hands=[[], ["5"]], face_down=[["4", "5", "6"], []], pile=["K"])
    assert moves(state) == ["p:d:1", "p:d:2", "p:d:3", "t"]


def test_may_pickup_anytime_off_a_player_with_a_play_may_not_pick_up() -> None:
    state = position(STANDARD, hands=[["A", "4"], ["5"]], pile=["K"])
    assert "t" not in moves(state)
    with pytest.raises(IllegalMoveError):
        state.apply(0, "t")


def test_stock_gamble_legal_card_stays_on_the_pile_and_the_turn_passes() -> None:
    rules = STANDARD.with_rule("stock_gamble", "on")
    state = position(rules, hands=[["4", "5", "6"], ["7"], ["8"]], pile=["9"], stock=["3", "K"])
    assert "g" in moves(state)
    events = state.apply(0, "g")
    assert kinds(events) == ["Played"]
    assert events[0] == Played(seat=0, source="g", cards=(state.pile[-1],))
    assert pile(state) == ["9", "K"]
    assert len(state.stock) == 1
    assert hand(state, 0) == ["4", "5", "6"]
    assert state.to_act == 1


def test_stock_gamble_illegal_card_is_picked_up_with_the_pile() -> None:
    rules = STANDARD.with_rule("stock_gamble", "on")
    state = position(rules, hands=[["4", "5", "6"], ["7"], ["8"]], pile=["9"], stock=["K", "3"])
    events = state.apply(0, "g")
    assert kinds(events) == ["BlindFailed", "PickedUp"]
    failed = events[0]
    assert isinstance(failed, BlindFailed)
    assert failed.card.rank == 3
    assert events[1] == PickedUp(seat=0, amount=2, face_up=None)
    assert hand(state, 0) == ["3", "4", "5", "6", "9"]
    assert pile(state) == []
    assert state.to_act == 1


def test_stock_gamble_failed_is_a_pickup_so_pickup_then_play_applies() -> None:
    """Engine decision (shithead.py docstring)."""
    rules = STANDARD.with_rules({"stock_gamble": "on", "pickup_then_play": "on"})
    state = position(rules, hands=[["4", "5", "6"], ["7"]], pile=["9"], stock=["K", "3"])
    assert kinds(state.apply(0, "g")) == ["BlindFailed", "PickedUp"]
    assert state.to_act == 0


def test_stock_gamble_ten_burns_and_the_same_player_plays_again() -> None:
    rules = STANDARD.with_rule("stock_gamble", "on")
    state = position(rules, hands=[["4", "5", "6"], ["7"]], pile=["9"], stock=["K", "10"])
    events = state.apply(0, "g")
    assert kinds(events) == ["Played", "Burned"]
    assert state.to_act == 0


def test_stock_gamble_off_or_empty_stock_is_refused() -> None:
    state = position(STANDARD, hands=[["4", "5", "6"], ["7"]], pile=["9"], stock=["K"])
    assert "g" not in moves(state)
    with pytest.raises(IllegalMoveError):
        state.apply(0, "g")
    rules = STANDARD.with_rule("stock_gamble", "on")
    state = position(rules, hands=[["4", "5", "6"], ["7"]], pile=["9"])
    assert "g" not in moves(state)
    with pytest.raises(IllegalMoveError):
        state.apply(0, "g")


def test_lower_is_wild_on_a_seven_goes_on_a_king() -> None:
    rules = preset("classic").with_rule("lower_is_wild", "on")
    state = position(rules, hands=[["7", "4"], ["5"]], pile=["K"])
    assert playable(state) == {"7"}


def test_lower_is_wild_off_a_five_may_not_go_on_a_king() -> None:
    rules = preset("free").with_rule("lower_is_wild", "off")
    state = position(rules, hands=[["5", "4"], ["5"]], pile=["K"])
    assert playable(state) == set()


def test_toggles_are_house_rules_of_the_preset() -> None:
    rules = STANDARD.with_rules({"stock_gamble": "on", "8": "skip", "9": "reverse"})
    assert rules.house_rules() == {"stock_gamble": "on", "8": "skip", "9": "reverse"}
    assert rules.name == "standard"


# ----------------------------------------------------------------- presets are data


def test_presets_match_the_table_of_rules_md() -> None:
    def powers(name: str) -> dict[int, str]:
        return {r: p.value for r, p in preset(name).powers}

    assert powers("smelly") == {2: "reset", 3: "invisible", 10: "burn"}
    assert powers("classic") == {2: "reset", 7: "lower", 8: "invisible", 10: "burn"}
    assert powers("free") == {2: "reset", 5: "lower", 10: "burn"}
    assert powers("standard") == {2: "reset", 10: "burn"}
    assert [preset(n).lowest_plain_rank for n in ("smelly", "classic", "free", "standard")] == [4, 3, 3, 3]
    toggles = (
        "four_burns",
        "pickup_then_play",
        "faceup_pickup_takes_one",
        "may_pickup_anytime",
        "stock_gamble",
    )
    table = {n: tuple(getattr(preset(n), t) for t in toggles) for n in ("smelly", "classic", "free", "standard")}
    assert table == {
        "smelly": (True, True, True, False, False),
        "classic": (False, False, False, False, False),
        "free": (True, False, False, True, True),
        "standard": (True, False, False, False, False),
    }
    assert preset("classic").burn_on_lower is False
    assert preset("free").burn_on_lower is True
    assert preset("free").lower_is_wild is True
    assert preset("classic").lower_is_wild is False


def test_standard_with_classic_house_rules_is_classic() -> None:
    rules = STANDARD.with_rules({"7": "lower", "8": "invisible", "burn_on_lower": "off", "four_burns": "off"})
    assert replace(rules, name="classic") == preset("classic")


def test_standard_with_seven_lower_plays_like_classics_seven() -> None:
    rules = STANDARD.with_rules({"7": "lower", "burn_on_lower": "off"})
    everything_but_eight = [r for r in EVERY_RANK if r != "8"]
    mine = position(rules, hands=[everything_but_eight, ["5"]], pile=["7"])
    classic = position(preset("classic"), hands=[everything_but_eight, ["5"]], pile=["7"])
    assert playable(mine) == playable(classic) == {"2", "3", "4", "5", "6", "7"}


def test_rules_survive_to_dict_and_back() -> None:
    rules = preset("free").with_rules({"8": "skip", "decks": 2})
    assert Rules.from_dict(rules.to_dict()) == rules


# ----------------------------------------------------------------- §1.3 who starts


def start(rules: Rules, hands: list[list[str]], dealer: int = 0) -> tuple[PlayStarted, ShitheadState]:
    """Everybody declares ready from a swap-phase position; return PlayStarted and the state."""
    state = position(rules, hands=hands, dealer=dealer, phase="swap")
    events: list[Event] = []
    for seat in range(len(hands)):
        events = state.apply(seat, "r")
    started = events[-1]
    assert isinstance(started, PlayStarted)
    return started, state


def test_who_starts_lowest_plain_card_in_hand() -> None:
    started, _ = start(STANDARD, [["5", "9"], ["4", "K"], ["6", "A"]])
    assert started == PlayStarted(seat=1, rank=4)


def test_who_starts_smelly_searches_from_four_not_three() -> None:
    started, _ = start(preset("smelly"), [["3", "2"], ["5", "K"], ["4", "A"]])
    assert started == PlayStarted(seat=2, rank=4)


def test_who_starts_skips_ranks_with_a_power() -> None:
    started, _ = start(preset("classic"), [["7", "2", "10"], ["9", "K"], ["8", "J"]])
    assert started == PlayStarted(seat=1, rank=9)


def test_who_starts_tie_goes_to_the_first_seat_left_of_the_dealer() -> None:
    hands = [["3", "9"], ["3", "K"], ["3", "A"]]
    assert start(STANDARD, hands, dealer=0)[0] == PlayStarted(seat=1, rank=3)
    assert start(STANDARD, hands, dealer=1)[0] == PlayStarted(seat=2, rank=3)
    assert start(STANDARD, hands, dealer=2)[0] == PlayStarted(seat=0, rank=3)


def test_who_starts_the_dealer_starts_last_in_a_tie() -> None:
    started, _ = start(STANDARD, [["3", "9"], ["5", "K"], ["3", "A"]], dealer=2)
    assert started == PlayStarted(seat=0, rank=3)
    started, _ = start(STANDARD, [["3", "9"], ["5", "K"], ["3", "A"]], dealer=0)
    assert started == PlayStarted(seat=2, rank=3)


def test_who_starts_with_two_decks_same_card_twice() -> None:
    rules = STANDARD.with_rule("decks", 2)
    hands = [["3", "3", "3", "3", "9"], ["3", "3", "3", "3", "K"], ["5"]]
    started, state = start(rules, hands, dealer=1)
    assert started == PlayStarted(seat=0, rank=3)
    threes = [sorted(c.code() for c in state.hand_of(s) if c.rank == 3) for s in (0, 1)]
    assert threes[0] == threes[1]
    started, _ = start(rules, hands, dealer=0)
    assert started == PlayStarted(seat=1, rank=3)


def test_who_starts_the_first_play_must_include_that_rank() -> None:
    _, state = start(STANDARD, [["4", "4", "9"], ["5", "K"], ["6", "A"]])
    assert state.to_act == 0
    assert moves(state) == ["p:h:4:1", "p:h:4:2"]
    with pytest.raises(IllegalMoveError):
        state.apply(0, "p:h:9:1")
    state.apply(0, "p:h:4:2")
    assert state.to_act == 1
    assert state.view(1).required_rank is None


def test_who_starts_nobody_holds_a_plain_card_left_of_the_dealer_plays_anything() -> None:
    started, state = start(STANDARD, [["2", "10"], ["10", "2"], ["2", "2"]], dealer=1)
    assert started == PlayStarted(seat=2, rank=None)
    assert moves(state) == ["p:h:2:1", "p:h:2:2"]
    started, state = start(STANDARD, [["2", "10"], ["10", "2"], ["2", "10"]], dealer=0)
    assert started == PlayStarted(seat=1, rank=None)
    assert moves(state) == ["p:h:2:1", "p:h:10:1"]


def test_who_starts_in_a_dealt_game_holds_the_lowest_plain_card() -> None:
    for seed in range(20):
        state = new_game("shithead", STANDARD, seats=4, seed=seed, dealer=seed % 4)
        assert isinstance(state, ShitheadState)
        for seat in range(4):
            events = state.apply(seat, "r")
        started = events[-1]
        assert isinstance(started, PlayStarted)
        held = [{c.rank for c in state.hand_of(s)} for s in range(4)]
        lowest = min(r for ranks in held for r in ranks if r not in (2, 10))
        assert started.rank == lowest
        order = [(state.dealer + 1 + i) % 4 for i in range(4)]
        assert started.seat == next(s for s in order if lowest in held[s])


# ----------------------------------------------------------------- §1.4 sources


def test_sources_hand_first_while_it_holds_a_card() -> None:
    state = position(STANDARD, hands=[["5"], ["6"]], face_up=[["9"], []], face_down=[["K"], []])
    assert state.view(0).source is Source.HAND
    assert moves(state) == ["p:h:5:1"]
    with pytest.raises(IllegalMoveError):
        state.apply(0, "p:u:9:1")
    with pytest.raises(IllegalMoveError):
        state.apply(0, "p:d:1")


def test_sources_face_up_once_hand_and_stock_are_empty() -> None:
    state = position(STANDARD, hands=[[], ["6"]], face_up=[["9", "9", "4"], []], face_down=[["K"], []])
    assert state.view(0).source is Source.FACE_UP
    assert moves(state) == ["p:u:4:1", "p:u:9:1", "p:u:9:2"]
    with pytest.raises(IllegalMoveError):
        state.apply(0, "p:d:1")
    state.apply(0, "p:u:9:2")
    assert face_up(state, 0) == ["4"]


def test_sources_face_down_once_hand_and_face_up_are_empty() -> None:
    state = position(STANDARD, hands=[[], ["6"]], face_down=[["K", None, "4"], []], pile=["5"])
    assert state.view(0).source is Source.FACE_DOWN
    assert moves(state) == ["p:d:1", "p:d:3"]
    with pytest.raises(IllegalMoveError):
        state.apply(0, "p:h:K:1")
    with pytest.raises(CardNotOwnedError):
        state.apply(0, "p:d:2")


def test_a_play_is_one_or_more_cards_of_one_rank() -> None:
    state = position(STANDARD, hands=[["6", "6", "6", "7"], ["5"]], stock=[])
    assert moves(state) == ["p:h:6:1", "p:h:6:2", "p:h:6:3", "p:h:7:1"]


# ----------------------------------------------------------------- §1.5 refill


def test_refill_draws_up_to_three_after_a_play_from_hand() -> None:
    state = position(STANDARD, hands=[["5", "5", "9"], ["6"]], stock=["A", "K", "Q"])
    events = state.apply(0, "p:h:5:2")
    assert events[-1] == Drew(seat=0, amount=2)
    assert hand(state, 0) == ["9", "Q", "K"]
    assert [c.rank for c in state.stock] == [14]


def test_refill_stops_when_the_stock_is_empty() -> None:
    state = position(STANDARD, hands=[["5", "5", "9"], ["6"]], stock=["K"])
    events = state.apply(0, "p:h:5:2")
    assert events[-1] == Drew(seat=0, amount=1)
    assert hand(state, 0) == ["9", "K"]
    assert state.stock == []


def test_refill_nothing_while_the_hand_holds_three_or_more() -> None:
    state = position(STANDARD, hands=[["5", "6", "7", "8", "9"], ["6"]], stock=["K"])
    events = state.apply(0, "p:h:5:1")
    assert kinds(events) == ["Played"]
    assert len(state.stock) == 1


def test_refill_after_a_burn_before_playing_again() -> None:
    state = position(STANDARD, hands=[["10", "5", "6"], ["6"]], pile=["9"], stock=["K"])
    events = state.apply(0, "p:h:10:1")
    assert kinds(events) == ["Played", "Burned", "Drew"]
    assert state.to_act == 0
    assert hand(state, 0) == ["5", "6", "K"]


def test_no_draw_after_a_pickup() -> None:
    state = position(STANDARD, hands=[["4", "5", "6"], ["7"]], pile=["K"], stock=["9", "8"])
    events = state.apply(0, "t")
    assert kinds(events) == ["PickedUp"]
    assert len(state.stock) == 2
    assert hand(state, 0) == ["4", "5", "6", "K"]


# ----------------------------------------------------------------- face-down, blind by slot


def test_face_down_legal_card_is_played_with_its_effects() -> None:
    state = position(STANDARD, hands=[[], ["7"]], face_down=[["4", "10", "6"], []], pile=["Q"])
    events = state.apply(0, "p:d:2")
    assert kinds(events) == ["Played", "Burned"]
    assert events[0] == Played(seat=0, source="d", cards=(state.discard[-1],))
    assert state.face_down[0][1] is None
    assert state.to_act == 0
    assert moves(state) == ["p:d:1", "p:d:3"]


def test_face_down_illegal_card_goes_to_hand_with_the_pile() -> None:
    state = position(STANDARD, hands=[[], ["7"]], face_down=[["4", "10", "6"], []], pile=["9", "Q"])
    events = state.apply(0, "p:d:3")
    assert kinds(events) == ["BlindFailed", "PickedUp"]
    assert hand(state, 0) == ["6", "9", "Q"]
    assert [c is None for c in state.face_down[0]] == [False, False, True]
    assert state.to_act == 1
    assert state.view(0).source is Source.HAND


# ----------------------------------------------------------------- §1.10 going out, ranking, the end


def test_going_out_ranks_players_in_order() -> None:
    state = position(STANDARD, hands=[[], [], ["5"], ["6"]], face_up=[["K"], [], [], []], out=[1], pile=["9"])
    events = state.apply(0, "p:u:K:1")
    assert WentOut(seat=0, place=2) in events
    assert state.to_act == 2
    assert state.view(2).seats[0].place == 2


def test_the_last_player_holding_cards_is_the_loser() -> None:
    state = position(STANDARD, hands=[[], ["4"], []], face_down=[["K"], [], []], pile=["9"], out=[2])
    events = state.apply(0, "p:d:1")
    assert kinds(events) == ["Played", "WentOut", "GameOver"]
    assert events[-1] == GameOver(places=(2, 3, 1), winners=(2,), loser=1)
    assert state.is_over
    assert state.to_act is None
    assert state.outcome == Outcome(places=(2, 3, 1), winners=(2,), loser=1)
    assert state.outcome.ranking == (2, 0, 1)
    with pytest.raises(GameOverError):
        state.apply(1, "p:h:4:1")


def test_the_loser_title_follows_the_preset() -> None:
    assert preset("smelly").loser_title == "ShitSmelly Head"
    assert preset("standard").loser_title == "Shithead"


def test_forfeit_takes_the_worst_free_place_first_to_forfeit_is_last() -> None:
    state = position(STANDARD, hands=[["4"], ["5"], ["6"], ["7"]], to_act=0)
    assert state.apply(2, "f") == [Forfeited(seat=2, place=4)]
    assert state.apply(1, "f") == [Forfeited(seat=1, place=3)]
    assert state.to_act == 0


def test_forfeit_cards_leave_the_game() -> None:
    state = position(STANDARD, hands=[["4"], ["5", "9"], ["6"]], face_up=[[], ["K"], []], face_down=[[], ["A"], []])
    state.apply(1, "f")
    assert state.hand_of(1) == []
    assert state.face_up[1] == []
    assert state.face_down[1] == [None, None, None]
    assert len(state.discard) == 52 - 2
    assert sorted(all_cards(state)) == list(range(52))


def test_forfeit_by_the_seat_to_act_passes_the_turn() -> None:
    state = position(STANDARD, hands=[["4"], ["5"], ["6"]], pile=["3"], to_act=1)
    state.apply(1, "f")
    assert state.to_act == 2
    assert pile(state) == ["3"]


def test_forfeit_leaving_one_player_ends_the_game_with_no_loser() -> None:
    state = position(STANDARD, hands=[[], ["5"], ["6"], ["7"]], out=[0], to_act=1)
    state.apply(3, "f")
    events = state.apply(1, "f")
    assert events == [Forfeited(seat=1, place=3), GameOver(places=(1, 3, 2, 4), winners=(0,), loser=None)]
    assert state.outcome == Outcome(places=(1, 3, 2, 4), winners=(0,), loser=None)


def test_forfeit_last_player_standing_takes_the_best_free_place() -> None:
    state = position(STANDARD, hands=[["4"], ["5"], ["6"]])
    state.apply(0, "f")
    events = state.apply(2, "f")
    assert events[-1] == GameOver(places=(3, 1, 2), winners=(1,), loser=None)


def test_forfeit_of_the_starting_player_searches_the_start_again() -> None:
    state = position(STANDARD, hands=[["3", "9"], ["4", "K"], ["5", "A"]], phase="swap")
    for seat in range(3):
        state.apply(seat, "r")
    assert state.to_act == 0
    events = state.apply(0, "f")
    assert events[-1] == PlayStarted(seat=1, rank=4)
    assert moves(state) == ["p:h:4:1"]


def test_a_seat_out_of_the_game_may_not_forfeit() -> None:
    state = position(STANDARD, hands=[[], ["5"], ["6"]], out=[0], to_act=1)
    with pytest.raises(NotYourTurnError):
        state.apply(0, "f")


# ----------------------------------------------------------------- §1.1 deal, §1.2 swap phase


@pytest.mark.parametrize(("decks", "seats"), [(1, 2), (1, 5), (2, 6), (2, 10)])
def test_deal_three_face_down_three_face_up_three_in_hand(decks: int, seats: int) -> None:
    state = new_game("shithead", STANDARD.with_rule("decks", decks), seats=seats, seed=3)
    assert isinstance(state, ShitheadState)
    for seat in range(seats):
        assert len(state.hand_of(seat)) == 3
        assert len(state.face_up[seat]) == 3
        assert None not in state.face_down[seat]
    assert len(state.stock) == 52 * decks - 9 * seats
    assert sorted(all_cards(state)) == list(range(52 * decks))


def test_swap_phase_several_swaps_then_ready() -> None:
    state = position(STANDARD, hands=[["4", "5", "6"], ["7"]], face_up=[["K", "A", "Q"], ["8"]], phase="swap")
    assert state.seats_to_act() == [0, 1]
    assert "x:4:K" in moves(state, 0)
    events = state.apply(0, "x:4:K")
    assert kinds(events) == ["Swapped"]
    state.apply(0, "x:5:A")
    state.apply(0, "x:K:4")
    assert hand(state, 0) == ["4", "6", "A"]
    assert face_up(state, 0) == ["K", "5", "Q"]
    assert state.apply(0, "r") == [Readied(0)]
    assert state.phase.value == "swap"
    assert state.seats_to_act() == [1]
    with pytest.raises(NotYourTurnError):
        state.apply(0, "x:4:Q")


def test_swap_phase_play_starts_when_everybody_is_ready() -> None:
    state = position(STANDARD, hands=[["4", "5", "6"], ["7"]], face_up=[["K", "A", "Q"], ["8"]], phase="swap")
    state.apply(1, "r")
    assert state.phase.value == "swap"
    assert state.to_act is None
    events = state.apply(0, "r")
    assert events == [Readied(0), PlayStarted(seat=0, rank=4)]
    assert state.phase.value == "play"
    assert state.to_act == 0


def test_swap_phase_swap_of_cards_not_owned_is_rejected() -> None:
    state = position(STANDARD, hands=[["4", "5", "6"], ["7"]], face_up=[["K", "A", "Q"], ["8"]], phase="swap")
    with pytest.raises(CardNotOwnedError):
        state.apply(0, "x:9:K")
    with pytest.raises(CardNotOwnedError):
        state.apply(0, "x:4:9")
    with pytest.raises(IllegalMoveError):
        state.apply(0, "p:h:4:1")


def test_swap_phase_forfeit_of_the_last_unready_seat_starts_play() -> None:
    state = position(STANDARD, hands=[["4"], ["5"], ["6"]], phase="swap")
    state.apply(0, "r")
    state.apply(1, "r")
    events = state.apply(2, "f")
    assert events == [Forfeited(seat=2, place=3), PlayStarted(seat=0, rank=4)]
    assert state.phase.value == "play"


def test_rules_value_is_looked_up_never_the_preset_name() -> None:
    rules = replace(preset("classic"), name="smelly")
    state = position(rules, hands=[["10", "4"], ["5"]], pile=["7"])
    assert playable(state) == {"4"}
