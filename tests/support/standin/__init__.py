"""A slow stand-in for the ``hard`` level in a bot process (see ``sitecustomize.py`` here)."""

from __future__ import annotations

from pathlib import Path


def standin_env(decision_ms: float, *, inline: bool = False) -> dict[str, str]:
    """The environment that makes a bot process's ``hard`` computers take ``decision_ms`` of CPU
    per decision: this folder on its PYTHONPATH (its ``sitecustomize`` runs at start-up).
    ``inline``: decide on the event loop, not in the thinking thread (for comparison)."""
    env = {"PYTHONPATH": str(Path(__file__).resolve().parent), "STANDIN_DECISION_MS": str(decision_ms)}
    return env | ({"STANDIN_INLINE": "1"} if inline else {})
