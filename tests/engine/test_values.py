"""Engine values behave the same compiled by mypyc or plain: ``copy.copy``, ``copy.deepcopy`` and a
``pickle`` round trip give equal values of the same type, for rules, moves, events, outcomes,
views and states (README, "The compiled engine").

These tests run on whichever engine this run imports (the compiled one where it is installed), and
:func:`test_the_same_checks_pass_on_plain_python` runs them again in a subprocess with
``SHITHEAD_PURE=1``, so one ``pytest`` command covers both builds.
"""

from __future__ import annotations

import copy
import os
import pickle
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import PRESETS, NeighborRules, new_game, parse_move
from engine.native import compiled_modules, pure_requested

ROOT = Path(__file__).resolve().parents[2]
MOVES = ("p:h:Q:2", "p:u:3:1", "p:d:2", "t", "t:9", "g", "x:K:4", "r", "f", "k", "s")


def _played(kind: str, rules: Any, seats: int, seed: int, steps: int) -> Any:
    state = new_game(kind, rules, seats, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over:
            break
        seat = rng.choice(state.seats_to_act())
        moves = state.legal_moves(seat)
        state.apply(seat, moves[int(rng.random() * len(moves))])
    return state


def _values() -> dict[str, Any]:
    house = PRESETS["standard"].with_rules({"8": "skip", "9": "reverse", "decks": 2, "loser_title": "Pigeon"})
    values: dict[str, Any] = {f"rules {name}": rules for name, rules in PRESETS.items()}
    values |= {"rules house": house, "rules neighbor": NeighborRules(lives=4)}
    values |= {f"move {text}": parse_move(text) for text in MOVES}
    for name, rules in [*PRESETS.items(), ("house", house)]:
        for steps in (0, 12, 60, 3000):
            state = _played("shithead", rules, 4, steps + 1, steps)
            values[f"state {name} {steps}"] = state
            values[f"view {name} {steps}"] = state.view(1)
            values[f"spectator {name} {steps}"] = state.view(None)
            events = state.apply(state.to_act, state.legal_moves(state.to_act)[0]) if state.to_act is not None else []
            values[f"events {name} {steps}"] = events
            values[f"outcome {name} {steps}"] = state.outcome
    for steps in (0, 5, 3000):
        state = _played("neighbor", NeighborRules(), 4, steps + 3, steps)
        values[f"neighbor state {steps}"] = state
        values[f"neighbor view {steps}"] = state.view(2)
    return values


VALUES = _values()
WAYS: dict[str, Callable[[Any], Any]] = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": lambda value: pickle.loads(pickle.dumps(value)),
}


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("name", VALUES)
def test_a_copy_or_a_pickle_round_trip_gives_an_equal_value(name: str, way: str) -> None:
    value = VALUES[name]
    again = WAYS[way](value)
    assert again == value
    assert type(again) is type(value)


def test_copied_states_are_independent_and_play_on_alike() -> None:
    for way in WAYS.values():
        state = _played("shithead", PRESETS["smelly"], 3, 8, 0)
        for s in range(3):
            state.apply(s, "r")
        again = way(state)
        seat = state.to_act
        assert seat is not None
        for move in state.legal_moves(seat):
            assert again.copy().apply(seat, move) == state.copy().apply(seat, move)
        again.apply(seat, again.legal_moves(seat)[0])
        assert again != state  # a move on the copy leaves the original as it was


def test_the_same_checks_pass_on_plain_python() -> None:
    if pure_requested():
        pytest.skip("this run is the plain-Python one")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", str(Path(__file__))],
        cwd=ROOT,
        env={**os.environ, "SHITHEAD_PURE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout


def test_this_run_uses_the_build_it_says() -> None:
    assert (compiled_modules() == []) is pure_requested() or compiled_modules() == []
