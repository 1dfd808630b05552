"""RULES.md Part 2: Shit On Your Neighbor."""

from __future__ import annotations

import random

import pytest

from engine import NeighborRules, NeighborState, NotYourTurnError, Outcome, RulesError, new_game
from engine.events import (
    Blocked,
    Eliminated,
    Forfeited,
    GameOver,
    HandDealt,
    HandVoided,
    Kept,
    LifeLost,
    Revealed,
    Traded,
)
from tests.engine.helpers import kinds, moves, neighbor_table, ranks


def neighbor(seats: int, seed: int = 0, dealer: int = 0, lives: int = 3) -> NeighborState:
    state = new_game("neighbor", NeighborRules(lives=lives), seats=seats, seed=seed, dealer=dealer)
    assert isinstance(state, NeighborState)
    return state


def card_ranks(state: NeighborState) -> list[str]:
    return ranks(state.cards)


def lives(state: NeighborState) -> list[int]:
    return [info.lives for info in state.view(None).seats]


# ----------------------------------------------------------------- §2.1 setup


def test_lives_three_by_default() -> None:
    assert lives(neighbor(4)) == [3, 3, 3, 3]


def test_lives_four_as_an_option() -> None:
    assert lives(neighbor(4, lives=4)) == [4, 4, 4, 4]
    assert NeighborRules().with_rule("lives", "4") == NeighborRules(lives=4)


def test_lives_other_than_three_or_four_are_refused() -> None:
    with pytest.raises(RulesError):
        NeighborRules(lives=5)
    with pytest.raises(RulesError):
        NeighborRules().with_rule("lives", "two")


@pytest.mark.parametrize(("seats", "allowed"), [(1, False), (2, True), (20, True), (21, False)])
def test_two_to_twenty_players(seats: int, allowed: bool) -> None:
    if allowed:
        assert neighbor(seats).seats == seats
    else:
        with pytest.raises(RulesError):
            neighbor(seats)


# ----------------------------------------------------------------- §2.2 a hand


def test_one_card_each_dealt_face_down() -> None:
    state = neighbor(5, seed=11)
    dealt = [state.view(s).card for s in range(5)]
    assert None not in dealt
    assert len(set(dealt)) == 5
    assert state.view(0).deck_count == 47


def test_each_hand_is_dealt_from_a_fresh_deck() -> None:
    state = neighbor(3, seed=2)
    first = list(state.cards)
    for _ in range(3):
        events = state.apply(state.to_act, "k")  # type: ignore[arg-type]
    assert HandDealt(hand=2, dealer=1) in events
    assert state.view(0).deck_count == 49
    assert state.cards != first


def test_turns_start_left_of_the_dealer_and_the_dealer_acts_last() -> None:
    state = neighbor(4, dealer=2)
    order = []
    while state.view(None).hand_number == 1:
        order.append(state.to_act)
        state.apply(state.to_act, "k")  # type: ignore[arg-type]
    assert order == [3, 0, 1, 2]


def test_keep_leaves_the_cards_as_they_are() -> None:
    state = neighbor_table(["5", "8", "K"])
    assert moves(state) == ["k", "s"]
    assert state.apply(1, "k") == [Kept(1)]
    assert card_ranks(state) == ["5", "8", "K"]
    assert state.to_act == 2


def test_swap_exchanges_cards_with_the_next_player_left() -> None:
    state = neighbor_table(["5", "3", "8", "J"])
    assert state.apply(1, "s") == [Traded(seat=1, neighbour=2)]
    assert card_ranks(state) == ["5", "8", "3", "J"]
    assert state.to_act == 2


def test_swap_by_the_player_before_the_dealer_is_with_the_dealer() -> None:
    state = neighbor_table(["J", "5", "6", "2"], dealer=0)
    state.apply(1, "k")
    state.apply(2, "k")
    assert state.apply(3, "s") == [Traded(seat=3, neighbour=0)]
    assert card_ranks(state) == ["2", "5", "6", "J"]
    assert state.to_act == 0


def test_swap_passes_over_players_out_of_the_game() -> None:
    state = neighbor_table(["J", "5", None, "8"])
    assert state.apply(1, "s") == [Traded(seat=1, neighbour=3)]
    assert card_ranks(state) == ["J", "8", "-", "5"]
    assert state.to_act == 3


def test_a_king_blocks_the_swap_and_is_shown() -> None:
    state = neighbor_table(["5", "3", "K", "J"])
    king = state.cards[2]
    assert king is not None
    events = state.apply(1, "s")
    assert events == [Blocked(seat=1, neighbour=2, king=king)]
    assert card_ranks(state) == ["5", "3", "K", "J"]
    for seat in (None, 0, 1, 2, 3):
        assert state.view(seat).blocked == ((2, king),)


