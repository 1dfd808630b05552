"""Shithead (RULES.md Part 1): the state, its legal moves, and how a move changes it.

The state works on ranks, not card lists: ``hands[seat][rank]`` holds that seat's cards of one
rank, ``masks[seat]`` has bit ``rank`` set while that list is not empty, and the rules compile to a
bit mask of legal ranks per effective top (:func:`engine.rules.compile_rules`). Legal moves are
``masks[seat] & legal_mask[top]`` looked up in a table — no scan of cards. The effective top is kept
as a number and updated on each play, never searched for. Moves and events are interned or built
with ``tuple.__new__``, and :meth:`ShitheadState.copy` copies a few short lists of ints.

Decided here (RULES.md leaves these open):

* A failed stock gamble is a pickup like any other, so ``pickup_then_play`` applies to it.
* With ``faceup_pickup_takes_one``, a seat playing from face-up takes one face-up card along with
  every pickup, forced or voluntary.
* Each ``reverse`` card of a play flips the direction (two reverse cards cancel out).
* A forfeit is allowed at any time for a seat still in, and is not listed among legal moves. If the
  seat that must make the forced first play forfeits, the start is searched again.
* A game ended by a forfeit has no loser: the last seat holding cards takes the best free place.
* A game can go round for ever: in ``free`` two 5s (wild, *lower*) can pass between three players
  who can do nothing else — the one holding a 5 must lead it, the next, on face-up cards above 5,
  must pick it up. So when every seat to act has exactly one legal move and the position comes
  back (same cards in the same places, same seat to act), the game ends with :class:`Looped`: the
  seats still holding cards are ranked by how many they hold, fewest first; on equal counts the
  seat that would act sooner ranks better; the last is the loser. A position with any choice in
  it never counts, so players who can break a loop always may.
"""

from __future__ import annotations

import random
from typing import Any, Final

from engine.cards import CARDS as _CARDS
from engine.cards import RANK_OF as _RANKS
from engine.cards import RANK_SLOTS as _RANK_SLOTS
from engine.cards import Card, rank_text
from engine.common import OVER_PHASE, PLAY_PHASE, SWAP_PHASE, Outcome, check_deal
from engine.errors import (
    CardNotOwnedError,
    IllegalMoveError,
    NotYourTurnError,
    SchemaError,
)
from engine.events import (
    BlindFailed,
    Burned,
    Drew,
    Event,
    Forfeited,
    GameOver,
    Looped,
    PickedUp,
    Played,
    PlayStarted,
    Readied,
    Reversed,
    Skipped,
    Swapped,
    WentOut,
)
from engine.generated.shithead import ShitheadFields
from engine.moves import (
    MAX_COUNT,
    Forfeit,
    Move,
    PickUp,
    Play,
    PlayFaceDown,
    Ready,
    Source,
    StockGamble,
    Swap,
    parse_move,
)
from engine.rules import CompiledRules, Rules
from engine.views import SeatInfo, ShitheadView

# Module constants are Final: mypyc keeps them in C statics instead of the module's dict.
CARDS: Final = _CARDS
RANK_OF: Final = _RANKS
HAND: Final = Source.HAND
FACE_UP: Final = Source.FACE_UP
FACE_DOWN: Final = Source.FACE_DOWN
RANK_SLOTS: Final = _RANK_SLOTS  # index by rank 2..14; 0 and 1 unused
_HAND_TEXT: Final = HAND.value  # a Played event's source
_FACE_UP_TEXT: Final = FACE_UP.value
_tuple_new = tuple.__new__

