"""FROZEN copy of the heuristic as it was before issue 11: the baseline bench/ai.py measures against.

Do not improve this file; improve engine/ai/heuristic.py.

The original docstring follows.

Shithead: in the swap phase it puts its strongest cards face-up; in play it gets rid of its lowest
plain cards, all of a rank at once, keeps powers for when nothing plain fits, burns when the pile
is big, and takes its worst face-up card along when a pickup takes one.

Neighbor: swap at or below a threshold that rises as fewer players remain (the seed text's
strategy notes), keep a King, and keep when it knows a lower card is already at the table.
"""

from __future__ import annotations

import random

from engine.common import Phase
from engine.errors import NotYourTurnError
from engine.moves import Keep, Move, PickUp, Play, PlayFaceDown, Ready, StockGamble, Swap, Trade
from engine.neighbor import neighbor_value
from engine.rules import Power, Rules
from engine.views import NeighborView, ShitheadView

BIG_PILE = 6
# How much a power is worth keeping, above any plain value (2-14).
_POWER_STRENGTH = {Power.BURN: 40, Power.RESET: 35, Power.INVISIBLE: 30, Power.LOWER: 20}
# Which power to spend first when only powers fit: the cheapest.
_SPEND_ORDER = {
    Power.SKIP: 0,
    Power.REVERSE: 0,
    Power.LOWER: 1,
    Power.INVISIBLE: 2,
    Power.RESET: 3,
    Power.BURN: 4,
}


def strength(rules: Rules, rank: int) -> int:
    """How good a card of ``rank`` is to hold: plain cards by value, powers above them all."""
    power = rules.power(rank)
    if power is None or power in (Power.SKIP, Power.REVERSE):
        return rank
    return _POWER_STRENGTH[power] + rank


class HeuristicPlayer:
    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: ShitheadView | NeighborView) -> Move:
        if not view.legal_moves:
            raise NotYourTurnError(f"seat {view.seat} has no move to make now")
        if isinstance(view, NeighborView):
            return self._neighbor(view)
        if len(view.legal_moves) == 1:
            return view.legal_moves[0]
        if view.phase is Phase.SWAP:
            return self._swap(view)
        return self._play(view)

    # ----------------------------------------------------------------- Shithead

    def _swap(self, view: ShitheadView) -> Move:
        rules = view.rules
        best: tuple[int, Move] | None = None
        for move in view.legal_moves:
            if isinstance(move, Swap):
                gain = strength(rules, move.hand_rank) - strength(rules, move.face_up_rank)
                if gain > 0 and (best is None or gain > best[0]):
                    best = (gain, move)
        return best[1] if best else Ready()

    def _play(self, view: ShitheadView) -> Move:
        moves = view.legal_moves
        slots = [m for m in moves if isinstance(m, PlayFaceDown)]
        if slots:
            return self._rng.choice(slots)
        plays = [m for m in moves if isinstance(m, Play)]
        rules = view.rules
        if len(view.pile) >= BIG_PILE:
            burning = [m for m in plays if self._burns(view, m)]
            if burning:
                return min(burning, key=lambda m: (strength(rules, m.rank), -m.count))
        plain = [m for m in plays if rules.power(m.rank) in (None, Power.SKIP, Power.REVERSE)]
        if plain:
            low = min(m.rank for m in plain)
            return max((m for m in plain if m.rank == low), key=lambda m: m.count)
        if plays:
            singles = [m for m in plays if m.count == 1] or plays
            return min(singles, key=lambda m: (_SPEND_ORDER[rules.power(m.rank) or Power.SKIP], m.rank))
        if StockGamble() in moves:
            return StockGamble()
        return self._pickup(view, [m for m in moves if isinstance(m, PickUp)])

    @staticmethod
    def _burns(view: ShitheadView, move: Play) -> bool:
        rules = view.rules
        if rules.power(move.rank) is Power.BURN:
            return True
        if not rules.four_burns:
            return False
        run = 0
        for card in reversed(view.pile):
            if card.rank == move.rank:
                run += 1
            elif rules.power(card.rank) is not Power.INVISIBLE:
                break
        return run + move.count >= 4

    def _pickup(self, view: ShitheadView, pickups: list[PickUp]) -> Move:
        rules = view.rules
        return min(pickups, key=lambda m: strength(rules, m.face_up_rank) if m.face_up_rank else 0)

    # ----------------------------------------------------------------- Neighbor

    def _neighbor(self, view: NeighborView) -> Move:
        card = view.card
        if card is None:
            return Keep()
        value = neighbor_value(card)
        if card.rank == 13:
            return Keep()
        alive = sum(1 for s in view.seats if s.active)
        threshold = {2: 7, 3: 6}.get(alive, 5)
        gave = [m.gave for m in view.swaps if m.gave != card]
        if gave and min(neighbor_value(c) for c in gave) < value:
            return Keep()  # a lower card than mine is already at the table
        return Trade() if value <= threshold else Keep()
