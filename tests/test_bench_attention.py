"""``bench/attention.py --smoke`` runs every pattern to the end and prints its figures (figures,
not pass/fail: this checks that the bench works, and what it counts is there to be counted)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "attention.py"

pytestmark = pytest.mark.slow  # whole games of every pattern through the handlers: the full run's, not the fast lane's


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_attention", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def played(results: list[dict[str, Any]], out: str, digested: str = "") -> None:
    """Every pattern run played its games to the end and printed its summary line (the player named
    ``digested`` is told the end in their digest, not by a message of its own)."""
    for result in results:
        assert f"pattern={result['pattern']} notifying_per_decision=" in out
        assert result["group"]["games"] >= 1
        assert result["group_notifying_per_game"] >= 2  # a game's start and its end, at least
        for name, row in result["players"].items():
            assert row["decisions"] > 0
            assert row["result"] == int(name != digested)  # each player's own game-over message, once a game


def test_the_smoke_run_plays_every_pattern_and_prints_a_summary_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    """live and correspondence here, with the default notify setting; five (the costliest) in the
    digest test below, which checks the same of it: each smoke run of a pattern is a few whole games."""
    results = load().main(["--smoke", "--patterns", "live", "correspondence"])
    out = capsys.readouterr().out
    assert [r["pattern"] for r in results] == ["live", "correspondence"]
    played(results, out)
    live, correspondence = results
    assert sum(row["answer"] for row in live["players"].values()) + live["group"]["silent"] > 0  # the chatter
    assert sum(row["reminder"] for row in correspondence["players"].values()) > 0  # hours apart: reminded


def test_the_digest_smoke_run_counts_the_five_game_players_notifications_per_interval(
    capsys: pytest.CaptureFixture[str],
) -> None:
    [five] = load().main(["--smoke", "--patterns", "five", "--notify", "digest"])
    out = capsys.readouterr().out
    assert "pattern=five notify=digest " in out
    played([five], out.replace(" notify=digest", ""), digested="User0")
    assert five["players"]["User0"]["games"] == 2
    assert "user0_per_interval_max=" in out
    assert five["user0_per_interval"]
    assert max(five["user0_per_interval"]) <= 1  # the digest's aim: at most one an interval
    assert five["players"]["User0"]["decision"] == 0  # every turn came silently