# Interned move values, so listing legal moves allocates nothing but the list.
_PLAY: Final[dict[Source, tuple[tuple[Play, ...], ...]]] = {
    src: tuple(
        tuple(Play(src, r, k) if r >= 2 and k >= 1 else Play(src, 2, 1) for k in range(MAX_COUNT + 1))
        for r in range(RANK_SLOTS)
    )
    for src in (HAND, FACE_UP)
}
_PLAY_H: Final = _PLAY[HAND]
_PLAY_U: Final = _PLAY[FACE_UP]
# _UPTO[src][rank][k]: the plays of 1..k cards of that rank, ready to extend a move list with.
_UPTO: Final = {src: tuple(tuple(row[1 : k + 1] for k in range(MAX_COUNT + 1)) for row in _PLAY[src]) for src in _PLAY}
_UPTO_H: Final = _UPTO[HAND]
_UPTO_U: Final = _UPTO[FACE_UP]
_FACE_DOWN: Final = (PlayFaceDown(1), PlayFaceDown(2), PlayFaceDown(3))
_PICKUP: Final = PickUp()
_PICKUP_WITH: Final = tuple(PickUp(r) if r >= 2 else PickUp() for r in range(RANK_SLOTS))
_GAMBLE: Final = StockGamble()
_READY: Final = Ready()
_SWAPS: Final = {(h, f): Swap(h, f) for h in range(2, 15) for f in range(2, 15) if h != f}
_BIT: Final = tuple(1 << r for r in range(RANK_SLOTS))
_CARD_BIT: Final = tuple(1 << c for c in range(len(CARDS)))
_LEGAL_TOPS: Final = frozenset({0, *range(2, RANK_SLOTS)})  # a rank, or 0 for none
_CLEAR: Final = tuple(~(1 << r) for r in range(RANK_SLOTS))
# A run of forced moves is watched for a position coming back only once it is this long: shorter
# runs are everyday play (a pickup, a last card), and hashing positions costs.
LOOP_WATCH_AFTER: Final = 8
_KEY_BITS: Final = (1 << 52) - 1
_SWAP_MOVES: Final[dict[int, tuple[Move, ...]]] = {}  # swap-phase moves by (hand mask, face-up mask)
# _RANKS_IN[mask >> 2]: the ranks whose bits are set, ascending.
_RANKS_IN: Final = tuple(tuple(r for r in range(2, RANK_SLOTS) if m << 2 & 1 << r) for m in range(1 << 13))


def completes_four(c: CompiledRules, pile: list[Card], below: int, rank: int, count: int) -> bool:
    """Whether ``count`` cards of ``rank`` put on the first ``below`` cards of ``pile`` make four of
    a kind that burns (RULES.md §1.7): the row looks through invisible cards, unless the rank played
    is itself invisible — then only a row of that rank at the very top counts. The one burn check
    of the rules and of the search's playouts (engine/ai/rollout.py).
    """
    if not c.four_burns or below + count < 4:
        return False
    run = count
    see_through = not c.invisible[rank]
    invisible = c.invisible
    i = below - 1
    while run < 4 and i >= 0:
        r = RANK_OF[pile[i]]
        if r == rank:
            run += 1
        elif not (see_through and invisible[r]):
            return False
        i -= 1
    return run >= 4


