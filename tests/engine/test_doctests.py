"""The examples in the engine's docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

MODULES = [
    "engine",
    "engine.cards",
    "engine.rules",
    "engine.moves",
    "engine.events",
    "engine.ai",
    "engine.forced",
    "shithead_bot.telegram.callback_data",
]


def _with_docstrings(name: str) -> ModuleType:
    """The module, or where mypyc compiled it (no doctests found in it), its source loaded apart."""
    module = importlib.import_module(name)
    if (module.__file__ or "").endswith(".py"):
        return module
    source = Path(module.__file__ or "").parent / (name.rsplit(".", 1)[-1] + ".py")
    spec = importlib.util.spec_from_file_location(f"{name}_source", source)
    assert spec is not None
    assert spec.loader is not None
    pure = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = pure  # dataclasses look their module up while the class is made
    try:
        spec.loader.exec_module(pure)
    finally:
        del sys.modules[spec.name]
    return pure


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(_with_docstrings(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
