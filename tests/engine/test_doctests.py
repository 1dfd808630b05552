"""The examples in the engine's docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

MODULES = [
    "engine",
    "engine.cards",
    "engine.rules",
    "engine.moves",
    "engine.events",
    "engine.frozen",
    "engine.ai",
    "engine.forced",
    "shithead_bot.telegram.callback_data",
]


def _doctest(name: str) -> tuple[int, int]:
    """(examples attempted, failed) of a module, run where its docstrings are: a module mypyc
    compiled has none, so its plain-Python source runs them in a subprocess with ``SHITHEAD_PURE=1``
    (its classes may derive from compiled ones, which an interpreted class cannot)."""
    module = importlib.import_module(name)
    if (module.__file__ or "").endswith(".py"):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        return result.attempted, result.failed
    code = f"import doctest, {name} as m; r = doctest.testmod(m, optionflags=doctest.ELLIPSIS); "
    code += "print(r.attempted, r.failed)"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "SHITHEAD_PURE": "1"},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    print(done.stdout)
    attempted, failed = done.stdout.split()[-2:]
    return int(attempted), int(failed)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    attempted, failed = _doctest(name)
    assert attempted > 0
    assert failed == 0
