"""A computer player with the habits of a decent human.

Shithead, swap phase: it lays its strongest cards face-up, a 10 included, but keeps its 2s (and a
*lower* card that is not wild) in hand, where they stand in for high cards all game long.

Shithead, play: it gets rid of its lowest plain cards, all of a rank at once, and keeps powers for
when nothing plain fits: then it spends the cheapest (a wild lower card last of all), burning with
one when the pile is big (unless a pickup is followed by its own lead, ``pickup_then_play``: then
the pile costs less and the burn card is kept). Invisible cards and lower cards that are not wild
go all copies at once: one or all, the next seat faces the same demand. When nothing fits it picks
up rather than turn a stock card blind. It goes out when it can and takes a free four-of-a-kind
burn. When the lowest plain card that fits is a Queen or higher it plays a 2 (or that lower card)
instead and keeps the high card, unless the next seat is down to a few cards; a high card it does
play goes one copy at a time, the others kept for later. Against a seat about to
go out whose next cards everybody knows (face-up cards, or a hand seen picked up) it plays what that
seat cannot follow, or what it can follow with fewest cards. On face-up it takes its worst face-up
card along when a pickup takes one. Now and then it skips these habits and plays its lowest cards
plainly: two fixed habits can chase each other round the same pickups for ever, and a little noise
ends such loops. Once the game has stood still for STUCK of its own moves (nothing drawn, played from
the table or burned) it also makes a legal move at random a fifth of the time; this is the one thing
it remembers between moves, and the playouts (engine/ai/rollout.py) do without it.

Each habit was measured on its own against the heuristic as it was before (bench/ai.py), and
what did not win was left out: the highest card against a seat on face-down cards, high cards
against a seat whose hand is only guessed at, blocking from six cards down, a 10 before a 2, a 10
or an invisible card standing in for a high card, a 2 laid face-up, pairs kept together in the
swap, single copies of low ranks, turning stock cards or picking up a small pile of good cards
instead of spending a power (``free``); and, screened on other deals than the benchmark's: an
invisible card standing in for a high card (``smelly`` too), a wild lower card kept in hand or
spent all at once, 2s and 10s spent all at once, a 10 before a 2 (``free``), more or less noise,
other thresholds for a high card or a big pile.

Neighbor: swap at or below a threshold that rises as fewer players remain (the seed text's
strategy notes), keep a King, and keep when it knows a lower card is already at the table.
"""

from __future__ import annotations

import random

from engine.cards import Card
from engine.common import Phase
from engine.errors import NotYourTurnError
from engine.moves import Keep, Move, PickUp, Play, PlayFaceDown, Ready, Swap, Trade
from engine.neighbor import neighbor_value
from engine.rules import Power, Rules, compile_rules
from engine.views import NeighborView, SeatInfo, ShitheadView

BIG_PILE = 6
HIGH = 12  # a Queen: from here up a plain card is worth keeping back (bench/ai.py)
NEAR_END = 5  # cards: against a seat with fewer, the high card goes rather than a 2 (bench/ai.py)
BLOCK_NEAR_END = 3  # cards: blocking a seat with more costs more than it gains (bench/ai.py)
FEWEST_NEAR_END = 4  # cards: below this, the play with fewest known answers (two seats)
LOOP_BREAKER = 0.1  # how often it plays its lowest cards plainly
STUCK = 60  # own moves with no card leaving stock, face-up or face-down and none burned: a loop
STUCK_NOISE = 0.2  # how often, in a loop, it makes a legal move at random
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


def spend_order(rules: Rules, power: Power) -> int:
    """Which power to spend first when only powers fit; a wild lower card goes last, since it fits
    on anything and holds the next seat down (bench/ai.py, ``free``: +1.6)."""
    if power is Power.LOWER and rules.lower_is_wild:
        return 5
    return _SPEND_ORDER[power]


def burns_big_piles(rules: Rules) -> bool:
    """Whether to burn a big pile rather than spend a cheaper power. Not when a pickup is followed
    by a lead of one's own: the pile costs less then, and the burn card is worth more kept
    (bench/ai.py, ``smelly``: +2)."""
    return not rules.pickup_then_play


def spent_together(rules: Rules, rank: int) -> bool:
    """Whether to spend all copies of a power at once: an invisible card (one or all, the next seat
    faces the card beneath) or a lower card that is not wild (one or all, the next seat must go
    low). bench/ai.py: smelly +1.9, classic +1.9; the others lost, or did not matter."""
    power = rules.power(rank)
    return power is Power.INVISIBLE or (power is Power.LOWER and not rules.lower_is_wild)


def strength(rules: Rules, rank: int) -> int:
    """How good a card of ``rank`` is to hold: plain cards by value, powers above them all."""
    power = rules.power(rank)
    if power is None or power in (Power.SKIP, Power.REVERSE):
        return rank
    return _POWER_STRENGTH[power] + rank


def stands_in(rules: Rules, rank: int) -> bool:
    """Whether a card of ``rank`` can stand in for a high plain card: a reset, or a lower that is not wild."""
    power = rules.power(rank)
    return power is Power.RESET or (power is Power.LOWER and not rules.lower_is_wild)


def face_up_worth(rules: Rules, rank: int) -> int:
    """How good a card of ``rank`` is to lay face-up: by strength, but a stand-in is worth more in hand."""
    return 0 if stands_in(rules, rank) else strength(rules, rank)


