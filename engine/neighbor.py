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
from typing import Any

from engine.cards import CARDS, Card
from engine.common import SCHEMA_VERSION, Outcome, Phase, checked_load
from engine.errors import (
    GameOverError,
    IllegalMoveError,
    NotYourTurnError,
    RulesError,
    SchemaError,
    UnknownSeatError,
)
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
from engine.moves import Forfeit, Keep, Move, Trade, parse_move
from engine.rules import NeighborRules
from engine.views import NeighborSeatInfo, NeighborView, SwapMemory

KING = 13
_KEEP, _TRADE = Keep(), Trade()


def neighbor_value(card: Card) -> int:
    """Rank order of this game: Ace lowest (1), then 2 … Q, King highest (13)."""
    rank = card.rank
    return 1 if rank == 14 else rank


class NeighborState:
    """One game of Shit On Your Neighbor. Create it with :meth:`new`."""

    kind = "neighbor"

    def __init__(self, rules: NeighborRules, seats: int, seed: int, dealer: int) -> None:
        self.rules = rules
        self.seed = seed
        self.seats = seats
        self.dealer = dealer
        self.stage = Phase.PLAY
        self.lives = [rules.lives] * seats
        self.places: list[int | None] = [None] * seats
        self.hand_number = 0
        self.cards: list[Card | None] = [None] * seats
        self.deck: list[Card] = []
        self.turn = -1
        self.acted = [False] * seats
        self.memories: list[list[SwapMemory]] = [[] for _ in range(seats)]
        self.blocked: list[tuple[int | None, Card]] = []
        self.last_reveal: list[Card | None] = [None] * seats
        self.moves_applied = 0

    @classmethod
    def new(cls, rules: NeighborRules, seats: int, seed: int, dealer: int = 0) -> NeighborState:
        if not rules.min_seats <= seats <= rules.max_seats:
            raise RulesError(
                f"{seats} seat{'' if seats == 1 else 's'}: this game takes {rules.min_seats}-{rules.max_seats} players"
            )
        if not 0 <= dealer < seats:
            raise UnknownSeatError(f"dealer {dealer} is not a seat of a {seats}-seat game")
        state = cls(rules, seats, seed, dealer)
        state._deal([])
        return state

    # ----------------------------------------------------------------- questions

    @property
    def phase(self) -> Phase:
        return self.stage

    @property
    def to_act(self) -> int | None:
        return self.turn if self.stage is Phase.PLAY else None

    @property
    def is_over(self) -> bool:
        return self.stage is Phase.OVER

    @property
    def outcome(self) -> Outcome | None:
        if self.stage is not Phase.OVER:
            return None
        places = tuple(p if p is not None else 1 for p in self.places)
        return Outcome(places, tuple(s for s in range(self.seats) if places[s] == 1), None)

    def active_seats(self) -> list[int]:
        return [s for s in range(self.seats) if self.lives[s] > 0]

    def seats_to_act(self) -> list[int]:
        return [self.turn] if self.stage is Phase.PLAY else []

    def legal_moves(self, seat: int) -> list[Move]:
        self._check_seat(seat)
        if self.stage is Phase.PLAY and seat == self.turn:
            return [_KEEP, _TRADE]
        return []

    def _check_seat(self, seat: int) -> None:
        if seat.__class__ is not int or not 0 <= seat < self.seats:
            raise UnknownSeatError(f"{seat!r} is not a seat of this {self.seats}-seat game")

    def _next_alive(self, seat: int) -> int:
        s = (seat + 1) % self.seats
        while self.lives[s] <= 0:
            s = (s + 1) % self.seats
        return s

    # ----------------------------------------------------------------- applying

    def apply(self, seat: int, move: Move | str) -> list[Event]:
        """Apply ``seat``'s move (``k`` keep, ``s`` swap/trade, ``f`` forfeit); see ShitheadState.apply."""
        if isinstance(move, str):
            move = parse_move(move)
        self._check_seat(seat)
        if self.stage is Phase.OVER:
            raise GameOverError(f"the game is over; {move} not accepted")
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
        self.stage = Phase.OVER
        self.turn = -1
        outcome = self.outcome
        assert outcome is not None
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

    def view(self, seat: int | None) -> NeighborView:
        if seat is not None:
            self._check_seat(seat)
        infos = tuple(
            NeighborSeatInfo(s, self.lives[s], self.lives[s] > 0, self.places[s], self.acted[s])
            for s in range(self.seats)
        )
        return NeighborView(
            seat=seat,
            phase=self.stage,
            rules=self.rules,
            hand_number=self.hand_number,
            dealer=self.dealer,
            to_act=self.to_act,
            seats=infos,
            card=None if seat is None else self.cards[seat],
            swaps=() if seat is None else tuple(self.memories[seat]),
            blocked=tuple(self.blocked),
            last_reveal=tuple(self.last_reveal),
            deck_count=len(self.deck),
            legal_moves=() if seat is None else tuple(self.legal_moves(seat)),
            outcome=self.outcome,
            neighbour=None if seat is None or self.lives[seat] <= 0 or self.is_over else self._next_alive(seat),
        )

    def copy(self) -> NeighborState:
        other = NeighborState.__new__(NeighborState)
        other.__dict__.update(self.__dict__)
        other.lives = self.lives[:]
        other.places = self.places[:]
        other.cards = self.cards[:]
        other.deck = self.deck[:]
        other.acted = self.acted[:]
        other.memories = [m[:] for m in self.memories]
        other.blocked = self.blocked[:]
        other.last_reveal = self.last_reveal[:]
        return other

    __copy__ = copy

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_VERSION,
            "kind": self.kind,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "seats": self.seats,
            "dealer": self.dealer,
            "phase": self.stage.value,
            "lives": self.lives[:],
            "places": self.places[:],
            "hand_number": self.hand_number,
            "cards": [None if c is None else int(c) for c in self.cards],
            "deck": [int(c) for c in self.deck],
            "turn": self.turn,
            "acted": self.acted[:],
            "memories": [[[m.other, int(m.gave), int(m.got)] for m in mems] for mems in self.memories],
            "blocked": [[s, int(c)] for s, c in self.blocked],
            "last_reveal": [None if c is None else int(c) for c in self.last_reveal],
            "moves_applied": self.moves_applied,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NeighborState:
        """Rebuild a state from :meth:`to_dict` data; raises SchemaError if it is not such data."""
        state: NeighborState = checked_load(cls, "neighbor", data, "Neighbor")
        return state

    @classmethod
    def _from_fields(cls, data: dict[str, Any]) -> NeighborState:
        def card(value: Any) -> Card | None:
            return None if value is None else CARDS[int(value)]

        state = cls(NeighborRules.from_dict(data["rules"]), int(data["seats"]), int(data["seed"]), int(data["dealer"]))
        state.stage = Phase(data["phase"])
        state.lives = [int(x) for x in data["lives"]]
        state.places = [None if p is None else int(p) for p in data["places"]]
        state.hand_number = int(data["hand_number"])
        state.cards = [card(c) for c in data["cards"]]
        state.deck = [CARDS[int(c)] for c in data["deck"]]
        state.turn = int(data["turn"])
        state.acted = [bool(a) for a in data["acted"]]
        state.memories = [
            [SwapMemory(o, CARDS[int(g)], CARDS[int(t)]) for o, g, t in mems] for mems in data["memories"]
        ]
        state.blocked = [(s, CARDS[int(c)]) for s, c in data["blocked"]]
        state.last_reveal = [card(c) for c in data["last_reveal"]]
        state.moves_applied = int(data["moves_applied"])
        if len(state.lives) != state.seats or len(state.cards) != state.seats:
            raise SchemaError("seat lists do not match the number of seats")
        if sorted([c for c in state.cards if c is not None] + state.deck) != list(range(52)):
            raise SchemaError("every card must be in exactly one place")
        if not 0 <= state.dealer < state.seats or not -1 <= state.turn < state.seats or min(state.lives) < 0:
            raise SchemaError("dealer, turn or lives out of range")
        return state

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NeighborState):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<NeighborState seats={self.seats} seed={self.seed} hand={self.hand_number} "
            f"phase={self.stage.value} to_act={self.to_act} lives={self.lives}>"
        )
