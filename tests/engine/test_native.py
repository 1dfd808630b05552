"""The engine compiled by mypyc (when installed so) behaves exactly as its plain-Python source.

The plain-Python engine always runs here, in a subprocess with ``SHITHEAD_PURE=1``, so the fallback
stays tested wherever the compiled one is installed; where the install fell back to plain Python
both sides are plain Python and the comparison still checks the switch itself.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import native
from tests.engine.native_trace import trace

ROOT = Path(__file__).resolve().parents[2]


def _trace_in_subprocess(**env: str) -> dict[str, object]:
    code = "import json, engine.native as n; from tests.engine.native_trace import trace; "
    code += "print(json.dumps({'compiled': n.compiled_modules(), 'trace': trace()}))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,  # the source tree first on sys.path
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_engine_reports_how_it_runs(record_property: pytest.RecordProperty) -> None:
    compiled = native.compiled_modules()
    record_property("compiled_engine", bool(compiled))
    print(f"engine: {'compiled by mypyc' if compiled else 'plain Python'}")
    assert compiled in ([], list(native.COMPILED)), "all of the hot modules compiled, or none"
    if native.stale_modules():
        assert compiled == [], "a compiled module older than its source is not used"


def test_plain_python_gives_the_same_games_views_and_round_trips() -> None:
    pure = _trace_in_subprocess(SHITHEAD_PURE="1")
    assert pure["compiled"] == []
    assert pure["trace"] == json.loads(json.dumps(trace()))


def test_a_compiled_module_older_than_its_source_gives_way_to_it(tmp_path: Path) -> None:
    # engine/native.py alone in a scratch tree, with a shithead "extension module" from long ago.
    (tmp_path / "engine").mkdir()
    for name in ("native", "shithead"):
        (tmp_path / "engine" / f"{name}.py").write_text((ROOT / "engine" / f"{name}.py").read_text())
    built = tmp_path / "engine" / f"shithead{importlib.machinery.EXTENSION_SUFFIXES[0]}"
    built.write_bytes(b"")
    os.utime(built, (1_000_000_000, 1_000_000_000))
    code = "import runpy; print(runpy.run_path('engine/native.py')['stale_modules']())"
    env = {**os.environ, "SHITHEAD_PURE": ""}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "['engine.shithead']"
    assert "engine.shithead: the source changed since mypyc compiled it; running plain Python" in done.stderr


def test_the_switch_back_to_plain_python_is_off_by_default() -> None:
    compiled = _trace_in_subprocess(SHITHEAD_PURE="")["compiled"]
    assert compiled in ([], list(native.COMPILED))
    if not native.pure_requested():  # this run's own engine is what the install gave
        assert compiled == native.compiled_modules()
