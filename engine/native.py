"""The engine's hot modules compiled by mypyc at install time, and the switch back to plain Python.

``pip install -e .`` compiles :data:`COMPILED` with mypyc when it can (see ``setup.py``) and installs
plain Python when it cannot or when ``SHITHEAD_PURE=1`` is set. Both behave the same; the compiled
modules are about twice as fast. At run time, ``SHITHEAD_PURE=1`` also makes ``import engine`` load
the ``.py`` sources even where compiled modules are installed (:func:`prefer_source`).

An editable install keeps the compiled ``.so`` files next to the sources, and Python prefers them: after
editing one of these modules, ``import engine`` warns and loads the plain-Python sources (all of them)
until ``pip install -e .`` compiles them again; :func:`stale_modules` names the compiled modules
older than their source.

Only the standard library here: ``setup.py`` reads :data:`COMPILED` from this file before any install.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

COMPILED: tuple[str, ...] = (
    "engine.shithead",
    "engine.neighbor",
    "engine.moves",
    "engine.events",
    "engine.views",
    "engine.rules",
    "engine.common",
    "engine.generated.base",
    "engine.generated.shithead",
    "engine.generated.neighbor",
    "engine.errors",
    "engine.frozen",
    "engine.ai.rollout",
)
PURE_ENV = "SHITHEAD_PURE"
_HERE = Path(__file__).resolve().parent
_GRACE_S = 2.0


def pure_requested() -> bool:
    """Whether ``SHITHEAD_PURE`` asks for plain Python (any value but empty or ``0``)."""
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def _source(name: str) -> Path:
    return _HERE.joinpath(*name.split(".")[1:]).with_suffix(".py")


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Finds the ``.py`` source of a compiled module ahead of its extension module."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in COMPILED:
            return None
        return importlib.util.spec_from_file_location(fullname, _source(fullname))


def prefer_source() -> None:
    """Load the plain-Python engine from now on (call before the engine modules are imported)."""
    if not any(isinstance(f, _SourceFirst) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst())


def compiled_modules() -> list[str]:
    """The engine modules loaded from compiled extension modules (imports them)."""
    return [name for name in COMPILED if not (importlib.import_module(name).__file__ or "").endswith(".py")]


def _built(name: str) -> Path | None:
    stem = _source(name).with_suffix("")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if (built := stem.with_name(stem.name + suffix)).exists():
            return built
    return None


def stale_modules() -> list[str]:
    """Compiled modules whose source changed after they were built (without importing them).

    Two seconds of grace: an install writes both files within the same moment, in either order.
    """
    stale = []
    for name in COMPILED:
        built = _built(name)
        if built is not None and _source(name).stat().st_mtime > built.stat().st_mtime + _GRACE_S:
            stale.append(name)
    return stale


# On import, which engine/__init__.py does before any compiled module.
if pure_requested():
    prefer_source()
elif _stale := stale_modules():
    warnings.warn(
        f"{', '.join(_stale)}: the source changed since mypyc compiled it; running plain Python "
        "(pip install -e . compiles it again)",
        stacklevel=2,
    )
    prefer_source()
