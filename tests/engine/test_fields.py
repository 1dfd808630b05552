"""The state's fields are declared once, in engine/_fields.py: the code generated from that table
(``__slots__``, annotations, ``_init_fields``, ``copy``, ``to_dict``, ``_load_fields``) is up to date,
and every field is generated, copied and saved as the table says."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import PRESETS, NeighborRules, new_game
from engine._fields import CLASSES, COPIES, NEIGHBOR, SHITHEAD, stale


def test_the_generated_code_matches_the_table() -> None:
    assert stale() == [], "run: python engine/_fields.py"


@pytest.mark.parametrize(
    ("kind", "rules", "fields"), [("shithead", PRESETS["standard"], SHITHEAD), ("neighbor", NeighborRules(), NEIGHBOR)]
)
def test_a_copy_shares_no_list_and_saves_every_saved_field(kind: str, rules: Any, fields: Any) -> None:
    state = new_game(kind, rules, 3, 5)
    rng = random.Random(5)
    for _ in range(30):
        if state.is_over:
            break
        seat = rng.choice(state.seats_to_act())
        state.apply(seat, rng.choice(state.legal_moves(seat)))
    other = state.copy()
    for f in fields:
        mine, theirs = getattr(state, f.name), getattr(other, f.name)
        assert mine == theirs, f.name
        if f.copy != "value":
            assert mine is not theirs, f.name
    assert {f.key or f.name for f in fields if f.save} | {"schema", "kind"} == set(state.to_dict())


def test_every_field_is_a_slot_and_every_kind_is_known() -> None:
    for _, _, fields, _ in CLASSES:
        assert len({f.name for f in fields}) == len(fields)
        assert all(f.copy in COPIES for f in fields)
