"""A slow stand-in for the ``hard`` level in a bot process (see ``sitecustomize.py`` here)."""

from __future__ import annotations

from pathlib import Path


def standin_env(decision_ms: float, *, inline: bool = False, thread: bool = False) -> dict[str, str]:
    """The environment that makes a bot process's ``hard`` computers take ``decision_ms`` of CPU
    per decision (0: the real ``hard``): this folder on its PYTHONPATH (its ``sitecustomize`` runs
    at start-up). For comparison: ``inline`` decides on the event loop; ``thread`` decides ``hard``
    in the thinking thread rather than in the worker process."""
    env = {"PYTHONPATH": str(Path(__file__).resolve().parent), "STANDIN_DECISION_MS": str(decision_ms)}
    return env | ({"STANDIN_INLINE": "1"} if inline else {}) | ({"STANDIN_THREAD": "1"} if thread else {})
