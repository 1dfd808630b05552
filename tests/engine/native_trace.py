"""A deterministic trace of the engine at work, to compare the compiled engine with plain Python.

``python -m tests.engine.native_trace`` prints it as JSON. Seeded random self-play in every preset
and in Neighbor with 2 and 4 seats, recording each move's text, its events, a seat's view and a spectator's, and
every 20 moves a copy and a ``to_dict``/``from_dict`` round trip; the search's playout policy
(``engine.ai.rollout``, compiled with the engine) at work in every preset; then errors on bad input.
"""

from __future__ import annotations

import json
import random
from typing import Any

from engine import PRESETS, ShitheadState, default_rules, event_to_dict, load_game, new_game, parse_move
from engine.ai.rollout import playout, policy
from engine.common import Phase
from engine.errors import EngineError

SEEDS = (1, 2)


def _game(kind: str, rules: Any, seats: int, seed: int) -> list[Any]:
    state = new_game(kind, rules, seats, seed)
    rng = random.Random(seed * 7919 + seats)
    out: list[Any] = []
    step = 0
    while not state.is_over:
        seat = rng.choice(state.seats_to_act())
        moves = state.legal_moves(seat)
        move = moves[int(rng.random() * len(moves))]
        events = state.apply(seat, str(move) if step % 3 == 0 else move)
        out.append([seat, str(move), [event_to_dict(e) for e in events]])
        if step % 20 == 0:
            out.append([repr(state.view(seat)), repr(state.view(None)), repr(state)])
            data = state.to_dict()
            again = load_game(json.loads(json.dumps(data)))
            copied = state.copy()
            out.append([data == again.to_dict(), copied == state, copied.to_dict() == data])
        step += 1
    out.append(repr(state.outcome))
    return out


def _errors() -> list[str]:
    state = ShitheadState.new(PRESETS["standard"], 3, 5)
    out = []
    for seat, text in ((3, "r"), (0, "p:h:Q:01"), (0, "p:d:1"), (-1, "f"), (0, "x:2:2")):
        try:
            state.apply(seat, parse_move(text))
            out.append(f"{seat} {text}: accepted")
        except EngineError as exc:
            out.append(f"{seat} {text}: {type(exc).__name__}: {exc}")
    return out


def _playouts(rules: Any, seats: int, seed: int) -> list[Any]:
    """The search's playouts (engine/ai/rollout.py, compiled too): from every 7th position of a
    random game, the policy's move for the seat to act, then the whole playout's end."""
    state = new_game("shithead", rules, seats, seed)
    rng = random.Random(seed)
    out: list[Any] = []
    step = 0
    while not state.is_over:
        seat = state.seats_to_act()[0]
        if state.phase is Phase.PLAY and step % 7 == 0:
            trial = state.copy()
            rnd = random.Random(step).random
            out.append([str(policy(trial, seat, rnd)), repr(playout(trial, rnd, max_moves=400)), repr(trial)])
        moves = state.legal_moves(seat)
        state.apply(seat, moves[int(rng.random() * len(moves))])
        step += 1
    return out


def trace() -> dict[str, Any]:
    tables = [("shithead", name, rules) for name, rules in PRESETS.items()]
    tables.append(("neighbor", "neighbor", default_rules("neighbor")))
    games = {
        f"{name} {seats} {seed}": _game(kind, rules, seats, seed)
        for kind, name, rules in tables
        for seats in (2, 4)
        for seed in SEEDS
    }
    playouts = {
        f"{name} {seats} {seed}": _playouts(rules, seats, seed)
        for name, rules in PRESETS.items()
        for seats in (2, 4)
        for seed in SEEDS
    }
    return {"games": games, "playouts": playouts, "errors": _errors()}


if __name__ == "__main__":
    print(json.dumps(trace(), sort_keys=True))
