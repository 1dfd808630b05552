"""Build game positions for rules tests from rank texts.

>>> from engine import preset
>>> state = position(preset("smelly"), hands=[["Q", "4"], ["5"]], pile=["Q", "3"])
>>> moves(state)
['p:h:Q:1']

Cards are given by rank (``"Q"``, ``"10"``); suits are handed out in order (clubs, diamonds,
hearts, spades, then a second deck when a rank is needed more than four times, in which case the
rules get ``decks=2``). Every card not placed goes to the discard, so each card is somewhere.
Piles and the stock are listed bottom to top: the last stock card is the one drawn first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from engine import (
    SCHEMA_VERSION,
    Card,
    Event,
    NeighborRules,
    NeighborState,
    Power,
    Rules,
    ShitheadState,
    parse_rank,
    rank_text,
)

Ranks = Sequence[str]


class _Cards:
    """Hands out distinct card ids of a rank: ``deck * 52 + suit * 13 + (rank - 2)``."""

    def __init__(self, decks: int) -> None:
        self.decks = decks
        self.used: set[int] = set()

    def take(self, text: str) -> int:
        rank = parse_rank(text)
        for deck in range(self.decks):
            for suit in range(4):
                card = deck * 52 + suit * 13 + rank - 2
                if card not in self.used:
                    self.used.add(card)
                    return card
        raise ValueError(f"no {text} left in {self.decks} deck(s)")

    def many(self, texts: Iterable[str]) -> list[int]:
        return [self.take(t) for t in texts]

    def rest(self) -> list[int]:
        return [c for c in range(52 * self.decks) if c not in self.used]


def effective_top(rules: Rules, pile: Ranks) -> int:
    """RULES.md §1.6: the top rank of the pile ignoring invisible cards (0: none)."""
    for text in reversed(pile):
        rank = parse_rank(text)
        if rules.power(rank) is not Power.INVISIBLE:
            return rank
    return 0


def position(
    rules: Rules,
    hands: Sequence[Ranks],
    *,
    face_up: Sequence[Ranks] | None = None,
    face_down: Sequence[Sequence[str | None]] | None = None,
    pile: Ranks = (),
    stock: Ranks = (),
    to_act: int = 0,
    dealer: int = 0,
    direction: int = 1,
    out: Sequence[int] = (),
    forfeited: Sequence[int] = (),
    required: str | None = None,
    phase: str = "play",
) -> ShitheadState:
    """A Shithead state; ``out`` lists seats already out (in order), ``phase`` may be ``"swap"``."""
    seats = len(hands)
    up: list[Ranks] = list(face_up) if face_up is not None else [[] for _ in range(seats)]
    down: list[list[str | None]] = [list(fd) + [None] * (3 - len(fd)) for fd in face_down or [[]] * seats]
    every = [t for group in (*hands, *up, *down, pile, stock) for t in group if t is not None]
    if rules.decks == 1 and max(Counter(parse_rank(t) for t in every).values(), default=0) > 4:
        rules = rules.with_rule("decks", 2)
    cards = _Cards(rules.decks)
    swapping = phase == "swap"
    data: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "kind": "shithead",
        "rules": rules.to_dict(),
        "seed": 0,
        "seats": seats,
        "dealer": dealer,
        "phase": phase,
        "hands": [cards.many(h) for h in hands],
        "face_up": [cards.many(u) for u in up],
        "face_down": [[None if t is None else cards.take(t) for t in fd] for fd in down],
        "pile": cards.many(pile),
        "stock": cards.many(stock),
        "top": effective_top(rules, pile),
        "turn": -1 if swapping else to_act,
        "direction": direction,
        "active": [s not in out and s not in forfeited for s in range(seats)],
        "ready": [not swapping] * seats,
        "finished": list(out),
        "forfeited": list(forfeited),
        "required": parse_rank(required) if required else 0,
        "loser": -1,
        "moves_applied": 0,
    }
    data["discard"] = cards.rest()
    return ShitheadState.from_dict(data)


def neighbor_table(
    cards: Sequence[str | None],
    *,
    deck_top: str = "9",
    dealer: int = 0,
    lives: Sequence[int] | None = None,
    rules: NeighborRules | None = None,
) -> NeighborState:
    """A Neighbor hand just dealt: one card per seat (None: a seat out of the game)."""
    rules = rules or NeighborRules()
    seats = len(cards)
    pool = _Cards(1)
    dealt = [None if t is None else pool.take(t) for t in cards]
    top = pool.take(deck_top)
    lives = list(lives) if lives is not None else [0 if t is None else rules.lives for t in cards]
    first = next(s % seats for s in range(dealer + 1, dealer + 1 + seats) if lives[s % seats] > 0)
    out = [s for s in range(seats) if lives[s] <= 0]
    data: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "kind": "neighbor",
        "rules": rules.to_dict(),
        "seed": 0,
        "seats": seats,
        "dealer": dealer,
        "phase": "play",
        "lives": lives,
        "places": [seats - out.index(s) if s in out else None for s in range(seats)],
        "hand_number": 1,
        "cards": dealt,
        "deck": [*pool.rest(), top],
        "turn": first,
        "acted": [False] * seats,
        "memories": [[] for _ in range(seats)],
        "blocked": [],
        "last_reveal": [None] * seats,
        "moves_applied": 0,
    }
    return NeighborState.from_dict(data)


# ----------------------------------------------------------------- reading a state back


def ranks(cards: Iterable[Card | None]) -> list[str]:
    """Rank texts of cards, in the same order (None stays None)."""
    return [rank_text(c.rank) if c is not None else "-" for c in cards]


def hand(state: ShitheadState, seat: int) -> list[str]:
    """A seat's hand as sorted rank texts (low to high)."""
    cards = sorted(state.hand_of(seat), key=lambda c: c.rank)
    return ranks(cards)


def pile(state: ShitheadState) -> list[str]:
    return ranks(state.pile)


def face_up(state: ShitheadState, seat: int) -> list[str]:
    return ranks(state.face_up[seat])


def moves(state: ShitheadState | NeighborState, seat: int | None = None) -> list[str]:
    """The legal move texts of ``seat`` (default: the seat to act)."""
    seat = state.to_act if seat is None else seat
    assert seat is not None
    return [str(m) for m in state.legal_moves(seat)]


def playable(state: ShitheadState) -> set[str]:
    """The ranks the seat to act may play now (from hand or face-up)."""
    return {m.split(":")[2] for m in moves(state) if m.startswith(("p:h:", "p:u:"))}


def kinds(events: Iterable[Event]) -> list[str]:
    """The event type names, in order."""
    return [type(e).__name__ for e in events]


def all_cards(state: ShitheadState) -> list[int]:
    """Every card id the state holds, wherever it is (for conservation checks)."""
    found = [int(c) for s in range(state.seats) for c in state.hand_of(s)]
    found += [int(c) for up in state.face_up for c in up]
    found += [int(c) for fd in state.face_down for c in fd if c is not None]
    found += [int(c) for c in (*state.stock, *state.pile, *state.discard)]
    return found
