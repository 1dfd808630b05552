"""Moves the service makes by itself: computer players' moves and the move made for an idle player."""

from __future__ import annotations

import random

from engine import AnyState, Keep, Move, NeighborView, Phase, PickUp, Play, PlayFaceDown, Ready, ShitheadView, Swap
from engine.ai import make_player
from engine.ai.heuristic import HeuristicPlayer, strength


def computer_move(state: AnyState, seat: int, level: str, seed: int) -> Move:
    """A computer seat's choice, from its own view only; deterministic for a seed."""
    return make_player(level, seed).choose(state.view(seat))


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
