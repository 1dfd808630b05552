"""A computer player with the habits of a decent human.

Shithead: in the swap phase it puts its strongest cards face-up; in play it gets rid of its lowest
plain cards, all of a rank at once, keeps powers for when nothing plain fits, burns when the pile
is big, and takes its worst face-up card along when a pickup takes one.

Neighbor: swap at or below a threshold that rises as fewer players remain (the seed text's
strategy notes), keep a King, and keep when it knows a lower card is already at the table.
"""

from __future__ import annotations

import random

from engine.cards import Card
from engine.common import Phase
from engine.errors import NotYourTurnError
from engine.moves import Keep, Move, PickUp, Play, PlayFaceDown, Ready, StockGamble, Swap, Trade
from engine.neighbor import neighbor_value
from engine.rules import Power, Rules, compile_rules
from engine.views import NeighborView, SeatInfo, ShitheadView

BIG_PILE = 6
BLOCK_NEAR_END = 6  # cards: blocking a seat with more costs more than it gains (bench/ai.py)
LOOP_BREAKER = 0.1  # how often the pressure play is skipped
HABITS: dict[str, int] = {
    "pressure": 1,
    "ten_first": 0,
    "big_pile": BIG_PILE,
    "keep_copy": 0,
    "high_end": 0,
    "save_power": 0,
    "swap_pairs": 0,
    "two_for_high": 12,
    "two_stock": 0,
    "ten_for_high": 99,
    "ten_pile": 0,
    "high_single": 12,
    "single_stock": 0,
    "single_noise": 10,
    "block_end": 3,
    "fewest_end": 4,
    "fd_high": 0,
}
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


def _known_playables(info: SeatInfo) -> tuple[Card, ...] | None:
    """The cards a seat may play next, when everybody knows all of them (else None)."""
    if info.hand_count:
        return info.known_hand if len(info.known_hand) == info.hand_count else None
    return info.face_up or None


def _all_of(plays: list[Play], rank: int) -> Play:
    return max((m for m in plays if m.rank == rank), key=lambda m: m.count)


def _one_of(plays: list[Play], rank: int) -> Play:
    return min((m for m in plays if m.rank == rank), key=lambda m: m.count)


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
        plain = [m for m in plays if rules.power(m.rank) in (None, Power.SKIP, Power.REVERSE)]
        if plain:
            swap_in = self._power_instead(view, plays, plain)
            if swap_in is not None:
                return swap_in
            return self._plain(view, plain)
        if plays:
            if HABITS["ten_first"]:
                burning = [m for m in plays if rules.power(m.rank) is Power.BURN]
                if burning:
                    return min(burning, key=lambda m: m.count)
            if len(view.pile) >= HABITS["big_pile"]:
                burning = [m for m in plays if self._burns(view, m)]
                if burning:
                    return min(burning, key=lambda m: (strength(rules, m.rank), -m.count))
            singles = [m for m in plays if m.count == 1] or plays
            return min(singles, key=lambda m: (_SPEND_ORDER[rules.power(m.rank) or Power.SKIP], m.rank))
        if StockGamble() in moves:
            return StockGamble()
        return self._pickup(view, [m for m in moves if isinstance(m, PickUp)])

    def _plain(self, view: ShitheadView, plain: list[Play]) -> Play:
        """Which plain play: going out, a free burn, pressure on the next seat, else the lowest."""
        me = view.seats[view.seat or 0]
        for m in plain:
            if m.count == me.card_count:
                return m  # the last cards: out
        burning = [m for m in plain if self._burns(view, m)]
        if burning:
            return max(burning, key=lambda m: (m.count, -m.rank))
        alive = sum(1 for s in view.seats if s.active)
        # Now and then it plays plainly instead: two fixed habits can chase each other round the
        # same pickups for ever, and a little noise ends such loops.
        pressure = self._pressure(view, plain, alive) if self._rng.random() >= LOOP_BREAKER else None
        if pressure is not None and HABITS["pressure"]:
            return pressure
        nxt = self._next_seat(view)
        if HABITS["high_end"] and nxt is not None and view.seats[nxt].card_count <= HABITS["high_end"]:
            return _one_of(plain, max(m.rank for m in plain))
        low = min(m.rank for m in plain)
        stock_ok = {0: True, 1: view.stock_count > 0, 2: view.stock_count == 0}[HABITS["single_stock"]]
        noise = self._rng.random() * 100 < HABITS["single_noise"]
        if low >= HABITS["high_single"] and stock_ok and not noise:
            return _one_of(plain, low)
        if HABITS["keep_copy"] == 1:
            return _one_of(plain, low)
        if HABITS["keep_copy"] == 2 and not view.stock_count:
            return _one_of(plain, low)
        return max((m for m in plain if m.rank == low), key=lambda m: m.count)

    def _power_instead(self, view: ShitheadView, plays: list[Play], plain: list[Play]) -> Play | None:
        rules = view.rules
        low = min(m.rank for m in plain)
        if any(self._burns(view, m) for m in plain):
            return None
        me = view.seats[view.seat or 0]
        if any(m.count == me.card_count for m in plain):
            return None
        if low >= HABITS["two_for_high"] and view.stock_count >= HABITS["two_stock"]:
            twos = [m for m in plays if rules.power(m.rank) is Power.RESET]
            if twos:
                return min(twos, key=lambda m: m.count)
        if low >= HABITS["ten_for_high"] and len(view.pile) >= HABITS["ten_pile"]:
            tens = [m for m in plays if rules.power(m.rank) is Power.BURN]
            if tens:
                return min(tens, key=lambda m: m.count)
        return None

    def _pressure(self, view: ShitheadView, plain: list[Play], alive: int) -> Play | None:
        """Near its end, a play that leaves the next seat nothing it is known to hold to follow with.

        At two seats, also: fewest known answers against a seat near the end, and against one
        down to face-down cards the highest single card, keeping its copies for next time.
        """
        nxt = self._next_seat(view)
        if nxt is None:
            return None
        info = view.seats[nxt]
        known = _known_playables(info)
        legal = compile_rules(view.rules).legal
        ranks = sorted({m.rank for m in plain})
        if known is not None:
            answers = {r: sum(1 for c in known if legal[r][c.rank]) for r in ranks}
            blocking = [r for r in ranks if answers[r] == 0]
            if blocking and info.card_count <= HABITS["block_end"]:  # earlier, high cards are worth more
                return _all_of(plain, blocking[0])
            if alive == 2 and info.card_count <= HABITS["fewest_end"]:
                fewest = min(ranks, key=lambda r: (answers[r], r))
                if answers[fewest] < answers[ranks[0]]:
                    return _one_of(plain, fewest)
            return None
        if HABITS["fd_high"] and alive == 2 and info.hand_count == 0 and not info.face_up:
            return _one_of(plain, ranks[-1])
        return None

    @staticmethod
    def _next_seat(view: ShitheadView) -> int | None:
        n = len(view.seats)
        s = view.seat
        if s is None:
            return None
        for _ in range(n - 1):
            s = (s + view.direction) % n
            if view.seats[s].active:
                return s
        return None

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