def _known_playables(info: SeatInfo) -> tuple[Card, ...] | None:
    """The cards a seat may play next, when everybody knows all of them (else None)."""
    if info.hand_count:
        return info.known_hand if len(info.known_hand) == info.hand_count else None
    return info.face_up or None


def all_of(plays: list[Play], rank: int) -> Play:
    """The play of every copy of ``rank`` that ``plays`` offers."""
    return max((m for m in plays if m.rank == rank), key=lambda m: m.count)


def _one_of(plays: list[Play], rank: int) -> Play:
    return min((m for m in plays if m.rank == rank), key=lambda m: m.count)


class HeuristicPlayer:
    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)
        self._progress: tuple[int, int, int] | None = None
        self._still = 0  # own moves since the game last moved on

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
                gain = face_up_worth(rules, move.hand_rank) - face_up_worth(rules, move.face_up_rank)
                if gain > 0 and (best is None or gain > best[0]):
                    best = (gain, move)
        return best[1] if best else Ready()

    def _play(self, view: ShitheadView) -> Move:
        if self._stuck(view) and self._rng.random() < STUCK_NOISE:
            return self._rng.choice(view.legal_moves)
        moves = view.legal_moves
        slots = [m for m in moves if isinstance(m, PlayFaceDown)]
        if slots:
            return self._rng.choice(slots)
        plays = [m for m in moves if isinstance(m, Play)]
        rules = view.rules
        plain = [m for m in plays if rules.power(m.rank) in (None, Power.SKIP, Power.REVERSE)]
        if plain:
            return self._plain(view, plays, plain)
        if plays:
            if burns_big_piles(rules) and len(view.pile) >= BIG_PILE:
                burning = [m for m in plays if self._burns(view, m)]
                if burning:
                    return min(burning, key=lambda m: (strength(rules, m.rank), -m.count))
            singles = [m for m in plays if m.count == 1] or plays
            spend = min(singles, key=lambda m: (spend_order(rules, rules.power(m.rank) or Power.SKIP), m.rank))
            return all_of(plays, spend.rank) if spent_together(rules, spend.rank) else spend
        # Nothing fits: pick up rather than turn the top stock card blind (bench/ai.py, free: +0.7).
        pickups = [m for m in moves if isinstance(m, PickUp)]
        return self._pickup(view, pickups) if pickups else moves[0]

    def _stuck(self, view: ShitheadView) -> bool:
        """Whether the game has not moved on for STUCK of its own moves: no stock card drawn, no
        face-up or face-down card played, nothing burned. Only a loop keeps it so still."""
        progress = (
            view.stock_count,
            view.discard_count,
            sum(len(s.face_up) + sum(s.face_down) for s in view.seats),
        )
        if progress != self._progress:
            self._progress, self._still = progress, 0
        self._still += 1
        return self._still > STUCK

    def _plain(self, view: ShitheadView, plays: list[Play], plain: list[Play]) -> Play:
        """When a plain card fits: going out, a free burn, pressure near the end, a stand-in for a
        high card, one copy of a high card, else all of the lowest."""
        me = view.seats[view.seat or 0]
        for m in plain:
            if m.count == me.card_count:
                return m  # the last cards: out
        burning = [m for m in plain if self._burns(view, m)]
        if burning:
            return max(burning, key=lambda m: (m.count, -m.rank))
        plainly = self._rng.random() < LOOP_BREAKER
        alive = sum(1 for s in view.seats if s.active)
        pressure = None if plainly else self._pressure(view, plain, alive)
        if pressure is not None:
            return pressure
        low = min(m.rank for m in plain)
        if low >= HIGH:
            stand_in = self._stand_in(view, plays)
            if stand_in is not None:
                return stand_in
            if not plainly:
                return _one_of(plain, low)
        return all_of(plain, low)

    def _stand_in(self, view: ShitheadView, plays: list[Play]) -> Play | None:
        """A single 2 (or lower card) to play instead of a high card, unless the next seat is near its end."""
        nxt = self._next_seat(view)
        if nxt is None or view.seats[nxt].card_count < NEAR_END:
            return None
        spares = [m for m in plays if stands_in(view.rules, m.rank)]
        if not spares:
            return None
        spare = min(spares, key=lambda m: (m.rank, m.count))
        return all_of(plays, spare.rank) if spent_together(view.rules, spare.rank) else spare

    def _pressure(self, view: ShitheadView, plain: list[Play], alive: int) -> Play | None:
        """Near its end, a play that leaves the next seat nothing it is known to hold to follow with.

        At two seats, also: fewest known answers against a seat near the end.
        """
        nxt = self._next_seat(view)
        if nxt is None:
            return None
        info = view.seats[nxt]
        known = _known_playables(info)
        if known is None:
            return None
        legal = compile_rules(view.rules).legal
        ranks = sorted({m.rank for m in plain})
        answers = {r: sum(1 for c in known if legal[r][c.rank]) for r in ranks}
        blocking = [r for r in ranks if answers[r] == 0]
        if blocking and info.card_count <= BLOCK_NEAR_END:  # earlier, high cards are worth more
            return all_of(plain, blocking[0])
        if alive == 2 and info.card_count <= FEWEST_NEAR_END:
            fewest = min(ranks, key=lambda r: (answers[r], r))
            if answers[fewest] < answers[ranks[0]]:
                return _one_of(plain, fewest)
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
