"""The base of the engine's immutable values, so that they copy and pickle the same compiled or plain.

A frozen dataclass compiled by mypyc is unpickled (and copied, which pickles) by assigning its
fields one by one, which the frozen class refuses (``FrozenInstanceError``); plain Python fills its
``__dict__`` or slots directly. :class:`Frozen` rebuilds a value through its constructor instead, the
same in both builds:

>>> import copy, pickle
>>> from engine.moves import Play, Source
>>> move = Play(Source.HAND, 12, 2)
>>> copy.copy(move) == copy.deepcopy(move) == pickle.loads(pickle.dumps(move)) == move
True
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any


class Frozen:
    """Mixed into every frozen dataclass of the engine (each of its fields is a constructor argument)."""

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return self.__class__, tuple([getattr(self, f.name) for f in fields(self)])  # type: ignore[arg-type]
