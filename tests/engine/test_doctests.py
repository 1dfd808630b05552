"""The examples in the engine's docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "engine",
    "engine.cards",
    "engine.rules",
    "engine.moves",
    "engine.events",
    "engine.ai",
    "shithead_bot.telegram.callback_data",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
