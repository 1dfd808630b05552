"""Shit On Your Neighbor (RULES.md Part 2): lives, one card each, keep or swap left, King blocks.

Each hand is shuffled from its own seeded RNG (the game's seed and the hand's number), so the
state needs no RNG of its own and replays exactly.

Decided here (RULES.md leaves these open):

* Players knocked out on the same hand share a place (the best of the places they span).
* A forfeit takes the worst free place. A hand in progress is then void and dealt again (by the
  next player in if the dealer left), since the order of swaps no longer holds.
"""

from __future__ import annotations

import random
from typing import Any, Final

from engine.cards import CARDS, Card
from engine.common import OVER_PHASE, PLAY_PHASE, Outcome, check_deal
from engine.errors import IllegalMoveError, NotYourTurnError, SchemaError
from engine.events import (
    Blocked,
    Eliminated,
    Event,
    Forfeited,
    GameOver,
    HandDealt,
    HandVoided,
    Kept,
    LifeLost,
    Revealed,
    Traded,
)
from engine.generated.neighbor import NeighborFields
from engine.moves import Forfeit, Keep, Move, Trade, parse_move
from engine.rules import NeighborRules
from engine.views import NeighborSeatInfo, NeighborView, SwapMemory

KING: Final = 13
_KEEP: Final = Keep()
_TRADE: Final = Trade()


def neighbor_value(card: Card) -> int:
    """Rank order of this game: Ace lowest (1), then 2 … Q, King highest (13)."""
    rank = card.rank
    return 1 if rank == 14 else rank


