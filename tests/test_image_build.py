"""The Docker image's builder stage, run without docker: the files its COPY lines take (less what
``Dockerfile.dockerignore`` leaves out) and its RUN lines, in a fresh folder and a fresh virtual
environment, give an engine compiled by mypyc (the image once ran it as plain Python: setup.py was
not copied)."""

from __future__ import annotations

import fnmatch
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
SYSTEM_PACKAGES = ("apt-get ",)  # the C compiler: this machine has its own


def instructions() -> list[tuple[str, str]]:
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def builder_stage() -> list[tuple[str, str]]:
    """The instructions from ``FROM … AS build`` to the next ``FROM``."""
    steps = instructions()
    start = next(i for i, (word, rest) in enumerate(steps) if word == "FROM" and rest.lower().endswith(" as build"))
    end = next((i for i in range(start + 1, len(steps)) if steps[i][0] == "FROM"), len(steps))
    return steps[start + 1 : end]


def ignored() -> list[str]:
    lines = (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
    return [line.strip().removeprefix("**/") for line in lines if line.strip() and not line.startswith("#")]


def copy_context(sources: list[str], target: str, into: Path) -> None:
    patterns = ignored()
    skip = shutil.ignore_patterns(*patterns)
    destination = into / target
    for source in sources:
        if any(fnmatch.fnmatch(source, p) for p in patterns):
            continue
        path = ROOT / source
        if path.is_dir():
            shutil.copytree(path, destination if not target.endswith("/") else destination / source, ignore=skip)
        else:
            (destination if target.endswith("/") else destination.parent).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, destination / path.name if target.endswith("/") else destination)


def test_the_builder_stage_copies_what_setup_py_needs() -> None:
    copied = {part for word, rest in builder_stage() if word == "COPY" for part in shlex.split(rest)[:-1]}
    assert {"setup.py", "pyproject.toml", "engine"} <= copied
    assert any(word == "RUN" and "gcc" in rest for word, rest in builder_stage())


@pytest.mark.slow
def test_the_builder_stage_compiles_the_engine(tmp_path: Path) -> None:
    work = tmp_path / "src"
    work.mkdir()
    venv = tmp_path / "venv"
    env = {
        **os.environ,
        "VENV": str(venv),
        "PYTHON": getattr(sys, "_base_executable", sys.executable),
        # What is checked is that the stage compiles every module, not how fast the result runs:
        # unoptimised, the C compiler takes a third of the time (the image itself compiles at -O3).
        "SHITHEAD_MYPYC_OPT_LEVEL": "0",
    }
    env.pop("SHITHEAD_PURE", None)
    ran = []
    for word, rest in builder_stage():
        if word == "COPY":
            *sources, target = shlex.split(rest)
            copy_context(sources, target, work)
        elif word == "RUN" and not rest.startswith(SYSTEM_PACKAGES):
            done = subprocess.run(
                ["sh", "-c", rest], cwd=work, env=env, capture_output=True, text=True, timeout=1200, check=False
            )
            assert done.returncode == 0, done.stdout + done.stderr
            ran.append(done.stdout)
    assert ran
    assert "modules compiled by mypyc" in ran[-1]
    shown = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "from engine.native import compiled_modules; print(compiled_modules())"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "engine.shithead" in shown.stdout
