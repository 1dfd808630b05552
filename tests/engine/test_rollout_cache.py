"""The playout policy's per-rules tables are cached by value, in a cache of bounded size: the `hard`
worker unpickles a new rules object for every decision, and a worker is long-lived."""

from __future__ import annotations

import pickle

from engine import PRESETS
from engine.ai import rollout
from engine.rules import Rules


def test_equal_rules_unpickled_again_and_again_share_one_entry() -> None:
    rules = PRESETS["standard"]
    assert isinstance(rules, Rules)
    rollout.tables(rules)
    before = rollout.cached_tables()
    for _ in range(50):  # a decision each: the view, its rules included, arrives pickled
        copy = pickle.loads(pickle.dumps(rules))
        assert copy is not rules
        assert rollout.tables(copy) == rollout.tables(rules)
    assert rollout.cached_tables() == before


def test_distinct_rules_stay_under_the_cap() -> None:
    rules = PRESETS["standard"]
    assert isinstance(rules, Rules)
    for n in range(3 * rollout.CACHED_TABLES):
        rollout.tables(rules.with_rule("loser_title", f"Dishwasher {n}"))
    assert rollout.cached_tables() <= rollout.CACHED_TABLES
    assert rollout.tables(rules) == rollout.tables(pickle.loads(pickle.dumps(rules)))  # still right
