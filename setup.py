"""Compiles the engine's hot modules with mypyc when it can; plain Python otherwise.

``pip install -e .`` (or ``pip install .``) stays the one install command: every failure of mypyc or
of the C compiler is caught and the package installs as plain Python, which behaves the same, only
slower. ``SHITHEAD_PURE=1 pip install -e .`` skips the compilation. The modules compiled are
``engine.native.COMPILED``; everything else is in pyproject.toml. ``SHITHEAD_MYPYC_OPT_LEVEL`` (0-3,
default 3) sets the C compiler's optimisation: 0 compiles in about half the time, into a slower engine.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
NATIVE = runpy.run_path(str(HERE / "engine" / "native.py"))  # stdlib only: safe before install


def _warn(text: str) -> None:
    print(f"shithead-bot: {text}; installing the engine as plain Python", file=sys.stderr)


class OptionalBuildExt(build_ext):
    """build_ext that never fails the install: a compile error leaves the plain-Python modules."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:
            _warn(f"compiling the engine failed ({exc!r})")

    def build_extension(self, ext: Any) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            _warn(f"compiling {ext.name} failed ({exc!r})")
            raise


def _opt_level() -> str:
    level = os.environ.get("SHITHEAD_MYPYC_OPT_LEVEL", "3")
    if level not in ("0", "1", "2", "3"):
        print(f"shithead-bot: SHITHEAD_MYPYC_OPT_LEVEL={level!r} is not 0-3; compiling at 3", file=sys.stderr)
        return "3"
    return level


def _ext_modules() -> list[Any]:
    if NATIVE["pure_requested"]():
        return []
    paths = [str(Path(*name.split("."))) + ".py" for name in NATIVE["COMPILED"]]
    try:
        from mypyc.build import mypycify

        # No config file: the project's [tool.mypy] loads the pydantic plugin, absent from the build env.
        return list(mypycify(["--config-file=", *paths], opt_level=_opt_level()))
    except (Exception, SystemExit) as exc:
        _warn(f"mypyc could not compile the engine ({exc!r})")
        return []


os.chdir(HERE)  # mypycify takes paths relative to the project
setup(ext_modules=_ext_modules(), cmdclass={"build_ext": OptionalBuildExt})
