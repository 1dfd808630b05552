"""The phase of a game. In a module of its own, imported by :mod:`engine.common` (which the rest of
the engine imports it from) and by the fields that engine/_fields.py writes below it
(engine/generated/base.py)."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    SWAP = "swap"
    PLAY = "play"
    OVER = "over"