def test_the_dealer_trades_with_the_top_card_of_the_deck() -> None:
    state = neighbor_table(["4", "9", "J"], deck_top="Q")
    state.apply(1, "k")
    state.apply(2, "k")
    events = state.apply(0, "s")
    assert events[0] == Traded(seat=0, neighbour=None)
    assert kinds(events)[:2] == ["Traded", "Revealed"]
    assert isinstance(events[1], Revealed)
    assert ranks(events[1].cards) == ["Q", "9", "J"]


def test_a_king_on_top_of_the_deck_blocks_the_dealer() -> None:
    state = neighbor_table(["4", "9", "J"], deck_top="K")
    king = state.deck[-1]
    state.apply(1, "k")
    state.apply(2, "k")
    events = state.apply(0, "s")
    assert events[0] == Blocked(seat=0, neighbour=None, king=king)
    assert isinstance(events[1], Revealed)
    assert ranks(events[1].cards) == ["4", "9", "J"]
    assert events[2] == LifeLost(seat=0, lives=2)


def test_reveal_shows_every_card_when_the_dealer_has_acted() -> None:
    state = neighbor_table(["7", "9", None, "J"], lives=[3, 3, 0, 3])
    state.apply(1, "k")
    state.apply(3, "k")
    events = state.apply(0, "k")
    assert kinds(events)[:2] == ["Kept", "Revealed"]
    assert isinstance(events[1], Revealed)
    assert ranks(events[1].cards) == ["7", "9", "-", "J"]
    for seat in (None, 0, 1, 3):
        assert ranks(state.view(seat).last_reveal) == ["7", "9", "-", "J"]


def finish_hand(state: NeighborState) -> list[object]:
    """Everybody keeps; the events of the dealer's move (the reveal and after)."""
    while True:
        dealer = state.dealer
        seat = state.to_act
        assert seat is not None
        events = state.apply(seat, "k")
        if seat == dealer:
            return list(events)


def test_ace_is_lowest_and_loses_a_life() -> None:
    state = neighbor_table(["2", "A", "3"])
    events = finish_hand(state)
    assert [e for e in events if isinstance(e, LifeLost)] == [LifeLost(seat=1, lives=2)]
    assert lives(state) == [3, 2, 3]


def test_king_is_highest() -> None:
    state = neighbor_table(["K", "Q", "A"])
    events = finish_hand(state)
    assert [e for e in events if isinstance(e, LifeLost)] == [LifeLost(seat=2, lives=2)]


def test_every_player_with_the_lowest_rank_loses_a_life() -> None:
    state = neighbor_table(["4", "9", "4", "4"])
    events = finish_hand(state)
    lost = [e for e in events if isinstance(e, LifeLost)]
    assert lost == [LifeLost(0, 2), LifeLost(2, 2), LifeLost(3, 2)]


def test_a_player_at_zero_lives_is_out() -> None:
    state = neighbor_table(["3", "9", "J"], lives=[1, 3, 3])
    events = finish_hand(state)
    assert LifeLost(seat=0, lives=0) in events
    assert Eliminated(seat=0, place=3) in events
    assert state.cards[0] is None
    assert state.view(None).seats[0].active is False
    assert state.to_act == 2  # dealer moved to seat 1, seat 2 is left of it


def test_players_knocked_out_on_the_same_hand_share_a_place() -> None:
    state = neighbor_table(["3", "3", "J", "Q"], lives=[1, 1, 3, 3])
    events = finish_hand(state)
    assert Eliminated(seat=0, place=3) in events
    assert Eliminated(seat=1, place=3) in events


def test_the_dealer_moves_to_the_next_player_still_in() -> None:
    state = neighbor_table(["9", "3", "J", "Q"], lives=[3, 1, 3, 3], dealer=0)
    events = finish_hand(state)
    assert events[-1] == HandDealt(hand=2, dealer=2)
    assert state.dealer == 2
    assert state.to_act == 3


def test_a_dealer_knocked_out_hands_the_deal_to_the_next_player_still_in() -> None:
    state = neighbor_table(["2", "J", "Q", "9"], lives=[1, 3, 3, 3], dealer=0)
    events = finish_hand(state)
    assert Eliminated(seat=0, place=4) in events
    assert events[-1] == HandDealt(hand=2, dealer=1)
    assert state.to_act == 2


def test_the_dealer_role_skips_players_already_out() -> None:
    state = neighbor_table(["9", None, "5", "Q"], lives=[3, 0, 3, 3], dealer=0)
    events = finish_hand(state)
    assert events[-1] == HandDealt(hand=2, dealer=2)


def test_the_last_player_with_lives_wins() -> None:
    state = neighbor_table(["3", "9", None], lives=[1, 2, 0])
    events = finish_hand(state)
    assert events[-1] == GameOver(places=(2, 1, 3), winners=(1,), loser=None)
    assert state.is_over
    assert state.outcome == Outcome(places=(2, 1, 3), winners=(1,), loser=None)


def test_last_players_losing_their_final_life_together_share_the_win() -> None:
    state = neighbor_table(["5", "5", None], lives=[1, 1, 0])
    events = finish_hand(state)
    assert Eliminated(seat=0, place=1) in events
    assert Eliminated(seat=1, place=1) in events
    assert events[-1] == GameOver(places=(1, 1, 3), winners=(0, 1), loser=None)


