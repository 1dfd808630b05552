"""bench/scale.py runs, at its tiny --smoke sizes (CI never builds the big ones): every measured
operation gets a median and a ratio, and --overload drives the outbox and the sender."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow  # thousands of stored games, in a process of its own: the full run's, not the fast lane's


def run(*args: str, postgres_url: str) -> str:
    base = postgres_url.rsplit("/", 1)[0] + "/postgres"
    env = {**os.environ, "BENCH_DATABASE_URL": base}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "scale.py"), "--smoke", *args],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_scale_bench_smoke_size(postgres_url: str | None) -> None:
    if postgres_url is None:
        pytest.skip("PostgreSQL is not reachable")
    out = run(postgres_url=postgres_url)
    for name in ("due_ms", "claim_backlog_ms", "press_ms", "private_stats_ms", "leaderboard_ms", "vitals_ms"):
        assert name in out
    assert "ratio to the smallest size" in out


def test_the_scale_bench_overload_smoke(postgres_url: str | None) -> None:
    if postgres_url is None:
        pytest.skip("PostgreSQL is not reachable")
    out = run("--overload", postgres_url=postgres_url)
    assert "sends_per_s=" in out
    assert "fairness=" in out
    assert "longest_wait_s=" in out
