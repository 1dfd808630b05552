"""Moves: small immutable values with a short, stable text form.

The text travels in Telegram callback data and in the move log, so it is short (at most 9 bytes)
and round-trips exactly:

>>> m = parse_move("p:h:Q:2")
>>> m
Play(source=<Source.HAND: 'h'>, rank=12, count=2)
>>> str(m), str(PickUp(6)), str(PlayFaceDown(3))
('p:h:Q:2', 't:6', 'p:d:3')

=================  ==========  ===================================================
text               value       meaning
=================  ==========  ===================================================
``p:h:Q:2``        Play        two Queens from hand (``p:u:…`` from face-up)
``p:d:3``          PlayFaceDown the face-down card in slot 3, blind
``t`` / ``t:6``    PickUp      pick up the pile (and, where the rules say, face-up 6)
``g``              StockGamble turn the top stock card onto the pile
``x:Q:5``          Swap        swap phase: hand Q goes face-up, face-up 5 to hand
``r``              Ready       swap phase: done swapping
``f``              Forfeit     leave the game (any time, either game)
``k``              Keep        Neighbor: keep your card
``s``              Trade       Neighbor: swap with the left neighbour (dealer: the deck)
=================  ==========  ===================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import cast

from engine.cards import RANK_TEXTS, parse_rank_strict
from engine.errors import InvalidMoveError
from engine.frozen import Frozen

# The move API the package re-exports (engine/__init__.py): listed here once.
__all__ = [
    "Forfeit", "Keep", "Move", "PickUp", "Play", "PlayFaceDown", "Ready", "Source", "StockGamble", "Swap", "Trade",
    "parse_move",
]  # fmt: skip


class Source(StrEnum):
    """Where a play comes from (RULES.md §1.4)."""

    HAND = "h"
    FACE_UP = "u"
    FACE_DOWN = "d"


MAX_COUNT = 8  # two decks hold eight cards of a rank


@dataclass(frozen=True, slots=True)
class Play(Frozen):
    """Play ``count`` cards of ``rank`` from hand or face-up."""

    source: Source
    rank: int
    count: int

    def __str__(self) -> str:
        return f"p:{self.source.value}:{RANK_TEXTS[self.rank]}:{self.count}"


@dataclass(frozen=True, slots=True)
class PlayFaceDown(Frozen):
    """Turn over and play the face-down card in ``slot`` (1, 2 or 3), blind."""

    slot: int

    def __str__(self) -> str:
        return f"p:d:{self.slot}"


@dataclass(frozen=True, slots=True)
class PickUp(Frozen):
    """Pick up the pile; ``face_up_rank`` names the face-up card taken along, where the rules say."""

    face_up_rank: int | None = None

    def __str__(self) -> str:
        return "t" if self.face_up_rank is None else f"t:{RANK_TEXTS[self.face_up_rank]}"


@dataclass(frozen=True, slots=True)
class Word(Frozen):
    """A move with nothing to say but itself, written as one letter (``WORDS``): the classes below."""

    def __str__(self) -> str:
        return WORDS[self.__class__]


class StockGamble(Word):
    """Turn the top stock card onto the pile instead of playing (toggle ``stock_gamble``)."""


@dataclass(frozen=True, slots=True)
class Swap(Frozen):
    """Swap phase: a hand card of ``hand_rank`` goes face-up, a face-up card of ``face_up_rank`` to hand."""

    hand_rank: int
    face_up_rank: int

    def __str__(self) -> str:
        return f"x:{RANK_TEXTS[self.hand_rank]}:{RANK_TEXTS[self.face_up_rank]}"


class Ready(Word):
    """Swap phase: this seat has finished swapping."""


class Forfeit(Word):
    """Leave the game at once. Allowed for any seat still in, at any time; never listed as legal."""


class Keep(Word):
    """Neighbor: keep your card."""


class Trade(Word):
    """Neighbor: swap with the neighbour to the left; for the dealer, trade with the deck."""


WORDS: dict[type[Word], str] = {StockGamble: "g", Ready: "r", Forfeit: "f", Keep: "k", Trade: "s"}
Move = Play | PlayFaceDown | PickUp | StockGamble | Swap | Ready | Forfeit | Keep | Trade

_SINGLE: dict[str, Move] = {"t": PickUp(), **{text: cast(Move, kind()) for kind, text in WORDS.items()}}


def _count(text: str, original: str) -> int:
    if not text.isdigit() or text.startswith("0") or not 1 <= int(text) <= MAX_COUNT:
        raise InvalidMoveError(f"{original!r}: count must be 1-{MAX_COUNT}")
    return int(text)


def parse_move(text: str) -> Move:
    """Parse the canonical text of a move; raises InvalidMoveError for anything else."""
    if not isinstance(text, str) or len(text) > 16:
        raise InvalidMoveError(f"{text!r} is not a move")
    single = _SINGLE.get(text)
    if single is not None:
        return single
    parts = text.split(":")
    try:
        return _parse_parts(parts, text)
    except InvalidMoveError:
        raise
    except (ValueError, IndexError) as exc:
        raise InvalidMoveError(f"{text!r} is not a move") from exc


def _parse_parts(parts: list[str], text: str) -> Move:
    head = parts[0]
    if head == "p" and len(parts) == 4 and parts[1] in ("h", "u"):
        return Play(Source(parts[1]), parse_rank_strict(parts[2]), _count(parts[3], text))
    if head == "p" and len(parts) == 3 and parts[1] == "d":
        if parts[2] not in ("1", "2", "3"):
            raise InvalidMoveError(f"{text!r}: face-down slot must be 1, 2 or 3")
        return PlayFaceDown(int(parts[2]))
    if head == "t" and len(parts) == 2:
        return PickUp(parse_rank_strict(parts[1]))
    if head == "x" and len(parts) == 3:
        return Swap(parse_rank_strict(parts[1]), parse_rank_strict(parts[2]))
    raise InvalidMoveError(f"{text!r} is not a move")
