"""The ``hard`` level's swap: which three of its six cards to lay face-up, searched.

``normal`` lays its strongest cards face-up (:func:`engine.ai.heuristic.face_up_worth`). The search
tries every arrangement of the six cards (at most 20 by rank), each in the same sampled deals:
the other seats' cards and every face-down card dealt at random from what this seat has not
seen, the other seats swapping as ``normal`` does, then the whole game played out by the fast
policy (:mod:`engine.ai.rollout`). Sequential halving keeps the arrangement with the best average
place. Against three ``normal`` players at 4 seats, ``normal``'s play with this swap came first
27.5% of 2,000 games instead of 25.0% (bench/ai.py's deals); 320 playouts gained nothing, 960 did.

The swap is several moves (a swap each, then ready), and the bot asks a new player for each one.
So that every call aims at the same arrangement, the answer depends only on what does not change
while the seat swaps: its six cards, its seat, the dealer, the rules and the seat count. It does
not read the other seats' face-up cards (they change as those seats swap) nor the player's seed,
and its budget is a number of playouts, never a time. The answer is remembered per process, so a
swap costs one search, about 0.4 s at 4 seats (``standard``, one core). Games of six seats and
more (two decks) keep ``normal``'s swap: there a search would cost seconds a seat, and nobody
measured what it wins.
"""

from __future__ import annotations

import hashlib
import random
from collections import OrderedDict
from itertools import combinations

from engine.ai.heuristic import face_up_worth
from engine.ai.montecarlo import halving, score
from engine.ai.rollout import playout
from engine.cards import CARDS, CARDS_PER_DECK, RANK_OF, Card
from engine.moves import Move, Ready, Swap
from engine.rules import Rules
from engine.shithead import ShitheadState
from engine.views import ShitheadView

PLAYOUTS = 960  # whole games per swap: 320 won nothing (bench/ai.py, 2,000 games)
MAX_SEATS = 5  # with two decks a search costs 1.2-1.8 s a seat, unmeasured: normal's swap there
REMEMBERED = 256
_TARGETS: OrderedDict[str, tuple[int, ...]] = OrderedDict()


def choose(view: ShitheadView, playouts: int = PLAYOUTS) -> Move:
    """The next step towards the searched arrangement: a swap, or ready once it is laid out."""
    assert view.seat is not None
    up = sorted(RANK_OF[c] for c in view.seats[view.seat].face_up)
    want = target(view, playouts)
    to_lay = _minus(want, up)
    if not to_lay:
        return Ready()
    return Swap(to_lay[0], _minus(up, want)[0])


def target(view: ShitheadView, playouts: int = PLAYOUTS) -> tuple[int, ...]:
    """The face-up ranks (sorted) the search settles on for this seat's six cards."""
    assert view.seat is not None
    seat, rules = view.seat, view.rules
    mine = sorted([*view.hand, *view.seats[seat].face_up])
    key = repr((rules, len(view.seats), seat, view.dealer, mine, playouts, [i.active for i in view.seats]))
    if key in _TARGETS:
        _TARGETS.move_to_end(key)
        return _TARGETS[key]
    first = _normal_up(rules, [RANK_OF[c] for c in view.hand], [RANK_OF[c] for c in view.seats[seat].face_up])
    ranks = sorted(RANK_OF[c] for c in mine)
    layouts = {tuple(sorted(ranks[i] for i in chosen)) for chosen in combinations(range(len(ranks)), 3)}
    candidates = [first, *sorted(layouts - {first})]
    rng = random.Random(int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big"))
    seen = set(mine) | set(view.out)
    pool = [c for c in CARDS[: CARDS_PER_DECK * rules.decks] if c not in seen]
    worlds: list[tuple[ShitheadState, int]] = []

    def trial(i: int, k: int) -> float:
        if k == len(worlds):
            worlds.append((_deal(view, rng, pool), rng.getrandbits(64)))
        world, playout_seed = worlds[k]
        state = world.copy()
        _lay_out(state, seat, mine, candidates[i])
        state.apply(seat, Ready())
        return score(playout(state, random.Random(playout_seed).random), state, seat)

    found = candidates[halving(len(candidates), trial, playouts)] if len(candidates) > 1 else first
    _TARGETS[key] = found
    if len(_TARGETS) > REMEMBERED:
        _TARGETS.popitem(last=False)
    return found


def normal_swaps(rules: Rules, hand: list[int], up: list[int]) -> list[tuple[int, int]]:
    """The swaps ``normal`` makes, as (hand rank, face-up rank): the biggest gain in face-up
    worth first, until none gains."""
    hand, up = list(hand), list(up)
    swaps: list[tuple[int, int]] = []
    while True:
        gains = [
            (face_up_worth(rules, h) - face_up_worth(rules, f), h, f)
            for h in sorted(set(hand))
            for f in sorted(set(up))
            if h != f
        ]
        gain, h, f = max(gains, key=lambda g: g[0], default=(0, 0, 0))
        if gain <= 0:
            return swaps
        hand.remove(h)
        up.remove(f)
        hand.append(f)
        up.append(h)
        swaps.append((h, f))


def _normal_up(rules: Rules, hand: list[int], up: list[int]) -> tuple[int, ...]:
    laid = list(up)
    for h, f in normal_swaps(rules, hand, up):
        laid.remove(f)
        laid.append(h)
    return tuple(sorted(laid))


def _minus(ranks: list[int] | tuple[int, ...], other: list[int] | tuple[int, ...]) -> list[int]:
    """``ranks`` without one copy of each of ``other`` (multisets)."""
    left = list(ranks)
    for r in other:
        if r in left:
            left.remove(r)
    return left


def _lay_out(state: ShitheadState, seat: int, mine: list[Card], up: tuple[int, ...]) -> None:
    rest = list(mine)
    face_up = []
    for rank in up:
        card = next(c for c in rest if RANK_OF[c] == rank)
        rest.remove(card)
        face_up.append(card)
    state.face_up[seat] = face_up
    state._add_to_hand(seat, rest)


def _deal(view: ShitheadView, rng: random.Random, pool: list[Card]) -> ShitheadState:
    """A swap-phase deal this seat cannot tell from the real one, its own hand and face-up cards
    left out (each arrangement lays them), the others' swaps made as ``normal`` makes them."""
    assert view.seat is not None
    cards = list(pool)
    rng.shuffle(cards)
    state = ShitheadState._blank(view.rules, len(view.seats), 0, view.dealer)
    others = [i.seat for i in view.seats if i.active and i.seat != view.seat]
    for info in view.seats:
        if not info.active:
            state.active[info.seat] = False
            state.n_active -= 1
            continue
        state.face_down[info.seat] = [cards.pop(), cards.pop(), cards.pop()]
        state.fd_count[info.seat] = 3
    for s in others:
        state.face_up[s] = [cards.pop(), cards.pop(), cards.pop()]
        state._add_to_hand(s, [cards.pop(), cards.pop(), cards.pop()])
    state.stock = cards[: view.stock_count]
    state.unseen_out = cards[view.stock_count :]
    state.discard = list(view.out) + state.unseen_out
    state.forfeited = [i.seat for i in sorted(view.seats, key=lambda i: -(i.place or 0)) if i.forfeited]
    for s in others:
        hand = [RANK_OF[c] for c in state.hand_of(s)]
        for h, f in normal_swaps(view.rules, hand, [RANK_OF[c] for c in state.face_up[s]]):
            state.apply(s, Swap(h, f))
        state.apply(s, Ready())
    return state
