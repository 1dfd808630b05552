"""Moves the service makes by itself: computer players' moves, a human's forced move (when they let
the bot make it), and the move made for an idle player."""

from __future__ import annotations

import random
from collections.abc import Mapping
from enum import StrEnum

from engine import AnyState, Keep, Move, NeighborView, Phase, PickUp, Play, PlayFaceDown, Ready, ShitheadView, Swap
from engine.ai import DEFAULT_LEVEL, LEVELS, level_name, make_player
from engine.ai.heuristic import HeuristicPlayer, strength
from engine.forced import Forced, forced_move

PLAY_OUT_LEVEL = DEFAULT_LEVEL  # computers left among themselves finish at this level, quickly


def computer_move(state: AnyState, seat: int, level: str, seed: int) -> Move:
    """A computer seat's choice, from its own view only; deterministic for a seed."""
    return make_player(level, seed).choose(state.view(seat))


def computer_seed(game_seed: int, move_count: int) -> int:
    """The seed of a computer's decision: the game's, and how many moves were made."""
    return game_seed * 7919 + move_count


def next_computer(state: AnyState, levels: Mapping[int, str]) -> tuple[int, str] | None:
    """The computer seat to act now and the level it plays at, or None (a human's turn, or over).

    Once no human holds cards (all out or gone), a computer stronger than :data:`PLAY_OUT_LEVEL`
    plays at that level: nobody waits for a search to settle the places between computers."""
    if state.is_over:
        return None
    seat = next((s for s in state.seats_to_act() if s in levels), None)
    if seat is None:
        return None
    level = level_name(levels[seat])
    humans_in = any(s not in levels for s in state.active_seats())
    if not humans_in and LEVELS.index(level) > LEVELS.index(PLAY_OUT_LEVEL):
        level = PLAY_OUT_LEVEL
    return seat, level


class Notify(StrEnum):
    """When a new turn notifies its player (a player's setting)."""

    SMART = "smart"  # unless they pressed or wrote in their private chat a moment ago; then one nudge later
    EVERY = "every"  # every turn notifies
    DIGEST = "digest"  # turns come silently; the inbox notifies at most once an interval (service/inbox.py)

    @classmethod
    def of(cls, value: str | None) -> Notify:
        return cls(value) if value is not None and value in cls._value2member_map_ else cls.SMART


class Autoplay(StrEnum):
    """Which of a player's forced moves the bot makes at once, for them (a player's setting)."""

    OFF = "off"  # none: every move is the player's tap
    PUBLIC = "public"  # those everybody can see are forced (the default: it gives nothing away)
    ALL = "all"  # also the one fitting card of a hand of several (the others learn nothing else fits)

    @classmethod
    def of(cls, value: str | None) -> Autoplay:
        return cls(value) if value is not None and value in cls._value2member_map_ else cls.PUBLIC

    def allows(self, forced: Forced) -> bool:
        return self is Autoplay.ALL or (self is Autoplay.PUBLIC and forced is Forced.PUBLIC)


def next_forced(state: AnyState, levels: Mapping[int, str], autoplay: Mapping[int, str]) -> tuple[int, Move] | None:
    """The human to act now and their forced move, if they let the bot make it (None otherwise)."""
    seat = state.to_act
    if seat is None or seat in levels or state.is_over:
        return None
    found = forced_move(state.view(seat))
    if found is None or not Autoplay.of(autoplay.get(seat)).allows(found[1]):
        return None
    return seat, found[0]


def timeout_moves(state: AnyState, seat: int, seed: int) -> list[Move]:
    """What the service does for a seat whose time ran out (applied in order).

    Swap phase: the heuristic's swaps, then ready. Neighbor: keep. Play: pick up the pile (taking
    the worst face-up card along where the rules say so) when the rules allow a pickup; otherwise
    lead the lowest legal card — a plain one if there is one — or turn a face-down card at random.
    """
    view = state.view(seat)
    if isinstance(view, NeighborView):
        return [Keep()]
    if view.phase is Phase.SWAP:
        return _swap_then_ready(state, seat)
    return [_play_for(view, random.Random(seed))]


def _swap_then_ready(state: AnyState, seat: int) -> list[Move]:
    """The heuristic's swaps, worked out on a copy, then ready."""
    trial = state.copy()
    player = HeuristicPlayer()
    moves: list[Move] = []
    for _ in range(6):
        move = player.choose(trial.view(seat))
        if not isinstance(move, Swap):
            break
        trial.apply(seat, move)
        moves.append(move)
    moves.append(Ready())
    return moves


def _play_for(view: ShitheadView, rng: random.Random) -> Move:
    moves = view.legal_moves
    pickups = [m for m in moves if isinstance(m, PickUp)]
    if pickups:
        rules = view.rules
        return min(pickups, key=lambda m: strength(rules, m.face_up_rank) if m.face_up_rank else 0)
    plays = [m for m in moves if isinstance(m, Play)]
    if plays:
        rules = view.rules
        return min(plays, key=lambda m: (strength(rules, m.rank), m.count))
    slots = [m for m in moves if isinstance(m, PlayFaceDown)]
    if slots:
        return rng.choice(slots)
    return moves[0]
