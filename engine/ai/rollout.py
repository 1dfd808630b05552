"""A fast playout policy: the heuristic's habits, read straight off a (sampled) state.

Search plays thousands of moves per decision inside worlds it sampled itself, so this policy skips
building views: it looks at the legal moves and the pile of the state it is given. It is only ever
handed states the searcher built (never the real game), so it cannot peek.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.ai.heuristic import (
    BIG_PILE,
    BLOCK_NEAR_END,
    FEWEST_NEAR_END,
    HIGH,
    LOOP_BREAKER,
    NEAR_END,
    all_of,
    burns_big_piles,
    spend_order,
    spent_together,
    stands_in,
    strength,
)
from engine.cards import RANK_OF
from engine.common import Outcome
from engine.moves import Move, PickUp, Play, PlayFaceDown
from engine.rules import Power, Rules
from engine.shithead import ShitheadState

STALL = 200  # moves: a playout that has not moved on in this many is in a loop (fights last less)

Tables = tuple[tuple[int, ...], tuple[bool, ...], tuple[int, ...], tuple[bool, ...], tuple[bool, ...]]
CACHED_TABLES = 32  # rules values whose tables are kept: a worker lives long, and sees many rule sets
# By value: the `hard` worker unpickles a new rules object for every decision, so a cache by id()
# would keep each one alive. Hashing a Rules value is slow, so the last one asked for is also
# remembered by identity: a playout asks thousands of times for the same object.
_TABLES: dict[Rules, Tables] = {}  # oldest use first
_last: tuple[Rules, Tables] | None = None


def tables(rules: Rules) -> Tables:
    """Per rank: how good it is to hold, whether it is plain, the order to spend powers in, and
    whether it stands in for a high card (heuristic.stands_in), whether its copies are spent together
    (heuristic.spent_together)."""
    global _last
    last = _last
    if last is not None and last[0] is rules:
        return last[1]
    found = _TABLES.pop(rules, None)
    result = found if found is not None else _tables(rules)
    _TABLES[rules] = result  # the newest use last
    while len(_TABLES) > CACHED_TABLES:
        del _TABLES[next(iter(_TABLES))]
    _last = (rules, result)
    return result


def cached_tables() -> int:
    """How many rules values have their tables cached (at most :data:`CACHED_TABLES`)."""
    return len(_TABLES)


def _tables(rules: Rules) -> Tables:
    worth, plain, spend, stand_in, together = [0] * 15, [False] * 15, [0] * 15, [False] * 15, [False] * 15
    for r in range(2, 15):
        p = rules.power(r)
        plain[r] = p is None or p in (Power.SKIP, Power.REVERSE)
        worth[r] = strength(rules, r)
        spend[r] = 0 if p is None else spend_order(rules, p) * 20 + r
        stand_in[r] = stands_in(rules, r)
        together[r] = spent_together(rules, r)
    return (tuple(worth), tuple(plain), tuple(spend), tuple(stand_in), tuple(together))


def policy(state: ShitheadState, seat: int, rnd: Callable[[], float]) -> Move:
    """The move the heuristic would make for ``seat`` in ``state`` (play phase)."""
    moves = state.legal_moves(seat)
    if len(moves) == 1:
        return moves[0]
    first = moves[0]
    if first.__class__ is PlayFaceDown:
        slots = [m for m in moves if m.__class__ is PlayFaceDown]
        return slots[int(rnd() * len(slots))]
    if first.__class__ is Play:  # plays come first in the list, counts ascending per rank
        return _play(state, seat, [m for m in moves if isinstance(m, Play)], rnd)
    worth = tables(state.rules)[0]
    pickups = [p for p in moves if isinstance(p, PickUp)]  # rather than turn a stock card blind
    if not pickups:
        return moves[0]
    return min(pickups, key=lambda m: worth[m.face_up_rank] if m.face_up_rank else 0)


def _play(state: ShitheadState, seat: int, plays: list[Play], rnd: Callable[[], float]) -> Play:
    """The heuristic's play (engine.ai.heuristic): the lowest plain rank, all of it — but the last
    cards when they go out together, a free burn, a block against a next seat near its end (these
    three make 1 hard + 3 normal come first and not last more often: bench/ai.py), a 2 (a stand-in)
    for a high card while the next seat is far from its end, and high cards one at a time; powers
    only when nothing plain fits, burning a big pile."""
    worth, plain, spend, stand_in, together = tables(state.rules)
    low: Play | None = None  # the last play of the lowest plain rank: all its copies
    for m in plays:
        if plain[m.rank] and (low is None or m.rank <= low.rank):
            low = m
    if low is None:
        if len(state.pile) >= BIG_PILE and burns_big_piles(state.rules):
            burning = [m for m in plays if burns(state, m)]
            if burning:
                return min(burning, key=lambda m: (worth[m.rank], -m.count))
        spent = min(plays, key=lambda m: (m.count, spend[m.rank]))
        if together[spent.rank]:  # all of them
            return all_of(plays, spent.rank)
        return spent
    plainly = rnd() < LOOP_BREAKER
    end = _endgame(state, seat, plays, plain, plainly)
    if end is not None:
        return end
    if low.rank < HIGH or plainly:
        return low
    nxt = state.next_seat(seat)
    if state.hand_count[nxt] + len(state.face_up[nxt]) + state.fd_count[nxt] >= NEAR_END:
        for m in plays:  # ranks ascending: the lowest stand-in, one card (or all, if spent together)
            if stand_in[m.rank]:
                return all_of(plays, m.rank) if together[m.rank] else m
    for m in plays:
        if m.rank == low.rank:
            return m  # one copy
    return low


def _endgame(state: ShitheadState, seat: int, plays: list[Play], plain: tuple[bool, ...], plainly: bool) -> Play | None:
    """The heuristic's plays that look at the end (heuristic.HeuristicPlayer._plain): going out, a
    free burn, and a block against a next seat near its end whose cards everybody knows."""
    held = state.hand_count[seat]
    if not state.fd_count[seat]:  # else the last play cannot hold every card left
        up = len(state.face_up[seat])
        left = up if not held else (held if not up else 0)
        if 0 < left <= 4 * state.rules.decks:
            for m in plays:
                if m.count == left and plain[m.rank]:
                    return m
    if state.rules.four_burns:
        burn = _free_burn(state, seat, plays, plain)
        if burn is not None:
            return burn
    return None if plainly else _block(state, seat, plays, plain)


def _free_burn(state: ShitheadState, seat: int, plays: list[Play], plain: tuple[bool, ...]) -> Play | None:
    """The plain play that makes four of a kind with the most cards (the lowest rank on a tie)."""
    pile = state.pile
    top = RANK_OF[pile[-1]] if pile else 0
    through = top != 0 and state._c.invisible[top]  # the run may go on beneath an invisible card
    held = state.hand_count[seat]  # from hand, a burn needs the top's rank or four of one rank
    if held and not through and not state.masks[seat] >> top & 1 and (held < 4 or max(map(len, state.hands[seat])) < 4):
        return None
    best: Play | None = None
    for m in plays:
        if not plain[m.rank] or not (m.count >= 4 or m.rank == top or through) or not burns(state, m):
            continue
        if best is None or m.count > best.count or (m.count == best.count and m.rank < best.rank):
            best = m
    return best


def _block(state: ShitheadState, seat: int, plays: list[Play], plain: tuple[bool, ...]) -> Play | None:
    """Against a next seat near its end whose next cards everybody knows: all of the lowest plain
    rank it cannot follow (at most BLOCK_NEAR_END cards left), or, with two seats left, one card of
    the plain rank it can follow with fewest cards (at most FEWEST_NEAR_END left), as the heuristic
    does (heuristic.HeuristicPlayer._pressure)."""
    nxt = state.next_seat(seat)
    count = state.hand_count[nxt]
    left = count + len(state.face_up[nxt]) + state.fd_count[nxt]
    if left > BLOCK_NEAR_END and (left > FEWEST_NEAR_END or state.n_active != 2):
        return None
    if count:
        known = state.known[nxt]
        cards = [c for lst in state.hands[nxt] for c in lst if known >> c & 1]
        if len(cards) != count:
            return None
    else:
        cards = state.face_up[nxt]
        if not cards:
            return None
    legal = state._c.legal
    answers: list[tuple[int, Play]] = []  # per plain rank, ascending: its answers, one card of it
    for m in plays:  # ranks ascending, counts ascending per rank: the first of a rank is one card
        if plain[m.rank] and (not answers or answers[-1][1].rank != m.rank):
            n = sum(1 for c in cards if legal[m.rank][RANK_OF[c]])
            if n == 0 and left <= BLOCK_NEAR_END:
                return all_of(plays, m.rank)
            answers.append((n, m))
    if state.n_active != 2 or left > FEWEST_NEAR_END or not answers:
        return None
    fewest = min(answers, key=lambda a: a[0])  # the lowest rank of those with fewest answers
    return fewest[1] if fewest[0] < answers[0][0] else None


def burns(state: ShitheadState, move: Play) -> bool:
    """Would this play burn the pile? (The rules' own check: ShitheadState.burns.)"""
    return state.burns(move.rank, move.count)


def playout(
    state: ShitheadState, rnd: Callable[[], float], max_moves: int = 3000, stall: int = STALL
) -> Outcome | None:
    """Play ``state`` to its end with :func:`policy` for every seat; None if it runs too long.

    Fixed habits can chase each other round the same pickups for ever (``free``'s wild lower 5s do
    it in about one playout in sixteen at two seats). Every ``stall`` moves the playout checks that
    the game has moved on: a card drawn, burned or played from the table. When it has not, it stops
    there and returns None, as for one that ran too long (``stall=0`` never checks).
    """
    apply = state.apply
    mark: tuple[int, int, int, int] | None = None
    for i in range(max_moves):
        seat = state.to_act
        if seat is None:
            return state.outcome
        if stall and i % stall == 0:
            now = _progress(state)
            if now == mark:
                return None
            mark = now
        apply(seat, policy(state, seat, rnd))
    return None


def _progress(state: ShitheadState) -> tuple[int, int, int, int]:
    """What only goes one way in a game: the stock, the burned cards and the table cards."""
    return (len(state.stock), len(state.discard), sum(state.fd_count), sum(len(f) for f in state.face_up))
