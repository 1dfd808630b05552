"""Worlds consistent with one seat's view: the hidden cards dealt again at random.

A Shithead view names the seat's own hand, every face-up card, the pile, the burned cards and the
cards everybody saw a seat take into its hand (``SeatInfo.known_hand``). Every other card is
hidden: the rest of the other hands, every face-down card (the seat's own included), the stock, and
the cards a forfeiter took out unseen. :func:`sample_world` deals those hidden cards at random into
the hidden places, keeping every count the view shows, and returns a full state to search in. A
seat that was forced to pick up holds none of the ranks that fitted then
(``SeatInfo.barred_ranks``), and gets none in its sampled hand.
"""

from __future__ import annotations

import random

from engine.cards import CARDS, CARDS_PER_DECK, RANK_OF, Card
from engine.common import Phase
from engine.shithead import ShitheadState
from engine.views import SeatInfo, ShitheadView


def hidden_cards(view: ShitheadView) -> list[Card]:
    """The cards this view does not place, in id order."""
    seen = set(view.hand)
    seen.update(view.pile)
    seen.update(view.out)
    for info in view.seats:
        seen.update(info.face_up)
        seen.update(info.known_hand)
    return [c for c in CARDS[: CARDS_PER_DECK * view.rules.decks] if c not in seen]


def sample_world(view: ShitheadView, rng: random.Random, pool: list[Card] | None = None) -> ShitheadState:
    """A play-phase state that ``view``'s seat cannot tell from the real one.

    ``pool`` is :func:`hidden_cards` of the view, when the caller has it already.
    """
    if view.seat is None or view.phase is not Phase.PLAY or view.to_act is None:
        raise ValueError("worlds are sampled for a seated view in the play phase")
    pool = list(hidden_cards(view) if pool is None else pool)
    rng.shuffle(pool)
    seats = len(view.seats)
    state = ShitheadState._blank(view.rules, seats, 0, view.dealer)
    hands = {view.seat: list(view.hand)}
    for info in sorted(view.seats, key=lambda i: not i.barred_ranks):  # the barred hands first
        if info.seat != view.seat:
            hands[info.seat] = list(info.known_hand) + _deal_unseen(pool, info)
    for info in view.seats:
        s = info.seat
        state._add_to_hand(s, hands[s])
        for c in info.known_hand:
            state.known[s] |= 1 << c
        for r in info.barred_ranks:
            state.barred[s] |= 1 << r
        state.face_up[s] = list(info.face_up)
        state.face_down[s] = [pool.pop() if present else None for present in info.face_down]
        state.fd_count[s] = info.face_down_count
        state.active[s] = info.active
        state.ready[s] = True
    state.stock = pool[: view.stock_count]
    state.unseen_out = pool[view.stock_count :]
    state.discard = list(view.out) + state.unseen_out
    state.pile = list(view.pile)
    state.top = view.effective_top or 0
    state.required = view.required_rank or 0
    state.turn = view.to_act
    state.direction = view.direction
    state.n_active = sum(state.active)
    placed = [i for i in view.seats if i.place is not None]
    state.finished = [i.seat for i in sorted(placed, key=lambda i: i.place or 0) if not i.forfeited]
    state.forfeited = [i.seat for i in sorted(placed, key=lambda i: -(i.place or 0)) if i.forfeited]
    state.stage = Phase.PLAY
    return state


def _deal_unseen(pool: list[Card], info: SeatInfo) -> list[Card]:
    """The seat's unseen hand cards, off the end of the shuffled pool: of ranks it is not barred
    from holding, as long as the pool has them (it always has, for the first barred seat)."""
    unknown = info.hand_count - len(info.known_hand)
    if not unknown:
        return []
    if info.barred_ranks:
        barred = set(info.barred_ranks)
        fits = [i for i in range(len(pool) - 1, -1, -1) if RANK_OF[pool[i]] not in barred][:unknown]
        if len(fits) == unknown:
            dealt = [pool[i] for i in fits]
            for i in fits:  # descending, so each index still points at its card
                del pool[i]
            return dealt
    dealt = pool[-unknown:]
    del pool[-unknown:]
    return dealt
