"""Neighbor for the ``hard`` level: the rest of the hand played out over sampled deals.

Only the cards it knows are placed: its own, a King it saw block, and the card it gave its right
neighbour in a trade (that seat has acted, so it holds it still). Everything else is dealt again at
random; the seats still to act follow the ``normal`` thresholds; the move that loses a life least
often wins, ties going to ``normal``'s choice.
"""

from __future__ import annotations

import random

from engine.cards import CARDS, Card
from engine.moves import Keep, Move, Trade
from engine.neighbor import neighbor_value
from engine.views import NeighborView

KING = 13
SAMPLES = 200


def threshold(alive: int) -> int:
    """The ``normal`` level's swap threshold (trade at or below it)."""
    return {2: 7, 3: 6}.get(alive, 5)


def losses(view: NeighborView, move: Move, rng: random.Random, samples: int = SAMPLES) -> int:
    """In how many of ``samples`` deals ``view``'s seat ends the hand holding a lowest card."""
    me, card = view.seat, view.card
    assert me is not None and card is not None
    alive = [s.seat for s in view.seats if s.active]
    known: dict[int | None, Card] = {me: card}
    for seat, king in view.blocked:
        known[seat] = king
    for memory in view.swaps:
        if memory.other is not None:
            known.setdefault(memory.other, memory.gave)
    pool = [c for c in CARDS[:52] if c not in known.values()]
    after = _still_to_act(view, alive)
    lost = 0
    for _ in range(samples):
        rng.shuffle(pool)
        deal = iter(pool)
        cards = {s: known[s] if s in known else next(deal) for s in alive}
        deck_top = known[None] if None in known else next(deal)
        if isinstance(move, Trade):
            deck_top = _trade(view, me, cards, deck_top, alive)
        for s in after:
            c = cards[s]
            if c.rank != KING and neighbor_value(c) <= threshold(len(alive)):
                deck_top = _trade(view, s, cards, deck_top, alive)
        lowest = min(neighbor_value(c) for c in cards.values())
        lost += neighbor_value(cards[me]) == lowest
    return lost


def _still_to_act(view: NeighborView, alive: list[int]) -> list[int]:
    """The seats after this one up to the dealer, in order."""
    order: list[int] = []
    s = view.seat
    assert s is not None
    while s != view.dealer:
        s = _left(s, alive)
        order.append(s)
    return order


def _left(seat: int, alive: list[int]) -> int:
    later = [s for s in alive if s > seat]
    return later[0] if later else alive[0]


def _trade(view: NeighborView, seat: int, cards: dict[int, Card], deck_top: Card, alive: list[int]) -> Card:
    """``seat`` trades: with the deck top if it deals, else with its left neighbour; a King blocks."""
    if seat == view.dealer:
        if deck_top.rank != KING:
            cards[seat], deck_top = deck_top, cards[seat]
        return deck_top
    other = _left(seat, alive)
    if cards[other].rank != KING:
        cards[seat], cards[other] = cards[other], cards[seat]
    return deck_top


def choose(view: NeighborView, fallback: Move, rng: random.Random, samples: int = SAMPLES) -> Move:
    """Keep or trade, whichever loses a life less often over sampled deals."""
    if view.card is None or len(view.legal_moves) < 2:
        return fallback
    other = Trade() if fallback == Keep() else Keep()
    if other not in view.legal_moves:
        return fallback
    return other if losses(view, other, rng, samples) < losses(view, fallback, rng, samples) else fallback
