"""Views: what one seat may know (RULES.md §1.12 and §2.4), as plain frozen values.

A view never holds another seat's hand, any face-down card (the owner's included), the stock's
order or — in Neighbor — a card its seat has not seen. The bot renders views, never raw states, and
computer players decide from their own seat's view only.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import Card
from engine.common import Outcome, Phase
from engine.frozen import Frozen
from engine.moves import Move, Source
from engine.rules import NeighborRules, Rules


@dataclass(frozen=True)
class SeatInfo(Frozen):
    """What everybody may know of one Shithead seat."""

    seat: int
    face_up: tuple[Card, ...]
    hand_count: int
    face_down: tuple[bool, bool, bool]  # which slots (1-3) still hold a card
    ready: bool
    active: bool
    place: int | None
    forfeited: bool
    # Cards everybody saw this seat take into its hand (a pickup, a swap) and not seen leave it
    # since: public memory, as a careful player at the table would keep it.
    known_hand: tuple[Card, ...] = ()
    # Ranks none of its other hand cards has: it was forced to pick up, with nothing that fit, and
    # has drawn nothing unseen since.
    barred_ranks: tuple[int, ...] = ()

    @property
    def face_down_count(self) -> int:
        return sum(self.face_down)

    @property
    def card_count(self) -> int:
        return self.hand_count + len(self.face_up) + self.face_down_count


@dataclass(frozen=True)
class ShitheadView(Frozen):
    """One seat's view of a Shithead game (``seat`` None: a spectator, who sees no hand)."""

    seat: int | None
    phase: Phase
    rules: Rules
    dealer: int
    to_act: int | None
    direction: int
    seats: tuple[SeatInfo, ...]
    hand: tuple[Card, ...]
    pile: tuple[Card, ...]
    effective_top: int | None
    stock_count: int
    discard_count: int
    required_rank: int | None
    source: Source | None
    legal_moves: tuple[Move, ...]
    outcome: Outcome | None
    out: tuple[Card, ...] = ()  # the cards burned so far, which everybody saw go

    def cards(self) -> list[Card]:
        """Every card this view names (for privacy checks)."""
        found = list(self.hand) + list(self.pile) + list(self.out)
        for info in self.seats:
            found.extend(info.face_up)
            found.extend(info.known_hand)
        return found


@dataclass(frozen=True)
class SwapMemory(Frozen):
    """Neighbor: a swap this seat took part in, and the two cards it saw (``other`` None: the deck)."""

    other: int | None
    gave: Card
    got: Card


@dataclass(frozen=True)
class NeighborSeatInfo(Frozen):
    seat: int
    lives: int
    active: bool
    place: int | None
    has_acted: bool


@dataclass(frozen=True)
class NeighborView(Frozen):
    """One seat's view of a Neighbor game."""

    seat: int | None
    phase: Phase
    rules: NeighborRules
    hand_number: int
    dealer: int
    to_act: int | None
    seats: tuple[NeighborSeatInfo, ...]
    card: Card | None
    swaps: tuple[SwapMemory, ...]
    blocked: tuple[tuple[int | None, Card], ...]
    last_reveal: tuple[Card | None, ...]
    deck_count: int
    legal_moves: tuple[Move, ...]
    outcome: Outcome | None
    neighbour: int | None = None  # the next seat still in, to this seat's left: whom a swap goes to

    def cards(self) -> list[Card]:
        """Every card this view names (for privacy checks)."""
        found = [] if self.card is None else [self.card]
        for memory in self.swaps:
            found.extend((memory.gave, memory.got))
        found.extend(card for _, card in self.blocked)
        found.extend(c for c in self.last_reveal if c is not None)
        return found