class NeighborState(NeighborFields):
    """One game of Shit On Your Neighbor. Create it with :meth:`new`."""

    kind = "neighbor"

    def copy(self) -> NeighborState:
        """An independent copy (cheap: lists of numbers and cards only)."""
        return self._copy_into(NeighborState())

    # ----------------------------------------------------------------- creation

    @classmethod
    def new(cls, rules: NeighborRules, seats: int, seed: int, dealer: int = 0) -> NeighborState:
        """Deal the first hand: one card each, from the left of the dealer."""
        check_deal(rules, seats, dealer)
        state = cls()
        state._init_fields(rules, seats, seed, dealer)
        state._deal([])
        return state

    # ----------------------------------------------------------------- questions

    def _outcome(self) -> Outcome:
        places = tuple(p if p is not None else 1 for p in self.places)
        return Outcome(places, tuple(s for s in range(self.seats) if places[s] == 1), None)

    def active_seats(self) -> list[int]:
        return [s for s in range(self.seats) if self.lives[s] > 0]

    def seats_to_act(self) -> list[int]:
        return [self.turn] if self.stage is PLAY_PHASE else []

    def legal_moves(self, seat: Any) -> list[Move]:
        """Keep and swap for the seat to act; nothing for the others. Forfeit is always allowed too."""
        self._check_seat(seat)
        if self.stage is PLAY_PHASE and seat == self.turn:
            return [_KEEP, _TRADE]
        return []

    def _next_alive(self, seat: int) -> int:
        s = (seat + 1) % self.seats
        while self.lives[s] <= 0:
            s = (s + 1) % self.seats
        return s

    # ----------------------------------------------------------------- applying

    def apply(self, seat: Any, move: Move | str) -> list[Event]:
        """Apply ``seat``'s move (``k`` keep, ``s`` swap/trade, ``f`` forfeit); see ShitheadState.apply."""
        if isinstance(move, str):
            move = parse_move(move)
        self._check_move(seat, move)
        if isinstance(move, Forfeit):
            return self._forfeit(seat)
        if seat != self.turn:
            raise NotYourTurnError(f"seat {seat} is not to act (seat {self.turn} is)")
        if not isinstance(move, Keep | Trade):
            raise IllegalMoveError(f"{move} is not a move of Neighbor (keep k or swap s)")
        events: list[Event] = []
        if isinstance(move, Trade):
            self._trade(seat, events)
        else:
            events.append(Kept(seat))
        self.acted[seat] = True
        self.moves_applied += 1
        if seat == self.dealer:
            self._end_hand(events)
        else:
            self.turn = self._next_alive(seat)
        return events

    def _trade(self, seat: int, events: list[Event]) -> None:
        mine = self.cards[seat]
        assert mine is not None
        if seat == self.dealer:
            top = self.deck[-1]
            if top.rank == KING:
                self.blocked.append((None, top))
                events.append(Blocked(seat, None, top))
                return
            self.deck.pop()
            self.deck.insert(0, mine)
            self.cards[seat] = top
            self.memories[seat].append(SwapMemory(None, mine, top))
            events.append(Traded(seat, None))
            return
        other = self._next_alive(seat)
        theirs = self.cards[other]
        assert theirs is not None
        if theirs.rank == KING:
            self.blocked.append((other, theirs))
            events.append(Blocked(seat, other, theirs))
            return
        self.cards[seat], self.cards[other] = theirs, mine
        self.memories[seat].append(SwapMemory(other, mine, theirs))
        self.memories[other].append(SwapMemory(seat, theirs, mine))
        events.append(Traded(seat, other))

    def _end_hand(self, events: list[Event]) -> None:
        """Reveal, take a life from every lowest card, knock out, then deal again or finish."""
        alive = self.active_seats()
        revealed = tuple(self.cards)
        events.append(Revealed(revealed))
        self.last_reveal = list(revealed)
        lowest = min(neighbor_value(c) for s in alive if (c := self.cards[s]) is not None)
        losers = [s for s in alive if (c := self.cards[s]) is not None and neighbor_value(c) == lowest]
        for s in losers:
            self.lives[s] -= 1
            events.append(LifeLost(s, self.lives[s]))
        out = [s for s in losers if self.lives[s] == 0]
        still_in = len(alive) - len(out)
        place = still_in + 1 if still_in else 1  # all out at once: they share the win
        for s in out:
            self.places[s] = place
            events.append(Eliminated(s, place))
        if still_in <= 1:
            self._finish(events)
            return
        self.dealer = self._next_alive(self.dealer)
        self._deal(events)

    def _finish(self, events: list[Event]) -> None:
        for s in self.active_seats():
            self.places[s] = 1
        self.stage = OVER_PHASE
        self.turn = -1
        outcome = self._outcome()
        events.append(GameOver(outcome.places, outcome.winners, None))

    def _deal(self, events: list[Event]) -> None:
        self.hand_number += 1
        deck = list(CARDS[:52])
        random.Random(f"{self.seed}/{self.hand_number}").shuffle(deck)
        self.cards = [None] * self.seats
        first = self._next_alive(self.dealer)
        s = first
        while True:
            self.cards[s] = deck.pop()
            if s == self.dealer:
                break
            s = self._next_alive(s)
        self.deck = deck
        self.acted = [False] * self.seats
        self.memories = [[] for _ in range(self.seats)]
        self.blocked = []
        self.turn = first
        events.append(HandDealt(self.hand_number, self.dealer))

    def _forfeit(self, seat: int) -> list[Event]:
        if self.lives[seat] <= 0:
            raise NotYourTurnError(f"seat {seat} is no longer in the game")
        unplaced = sum(p is None for p in self.places)
        self.lives[seat] = 0
        self.places[seat] = unplaced
        events: list[Event] = [Forfeited(seat, unplaced)]
        self.moves_applied += 1
        if len(self.active_seats()) <= 1:
            self._finish(events)
            return events
        events.append(HandVoided(seat))
        if seat == self.dealer:
            self.dealer = self._next_alive(seat)
        self._deal(events)
        return events

    # ----------------------------------------------------------------- views and copies

    def view(self, seat: Any) -> NeighborView:
        """What ``seat`` may know (None: a spectator)."""
        basics = self._view_basics(seat)
        infos = tuple(
            NeighborSeatInfo(s, self.lives[s], self.lives[s] > 0, self.places[s], self.acted[s])
            for s in range(self.seats)
        )
        return NeighborView(
            **basics,
            rules=self.rules,
            hand_number=self.hand_number,
            seats=infos,
            card=None if seat is None else self.cards[seat],
            swaps=() if seat is None else tuple(self.memories[seat]),
            blocked=tuple(self.blocked),
            last_reveal=tuple(self.last_reveal),
            deck_count=len(self.deck),
            neighbour=None if seat is None or self.lives[seat] <= 0 or self.is_over else self._next_alive(seat),
        )

    def _repr_details(self) -> str:
        return f" hand={self.hand_number} lives={self.lives}"

    def _load(self, data: dict[str, Any]) -> None:
        """Every field from :meth:`to_dict` data; SchemaError unless they make a game."""
        rules = NeighborRules.from_dict(data["rules"])
        self._init_fields(rules, int(data["seats"]), int(data["seed"]), int(data["dealer"]))
        self._load_fields(data)
        seats = self.seats
        if len(self.lives) != seats or len(self.cards) != seats:
            raise SchemaError("seat lists do not match the number of seats")
        if sorted([c for c in self.cards if c is not None] + self.deck) != list(range(52)):
            raise SchemaError("every card must be in exactly one place")
        if not 0 <= self.dealer < seats or not -1 <= self.turn < seats or min(self.lives) < 0:
            raise SchemaError("dealer, turn or lives out of range")
