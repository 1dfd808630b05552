"""Shithead's fast path (the most frequent move, a play from hand once the first play is made) has
one rule path with every other play: it checks only what it must, then hands the cards to the same
helper as the fully checked play, and everything after the cards reach the pile (burn, refill, going
out, who acts next) is ``_resolve``'s alone."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from engine import PRESETS, Play, ShitheadState, new_game
from engine.moves import Source

SHITHEAD_PY = Path(__file__).resolve().parents[2] / "engine" / "shithead.py"
# What a play changes once its cards are on the pile: the rules of _resolve and the helpers it calls.
AFTER_THE_PILE = {"top", "turn", "direction", "discard", "stock", "finished", "active", "n_active", "stage", "loser"}


def _method(name: str) -> ast.FunctionDef:
    tree = ast.parse(SHITHEAD_PY.read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ShitheadState")
    return next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name)


def _assigned(function: ast.FunctionDef) -> set[str]:
    """The attributes of ``self`` that ``function`` assigns, augments or calls ``_refill``/``_advance`` on."""
    names = set()
    for node in ast.walk(function):
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        )
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self":
                    names.add(sub.attr)
        if isinstance(node, ast.Attribute) and node.attr in ("_refill", "_advance", "_go_out", "next_seat"):
            names.add(node.attr)
    return names


@pytest.mark.parametrize("name", ["_apply_in_turn", "_play", "_play_from_hand", "_lay", "_blind"])
def test_only_resolve_decides_what_follows_a_play(name: str) -> None:
    assert not _assigned(_method(name)) & (AFTER_THE_PILE | {"_refill", "_advance", "_go_out", "next_seat"})


def test_every_play_reaches_the_pile_through_one_helper() -> None:
    """The fast path, the checked play and a blind card all call _lay, the only caller of _resolve."""
    callers = {
        name
        for name in ("_apply_in_turn", "_play", "_play_from_hand", "_blind", "_lay")
        if "_resolve" in {n.attr for n in ast.walk(_method(name)) if isinstance(n, ast.Attribute)}
    }
    assert callers == {"_lay"}
    assert "_play_from_hand" in {n.attr for n in ast.walk(_method("_apply_in_turn")) if isinstance(n, ast.Attribute)}


def _checked(state: ShitheadState, seat: int, move: Play) -> tuple[ShitheadState, list[object]]:
    """``move`` through the fully checked play, with what apply adds after any move."""
    state = state.copy()
    events = state._play(seat, move)
    state.moves_applied += 1
    if not state.is_over:
        state._watch_loop(events)
    return state, list(events)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_fast_path_plays_as_the_checked_play_does(preset: str) -> None:
    """Every play from hand the fast path takes, in random games of each preset and with four burns
    on, gives the same events and the same state as the same play fully checked."""
    compared = 0
    for rules in (PRESETS[preset], PRESETS[preset].with_rule("four_burns", "on")):
        for seed in range(5):
            state = new_game("shithead", rules, 2 + seed % 4, seed)
            rng = random.Random(seed)
            while not state.is_over and state.moves_applied < 150:
                seat = rng.choice(state.seats_to_act())
                legal = state.legal_moves(seat)
                fast = state.stage.value == "play" and state.hand_count[seat] and not state.required
                for move in legal if fast else ():
                    if isinstance(move, Play) and move.source is Source.HAND:
                        after = state.copy()
                        events = after.apply(seat, move)
                        assert (after, events) == _checked(state, seat, move), (preset, seed, move)
                        compared += 1
                state.apply(seat, rng.choice(legal))
    assert compared > 100