def test_a_finished_game_takes_no_more_moves() -> None:
    state = neighbor_table(["3", "9"], lives=[1, 1])
    finish_hand(state)
    assert state.legal_moves(0) == []
    assert state.legal_moves(1) == []


def test_forfeit_takes_the_worst_free_place_and_the_hand_is_dealt_again() -> None:
    """Engine decision (neighbor.py docstring): a forfeit voids the hand in progress."""
    state = neighbor_table(["3", "9", "J", "Q"], dealer=0)
    state.apply(1, "k")
    events = state.apply(0, "f")
    assert kinds(events) == ["Forfeited", "HandVoided", "HandDealt"]
    assert events[:2] == [Forfeited(seat=0, place=4), HandVoided(seat=0)]
    assert state.dealer == 1
    assert state.to_act == 2


def test_only_the_seat_to_act_may_keep_or_swap() -> None:
    state = neighbor_table(["3", "9", "J"])
    assert moves(state, 2) == []
    with pytest.raises(NotYourTurnError):
        state.apply(2, "k")


# ----------------------------------------------------------------- §2.4 what each seat may know


def test_a_seat_sees_its_own_card_and_no_other() -> None:
    state = neighbor_table(["3", "9", "J"])
    for seat in range(3):
        view = state.view(seat)
        assert view.card == state.cards[seat]
        assert view.cards() == [state.cards[seat]]
    assert state.view(None).cards() == []


def test_both_players_of_a_swap_learn_the_cards_nobody_else_does() -> None:
    state = neighbor_table(["3", "9", "J", "Q"])
    state.apply(1, "s")
    nine, jack = state.cards[2], state.cards[1]
    assert set(state.view(1).cards()) == {nine, jack}
    assert set(state.view(2).cards()) == {nine, jack}
    assert state.view(3).cards() == [state.cards[3]]
    assert state.view(0).cards() == [state.cards[0]]
    assert state.view(None).cards() == []


def test_the_dealers_card_from_the_deck_is_shown_at_the_reveal() -> None:
    state = neighbor_table(["4", "9"], deck_top="J", lives=[3, 3])
    state.apply(1, "k")
    nine = state.cards[1]
    jack = state.deck[-1]
    events = state.apply(0, "s")
    assert events[1] == Revealed((jack, nine))


def test_events_name_no_card_but_blocked_kings_and_the_reveal() -> None:
    for seed in range(40):
        state = neighbor(4, seed=seed)
        rng = random.Random(seed)
        while not state.is_over:
            seat = state.to_act
            assert seat is not None
            for event in state.apply(seat, rng.choice(["k", "s"])):
                if isinstance(event, Blocked):
                    assert event.king.rank == 13
                elif not isinstance(event, Revealed):
                    assert "card_of" not in repr(event)


class Knowledge:
    """What each seat has legitimately seen in this hand, followed from the events alone.

    The dealer's trade with the deck ends the hand, so its card is public at once (the reveal)."""

    def __init__(self, state: NeighborState) -> None:
        self.reveal: set[int] = set()
        self.new_hand(state)

    def new_hand(self, state: NeighborState) -> None:
        self.public: set[int] = set(self.reveal)
        self.private = [{int(c)} if c is not None else set() for c in state.cards]

    def seen(self, seat: int | None) -> set[int]:
        return self.public if seat is None else self.public | self.private[seat]

    def follow(self, before: list[int | None], state: NeighborState, events: list[object]) -> None:
        for event in events:
            if isinstance(event, Traded) and event.neighbour is not None:
                pair = {before[event.seat], before[event.neighbour]}
                self.private[event.seat] |= pair  # type: ignore[arg-type]
                self.private[event.neighbour] |= pair  # type: ignore[arg-type]
            elif isinstance(event, Blocked):
                self.public.add(int(event.king))
            elif isinstance(event, Revealed):
                self.reveal = {int(c) for c in event.cards if c is not None}
                self.public |= self.reveal
            elif isinstance(event, HandDealt | HandVoided):
                self.new_hand(state)


@pytest.mark.parametrize("seats", [2, 3, 5, 9])
def test_views_never_contain_a_card_the_seat_has_not_seen(seats: int) -> None:
    for seed in range(25):
        state = neighbor(seats, seed=seed, dealer=seed % seats)
        knowledge = Knowledge(state)
        rng = random.Random(seed)
        while not state.is_over:
            seat = state.to_act
            assert seat is not None
            before = [None if c is None else int(c) for c in state.cards]
            move = "f" if rng.random() < 0.01 else rng.choice(["k", "s"])
            knowledge.follow(before, state, list(state.apply(seat, move)))
            for viewer in (None, *range(seats)):
                view = state.view(viewer)
                assert {int(c) for c in view.cards()} <= knowledge.seen(viewer)
                assert [i.lives for i in view.seats] == [max(x, 0) for x in state.lives]