class ShitheadState(ShitheadFields):
    """One game of Shithead. Create it with :meth:`new`; see the package docstring for the API."""

    kind = "shithead"

    def copy(self) -> ShitheadState:
        """An independent copy (cheap: lists of numbers and cards only)."""
        return self._copy_into(ShitheadState())

    # ----------------------------------------------------------------- creation

    @classmethod
    def _blank(cls, rules: Rules, seats: int, seed: int, dealer: int) -> ShitheadState:
        state = cls()
        state._init_fields(rules, seats, seed, dealer)
        return state

    @classmethod
    def new(cls, rules: Rules, seats: int, seed: int, dealer: int = 0) -> ShitheadState:
        """Deal a new game: 3 face-down, 3 face-up, 3 in hand each, from the left of the dealer."""
        check_deal(rules, seats, dealer, " (two decks allow up to 10)" if rules.decks == 1 else "")
        state = cls._blank(rules, seats, seed, dealer)
        rng = random.Random(seed)
        keys = [rng.random() for _ in range(52 * rules.decks)]
        deck = [CARDS[i] for i in sorted(range(52 * rules.decks), key=keys.__getitem__)]
        order = [(dealer + 1 + i) % seats for i in range(seats)]
        for slot in range(3):
            for s in order:
                state.face_down[s][slot] = deck.pop()
                state.fd_count[s] += 1
        for _ in range(3):
            for s in order:
                state.face_up[s].append(deck.pop())
        for _ in range(3):
            for s in order:
                state._add_to_hand(s, [deck.pop()])
        state.stock = deck
        return state

    # ----------------------------------------------------------------- questions

    def seats_to_act(self) -> list[int]:
        """Seats that may move now: every seat not ready in the swap phase, else the one to act."""
        if self.stage is SWAP_PHASE:
            return [s for s in range(self.seats) if self.active[s] and not self.ready[s]]
        if self.stage is PLAY_PHASE:
            return [self.turn]
        return []

    def active_seats(self) -> list[int]:
        return [s for s in range(self.seats) if self.active[s]]

    def source(self, seat: int) -> Source | None:
        """Where the seat plays from now (RULES.md §1.4), or None once it holds no cards."""
        if self.hand_count[seat]:
            return HAND
        if self.face_up[seat]:
            return FACE_UP
        if self.fd_count[seat]:
            return FACE_DOWN
        return None

    def hand_of(self, seat: int) -> list[Card]:
        """The cards in a seat's hand, by rank (private: for that seat's view only)."""
        return [c for lst in self.hands[seat] for c in lst]

    def legal_moves(self, seat: Any) -> list[Move]:
        """Legal moves of ``seat`` now (empty when it may not act). Forfeit is always allowed too."""
        if seat.__class__ is not int:
            self._check_seat(seat)
        return self._legal_moves(seat)

    def _legal_moves(self, seat: int) -> list[Move]:
        if self.stage is not PLAY_PHASE or seat != self.turn:
            self._check_seat(seat)
            if self.stage is SWAP_PHASE and self.active[seat] and not self.ready[seat]:
                return self._swap_moves(seat)
            return []
        if not self.hand_count[seat]:
            return self._table_moves(seat)
        hand = self.hands[seat]
        required = self.required
        if required:
            return list(_UPTO_H[required][len(hand[required])])
        moves: list[Move] = []
        for r in _RANKS_IN[(self.masks[seat] & self._c.legal_mask[self.top]) >> 2]:
            moves += _UPTO_H[r][len(hand[r])]
        rules = self.rules
        if self.pile and (not moves or rules.may_pickup_anytime):
            moves.append(_PICKUP)
        if self.stock and rules.stock_gamble:
            moves.append(_GAMBLE)
        return moves

    def _table_moves(self, seat: int) -> list[Move]:
        """Legal moves of the seat to act once its hand is empty: face-up, then face-down."""
        moves: list[Move] = []
        up = self.face_up[seat]
        if up:
            counts = [0] * RANK_SLOTS
            for c in up:
                counts[RANK_OF[c]] += 1
            for r in self._c.legal_ranks[self.top]:
                if counts[r]:
                    moves += _UPTO_U[r][counts[r]]
            if self.pile and (not moves or self.rules.may_pickup_anytime):
                moves.extend(self._pickup_moves(seat, True))
            return moves
        moves = [_FACE_DOWN[i] for i, c in enumerate(self.face_down[seat]) if c is not None]
        if self.pile and self.rules.may_pickup_anytime:
            moves.append(_PICKUP)
        return moves

    def _pickup_moves(self, seat: int, up_source: bool) -> list[Move]:
        if up_source and self.rules.faceup_pickup_takes_one:
            return [_PICKUP_WITH[r] for r in sorted({RANK_OF[c] for c in self.face_up[seat]})]
        return [_PICKUP]

    def _swap_moves(self, seat: int) -> list[Move]:
        up_ranks = sorted({RANK_OF[c] for c in self.face_up[seat]})
        moves: list[Move] = [_SWAPS[(h, f)] for h in _RANKS_IN[self.masks[seat] >> 2] for f in up_ranks if f != h]
        moves.append(_READY)
        return moves

    # ----------------------------------------------------------------- applying

    def apply(self, seat: Any, move: Move | str) -> list[Event]:
        """Apply ``seat``'s move (a value or its text) and return what happened.

        Raises InvalidMoveError, IllegalMoveError, CardNotOwnedError, NotYourTurnError,
        UnknownSeatError or GameOverError — always before changing anything.
        """
        if move.__class__ is str:
            move = parse_move(move)
        if self.stage is not PLAY_PHASE or seat != self.turn or seat.__class__ is not int:
            return self._apply_slow(seat, move)  # type: ignore[arg-type]
        return self._apply_in_turn(seat, move)  # type: ignore[arg-type]

    def _apply_in_turn(self, seat: int, move: Move) -> list[Event]:
        kind = move.__class__
        if kind is Play and move.source is HAND and self.hand_count[seat] and not self.required:  # type: ignore[union-attr]
            # The most frequent move, checked here with what it needs only (the seat plays from hand,
            # the first play is made): a legal rank, held often enough; else _play names the fault.
            play: Play = move  # type: ignore[assignment]
            rank, count = play.rank, play.count
            if not self._c.legal[self.top][rank] or len(self.hands[seat][rank]) < count:
                return self._play(seat, play)  # raises the right error
            events = self._play_from_hand(seat, rank, count)
        elif kind is Play:
            events = self._play(seat, move)  # type: ignore[arg-type]
        elif kind is PlayFaceDown:
            events = self._play_face_down(seat, move.slot)  # type: ignore[union-attr]
        elif kind is PickUp:
            events = self._pickup(seat, move.face_up_rank)  # type: ignore[union-attr]
        elif kind is StockGamble:
            events = self._gamble(seat)
        elif kind is Forfeit:
            return self._forfeit(seat)
        else:
            raise IllegalMoveError(f"{move} is not a move of the play phase")
        self.moves_applied += 1
        if self.stage is PLAY_PHASE:
            self._watch_loop(events)
        return events

    def _watch_loop(self, events: list[Event]) -> None:
        """End the game if it can only go round for ever (see the module docstring).

        From a position where the seat to act has one legal move, what follows is determined; if
        every position since one of them was like that and that one comes back, it always will.
        """
        if not self._forced(self.turn):
            if self.forced_run:
                self.forced_run = 0
                self.loop = []
            return
        self.forced_run += 1
        if self.forced_run <= LOOP_WATCH_AFTER:
            return
        key = self._position_key()
        loop = self.loop
        if key in loop:
            self._end_loop(len(loop) - loop.index(key), events)
        else:
            loop.append(key)

    def _forced(self, seat: int) -> bool:
        """Whether the seat to act has exactly one legal move (a forfeit aside), without listing them."""
        rules = self.rules
        may_pick_up = bool(self.pile) and rules.may_pickup_anytime
        if not self.hand_count[seat]:
            up = self.face_up[seat]
            if not up:
                return self.fd_count[seat] == 1 and not may_pick_up
            legal = self._c.legal[self.top]
            plays = 0  # one move per legal card: each count of each legal rank
            for c in up:
                if legal[RANK_OF[c]]:
                    plays += 1
            if plays:
                return plays == 1 and not may_pick_up
            return not rules.faceup_pickup_takes_one or len({RANK_OF[c] for c in up}) == 1
        if self.required:
            return len(self.hands[seat][self.required]) == 1
        if self.stock and rules.stock_gamble:
            return False
        legal_ranks = self.masks[seat] & self._c.legal_mask[self.top]
        if not legal_ranks:
            return True  # a pickup, and nothing else
        if legal_ranks & (legal_ranks - 1) or may_pick_up:
            return False
        return len(self.hands[seat][legal_ranks.bit_length() - 1]) == 1

    def _position_key(self) -> int:
        """A hash of everything that decides what happens next in the play phase. Suits never
        matter, so cards count by rank: two 5s trading places are the same position. Kept to 52
        bits, so that it survives any JSON reader exactly (snapshots store it)."""
        return _KEY_BITS & hash(
            (
                self.turn,
                self.direction,
                self.top,
                tuple([RANK_OF[c] for c in self.pile]),
                tuple([tuple([len(lst) for lst in hand]) for hand in self.hands]),
                tuple([tuple(sorted([RANK_OF[c] for c in up])) for up in self.face_up]),
                tuple(self.fd_count),
                len(self.stock),
                len(self.discard),
                tuple(self.active),
            )
        )

    def _end_loop(self, moves: int, events: list[Event]) -> None:
        """Rank the seats still in by the cards they hold (fewest first, then turn order); end."""
        n, d = self.seats, self.direction
        in_turn_order = [s for s in ((self.turn + i * d) % n for i in range(n)) if self.active[s]]
        held = [self.hand_count[s] + len(self.face_up[s]) + self.fd_count[s] for s in range(n)]
        ranked = sorted(in_turn_order, key=held.__getitem__)
        events.append(Looped(moves))
        for s in ranked[:-1]:
            self.finished.append(s)
            self.active[s] = False
        self.n_active = 1
        self.loop, self.forced_run = [], 0
        self._finish(events, by_forfeit=False)

    def _apply_slow(self, seat: Any, move: Move) -> list[Event]:
        self._check_move(seat, move)
        if move.__class__ is Forfeit:
            return self._forfeit(seat)
        if self.stage is PLAY_PHASE:
            raise NotYourTurnError(f"seat {seat} is not to act (seat {self.turn} is)")
        events = self._apply_swap_phase(seat, move)
        self.moves_applied += 1
        return events

    def _play(self, seat: int, move: Play) -> list[Event]:
        """Any play of known cards, fully checked (hand or face-up)."""
        source, rank, count = move.source, move.rank, move.count
        current = self.source(seat)
        if source is not current:
            raise IllegalMoveError(f"{move}: seat {seat} plays from {current}")
        if self.required and rank != self.required:
            raise IllegalMoveError(f"{move}: the first play must include a {rank_text(self.required)}")
        if not self._c.legal[self.top][rank]:
            raise IllegalMoveError(f"{move}: that rank cannot go on the pile now")
        if source is HAND:
            held = len(self.hands[seat][rank])
            if held < count:
                raise CardNotOwnedError(f"{move}: seat {seat} holds {held} of that rank")
            return self._play_from_hand(seat, rank, count)
        return self._lay(seat, _FACE_UP_TEXT, tuple(self._take_face_up(seat, rank, count)), rank, count, False)

    def _play_from_hand(self, seat: int, rank: int, count: int) -> list[Event]:
        """A checked play of ``count`` cards of ``rank`` from the seat's hand."""
        lst = self.hands[seat][rank]
        if count == 1:
            cards: tuple[Card, ...] = (lst.pop(),)
        else:
            cards = tuple(lst[-count:])
            del lst[-count:]
        if not lst:
            self.masks[seat] &= _CLEAR[rank]
        self.hand_count[seat] -= count
        return self._lay(seat, _HAND_TEXT, cards, rank, count, True)

    def _lay(
        self, seat: int, source: str, cards: tuple[Card, ...], rank: int, count: int, from_hand: bool
    ) -> list[Event]:
        """Every legal play (from hand, face up, face down, the stock) after its checks: its cards onto
        the pile, told, then all that follows (:meth:`_resolve`)."""
        self.pile += cards
        self.required = 0
        events: list[Event] = [_tuple_new(Played, (seat, source, cards))]
        self._resolve(seat, rank, count, from_hand, events)
        return events

    def known_hand(self, seat: int) -> tuple[Card, ...]:
        """The cards everybody saw ``seat`` take into its hand and not seen leave it since."""
        known = self.known[seat]
        if not known:
            return ()
        return tuple(c for lst in self.hands[seat] for c in lst if known >> c & 1)

    def barred_ranks(self, seat: int) -> tuple[int, ...]:
        """The ranks none of ``seat``'s unseen hand cards has, as everybody can tell (ascending)."""
        barred = self.barred[seat]
        if not barred or self.hand_count[seat] == len(self.known_hand(seat)):
            return ()
        return tuple(r for r in range(2, 15) if barred & _BIT[r])

    def _take_face_up(self, seat: int, rank: int, count: int) -> list[Card]:
        up = self.face_up[seat]
        mine = [c for c in up if RANK_OF[c] == rank]
        if len(mine) < count:
            raise CardNotOwnedError(f"seat {seat} has {len(mine)} face-up cards of that rank")
        taken = mine[:count]
        self.face_up[seat] = [c for c in up if c not in taken]
        return taken

    def _play_face_down(self, seat: int, slot: int) -> list[Event]:
        current = self.source(seat)
        if current is not FACE_DOWN:
            raise IllegalMoveError(f"p:d:{slot}: seat {seat} plays from {current}, not face-down")
        card = self.face_down[seat][slot - 1]
        if card is None:
            raise CardNotOwnedError(f"p:d:{slot}: face-down slot {slot} is empty")
        self.face_down[seat][slot - 1] = None
        self.fd_count[seat] -= 1
        return self._blind(seat, card, FACE_DOWN.value)

    def _gamble(self, seat: int) -> list[Event]:
        if not self.rules.stock_gamble:
            raise IllegalMoveError("g: blind stock play is not allowed by these rules")
        if not self.stock:
            raise IllegalMoveError("g: the stock is empty")
        if self.required:
            raise IllegalMoveError("g: the first play of the game must come from hand")
        return self._blind(seat, self.stock.pop(), "g")

    def _blind(self, seat: int, card: Card, source: str) -> list[Event]:
        """A card turned over blind: played with all its effects if legal, else picked up with the pile."""
        rank = RANK_OF[card]
        if self._c.legal[self.top][rank]:
            return self._lay(seat, source, (card,), rank, 1, False)
        self.pile.append(card)
        events: list[Event] = [BlindFailed(seat, source, card)]
        self._take_pile(seat, None, events)
        return events

    def _pickup(self, seat: int, face_up_rank: int | None) -> list[Event]:
        if not self.pile:
            raise IllegalMoveError("t: the pile is empty")
        source = self.source(seat)
        if not self.rules.may_pickup_anytime and self._can_play(seat, source):
            raise IllegalMoveError("t: you have a legal play, so you may not pick up")
        takes_one = source is FACE_UP and self.rules.faceup_pickup_takes_one
        if takes_one and face_up_rank is None:
            raise IllegalMoveError("t: name the face-up card to take along (t:RANK)")
        if not takes_one and face_up_rank is not None:
            raise IllegalMoveError(f"{PickUp(face_up_rank)}: no face-up card is taken along here")
        if takes_one and not any(RANK_OF[c] == face_up_rank for c in self.face_up[seat]):
            raise CardNotOwnedError(f"{PickUp(face_up_rank)}: no such face-up card")
        if source is HAND and not self.rules.may_pickup_anytime:  # forced: nothing in hand fits
            self.barred[seat] |= self._c.legal_mask[self.top]
        events: list[Event] = []
        self._take_pile(seat, face_up_rank, events)
        return events

    def _can_play(self, seat: int, source: Source | None) -> bool:
        if source is HAND:
            return bool(self.masks[seat] & self._c.legal_mask[self.top])
        if source is FACE_UP:
            legal = self._c.legal[self.top]
            return any(legal[RANK_OF[c]] for c in self.face_up[seat])
        return source is FACE_DOWN

    def _take_pile(self, seat: int, face_up_rank: int | None, events: list[Event]) -> None:
        taken = self.pile
        extra = None
        if face_up_rank is not None:
            up = self.face_up[seat]
            extra = up.pop(next(i for i, c in enumerate(up) if RANK_OF[c] == face_up_rank))
            taken.append(extra)
        # _add_to_hand inlined, and the pile was face up: everybody saw what went into the hand.
        hand, mask, known = self.hands[seat], self.masks[seat], self.known[seat]
        for c in taken:
            r = RANK_OF[c]
            hand[r].append(c)
            mask |= _BIT[r]
            known |= _CARD_BIT[c]
        self.masks[seat], self.known[seat] = mask, known
        self.hand_count[seat] += len(taken)
        events.append(_tuple_new(PickedUp, (seat, len(taken), extra)))
        self.pile = []
        self.top = 0
        if not self.rules.pickup_then_play:
            self._advance(seat, 1, events)

    def _add_to_hand(self, seat: int, cards: list[Card]) -> None:
        hand = self.hands[seat]
        mask = self.masks[seat]
        for c in cards:
            r = RANK_OF[c]
            hand[r].append(c)
            mask |= _BIT[r]
        self.masks[seat] = mask
        self.hand_count[seat] += len(cards)

    def _resolve(self, seat: int, rank: int, count: int, from_hand: bool, events: list[Event]) -> None:
        """Everything after cards reach the pile: burn, refill, going out, who acts next."""
        c = self._c
        pile = self.pile
        burned = c.burns[rank] or completes_four(c, pile, len(pile) - count, rank, count)
        if burned:
            events.append(_tuple_new(Burned, (seat, len(pile), not c.burns[rank])))
            self.discard += pile
            self.pile = []
            self.top = 0
        elif not c.invisible[rank]:
            self.top = rank
        if from_hand and self.stock and self.hand_count[seat] < 3:
            self._refill(seat, events)
        if not self.hand_count[seat] and not self.face_up[seat] and not self.fd_count[seat]:
            self._go_out(seat, events)
            if self.stage is OVER_PHASE:
                pass
            elif burned or c.plain_move[rank]:
                self._advance(seat, 1, events)
            else:  # going out keeps the play's skip or reverse (RULES.md §1.7)
                self._skip_or_reverse(seat, rank, count, events)
        elif burned:
            pass  # the same seat plays again on the empty table
        elif c.plain_move[rank]:
            self.turn = self.next_seat(seat)
        else:
            self._skip_or_reverse(seat, rank, count, events)

    def _skip_or_reverse(self, seat: int, rank: int, count: int, events: list[Event]) -> None:
        c = self._c
        if c.reverses[rank] and count % 2:
            self.direction = -self.direction
            events.append(Reversed(self.direction))
        self._advance(seat, 1 + count if c.skips[rank] else 1, events)

    def _refill(self, seat: int, events: list[Event]) -> None:
        stock = self.stock
        take = min(3 - self.hand_count[seat], len(stock))
        drawn = stock[-take:]
        del stock[-take:]
        self._add_to_hand(seat, drawn)
        self.barred[seat] = 0  # the drawn cards may be anything
        events.append(_tuple_new(Drew, (seat, take)))

    def _advance(self, seat: int, steps: int, events: list[Event]) -> None:
        """Pass the turn ``steps`` active seats along; the first ``steps - 1`` are skipped."""
        s = self.next_seat(seat)
        if steps > 1:
            skipped: list[int] = []
            for _ in range(steps - 1):
                skipped.append(s)
                s = self.next_seat(s)
            events.append(Skipped(tuple(skipped)))
        self.turn = s

    def next_seat(self, seat: int) -> int:
        """The seat still in that comes after ``seat`` in the direction of play."""
        n, d, active = self.seats, self.direction, self.active
        s = (seat + d) % n
        while not active[s]:
            s = (s + d) % n
        return s

    def burns(self, rank: int, count: int) -> bool:
        """Would ``count`` cards of ``rank`` played now burn the pile (a burn card, or four of a kind)?"""
        c = self._c
        return c.burns[rank] or completes_four(c, self.pile, len(self.pile), rank, count)

    def _go_out(self, seat: int, events: list[Event]) -> None:
        self.finished.append(seat)
        self.active[seat] = False
        self.n_active -= 1
        events.append(WentOut(seat, len(self.finished)))
        if self.n_active == 1:
            self._finish(events, by_forfeit=False)

    def _finish(self, events: list[Event], *, by_forfeit: bool) -> None:
        self.stage = OVER_PHASE
        remaining = self.active.index(True)
        self.loser = -1 if by_forfeit else remaining
        outcome = self._outcome()
        events.append(GameOver(outcome.places, outcome.winners, outcome.loser))

    def _outcome(self) -> Outcome:
        places = [0] * self.seats
        for i, s in enumerate(self.finished):
            places[s] = i + 1
        for i, s in enumerate(self.forfeited):
            places[s] = self.seats - i
        for s in range(self.seats):
            if self.active[s]:
                places[s] = len(self.finished) + 1
        winners = tuple(s for s in range(self.seats) if places[s] == 1)
        return Outcome(tuple(places), winners, None if self.loser < 0 else self.loser)

    # ----------------------------------------------------------------- swap phase

    def _apply_swap_phase(self, seat: int, move: Move) -> list[Event]:
        if not self.active[seat] or self.ready[seat]:
            raise NotYourTurnError(f"seat {seat} has finished swapping")
        if isinstance(move, Swap):
            return self._swap(seat, move.hand_rank, move.face_up_rank)
        kind = move.__class__
        if kind is Ready:
            self.ready[seat] = True
            events: list[Event] = [Readied(seat)]
            self._start_if_all_ready(events)
            return events
        raise IllegalMoveError(f"{move} is not a move of the swap phase (swap or ready)")

    def _swap(self, seat: int, hand_rank: int, face_up_rank: int) -> list[Event]:
        if hand_rank == face_up_rank:
            raise IllegalMoveError("swapping two cards of the same rank changes nothing")
        hand = self.hands[seat]
        up = self.face_up[seat]
        idx = None
        for i, c in enumerate(up):
            if RANK_OF[c] == face_up_rank:
                idx = i
                break
        if not hand[hand_rank] or idx is None:
            raise CardNotOwnedError(f"{Swap(hand_rank, face_up_rank)}: seat {seat} does not hold those cards")
        from_hand = hand[hand_rank].pop()
        if not hand[hand_rank]:
            self.masks[seat] &= _CLEAR[hand_rank]
        self.hand_count[seat] -= 1
        from_up = up[idx]
        up[idx] = from_hand
        self._add_to_hand(seat, [from_up])
        self.known[seat] |= _CARD_BIT[from_up]
        return [Swapped(seat, from_hand, from_up)]

    def _start_if_all_ready(self, events: list[Event]) -> None:
        if all(self.ready[s] or not self.active[s] for s in range(self.seats)):
            self.stage = PLAY_PHASE
            self._choose_starter(events)

    def _choose_starter(self, events: list[Event]) -> None:
        """RULES.md §1.3: lowest plain card in hand, ties to the first seat left of the dealer."""
        order = [(self.dealer + 1 + i) % self.seats for i in range(self.seats)]
        order = [s for s in order if self.active[s]]
        for rank in self._c.start_ranks:
            for s in order:
                if self.hands[s][rank]:
                    self.turn, self.required = s, rank
                    events.append(PlayStarted(s, rank))
                    return
        self.turn, self.required = order[0], 0
        events.append(PlayStarted(order[0], None))

    # ----------------------------------------------------------------- forfeit

    def _forfeit(self, seat: int) -> list[Event]:
        if not self.active[seat]:
            raise NotYourTurnError(f"seat {seat} is no longer in the game")
        unseen = self.hand_of(seat) + [c for c in self.face_down[seat] if c is not None]
        self.discard += unseen
        self.discard += self.face_up[seat]
        self.unseen_out += unseen
        self.known[seat] = 0
        self.barred[seat] = 0
        self.hands[seat] = [[] for _ in range(RANK_SLOTS)]
        self.masks[seat] = 0
        self.hand_count[seat] = 0
        self.face_up[seat] = []
        self.face_down[seat] = [None, None, None]
        self.fd_count[seat] = 0
        self.loop, self.forced_run = [], 0
        self.forfeited.append(seat)
        self.active[seat] = False
        self.n_active -= 1
        events: list[Event] = [Forfeited(seat, self.seats - len(self.forfeited) + 1)]
        self.moves_applied += 1
        if self.n_active == 1:
            self._finish(events, by_forfeit=True)
        elif self.stage is SWAP_PHASE:
            self._start_if_all_ready(events)
        elif self.turn == seat:
            if self.required:
                self._choose_starter(events)
            else:
                self._advance(seat, 1, events)
        return events

    # ----------------------------------------------------------------- views and copies

    def view(self, seat: Any) -> ShitheadView:
        """What ``seat`` may know (None: a spectator)."""
        basics = self._view_basics(seat)
        outcome = basics["outcome"]
        return ShitheadView(
            **basics,
            rules=self.rules,
            direction=self.direction,
            seats=tuple(self._seat_info(s, outcome) for s in range(self.seats)),
            hand=() if seat is None else tuple(self.hand_of(seat)),
            pile=tuple(self.pile),
            effective_top=self.top or None,
            stock_count=len(self.stock),
            discard_count=len(self.discard),
            required_rank=self.required or None,
            source=None if seat is None or self.stage is not PLAY_PHASE else self.source(seat),
            out=self._seen_out(),
        )

    def _seat_info(self, seat: int, outcome: Outcome | None) -> SeatInfo:
        """What everybody may know of ``seat``."""
        face_down = self.face_down[seat]
        return SeatInfo(
            seat=seat,
            face_up=tuple(self.face_up[seat]),
            hand_count=self.hand_count[seat],
            face_down=(face_down[0] is not None, face_down[1] is not None, face_down[2] is not None),
            ready=self.ready[seat],
            active=self.active[seat],
            place=outcome.places[seat] if outcome else self._place_so_far(seat),
            forfeited=seat in self.forfeited,
            known_hand=self.known_hand(seat),
            barred_ranks=self.barred_ranks(seat),
        )

    def _seen_out(self) -> tuple[Card, ...]:
        """The discarded cards everybody saw go (burned piles), in order."""
        if not self.unseen_out:
            return tuple(self.discard)
        unseen = set(self.unseen_out)
        return tuple(c for c in self.discard if c not in unseen)

    def _place_so_far(self, seat: int) -> int | None:
        if seat in self.finished:
            return self.finished.index(seat) + 1
        if seat in self.forfeited:
            return self.seats - self.forfeited.index(seat)
        return None

    def _repr_details(self) -> str:
        return f" rules={self.rules.name} pile={len(self.pile)} stock={len(self.stock)}"

    def _load(self, data: dict[str, Any]) -> None:
        """Every field from :meth:`to_dict` data: the saved ones, then those derived from them."""
        self._init_fields(Rules.from_dict(data["rules"]), int(data["seats"]), int(data["seed"]), int(data["dealer"]))
        self._load_fields(data)
        self.masks = [sum(_BIT[r] for r in range(RANK_SLOTS) if lists[r]) for lists in self.hands]
        self.hand_count = [sum(len(lst) for lst in lists) for lists in self.hands]
        self.fd_count = [sum(c is not None for c in fd) for fd in self.face_down]
        self.n_active = sum(self.active)
        self._check_loaded()

    def _check_loaded(self) -> None:
        """SchemaError unless the loaded fields make a game: a list per seat, every card in one place,
        turn, direction and ranks in range."""
        seats = self.seats
        if len(self.face_up) != seats or len(self.face_down) != seats or len(self.hands) != seats:
            raise SchemaError("seat lists do not match the number of seats")
        placed = [c for fd in self.face_down for c in fd if c is not None] + self.stock + self.pile
        placed += [c for s in range(seats) for c in self.hand_of(s)] + self.discard
        placed += [c for up in self.face_up for c in up]
        if sorted(placed) != list(range(52 * self.rules.decks)) or len(self.active) != seats:
            raise SchemaError("every card must be in exactly one place")
        if len(self.barred) != seats:
            raise SchemaError("the barred ranks do not match the number of seats")
        if not -1 <= self.turn < seats or self.direction not in (1, -1):
            raise SchemaError(f"turn {self.turn} or direction {self.direction} out of range")
        if self.top not in _LEGAL_TOPS or self.required not in _LEGAL_TOPS:
            raise SchemaError("top or required rank out of range")
