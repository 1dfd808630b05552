"""Pieces shared by both games: the phase, the outcome, and the protocol every state follows."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Protocol

from engine.errors import RulesError, SchemaError, UnknownSeatError
from engine.events import Event
from engine.frozen import Frozen
from engine.moves import Move
from engine.rules import NeighborRules, Rules

SCHEMA_VERSION = 1


class Phase(StrEnum):
    SWAP = "swap"
    PLAY = "play"
    OVER = "over"


PLAY_PHASE: Final = Phase.PLAY  # enum lookups are slow
OVER_PHASE: Final = Phase.OVER


@dataclass(frozen=True)
class Outcome(Frozen):
    """The end of a game as a value.

    ``places[seat]`` is each seat's place, 1 being best; places may be shared (Neighbor).
    ``loser`` is the seat left holding cards in Shithead (None when a forfeit ended the game, and
    always None in Neighbor); ``winners`` the seats in first place.
    """

    places: tuple[int, ...]
    winners: tuple[int, ...]
    loser: int | None

    @property
    def ranking(self) -> tuple[int, ...]:
        """Seats from best place to worst (ties keep seat order)."""
        return tuple(sorted(range(len(self.places)), key=lambda s: (self.places[s], s)))


def seat_to_act(stage: Phase, turn: int) -> int | None:
    """``to_act`` of either game: ``turn`` in the play phase; None in the swap phase (all seats act at
    once) and at the end."""
    return turn if stage is PLAY_PHASE else None


def check_deal(rules: Rules | NeighborRules, seats: int, dealer: int, hint: str = "") -> None:
    """The checks before either game deals: a number of seats its rules take (RulesError, with
    ``hint`` added to the text) and a dealer among the seats (UnknownSeatError)."""
    if not rules.min_seats <= seats <= rules.max_seats:
        plural = "" if seats == 1 else "s"
        raise RulesError(f"{seats} seat{plural}: this game takes {rules.min_seats}-{rules.max_seats} players{hint}")
    if not 0 <= dealer < seats:
        raise UnknownSeatError(f"dealer {dealer} is not a seat of a {seats}-seat game")


def checked_load(cls: Any, kind: str, data: dict[str, Any], name: str) -> Any:
    """``cls._from_fields(data)`` for data of this schema and ``kind``; SchemaError for anything else.

    ``kind`` is passed, not read from ``cls``: on a class compiled by mypyc it is only an instance default.
    """
    if not isinstance(data, dict) or data.get("schema") != SCHEMA_VERSION or data.get("kind") != kind:
        raise SchemaError(f"not a {name} state of schema {SCHEMA_VERSION}")
    try:
        return cls._from_fields(data)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise SchemaError(f"malformed {name} state: {exc!r}") from exc


def same_state(state: Any, other: object) -> Any:
    """``state == other`` for either game's state: their :meth:`to_dict` data are equal (so equality
    covers every saved field of the state's table, engine/_fields.py); NotImplemented for other types."""
    if not isinstance(other, state.__class__):
        return NotImplemented
    return state.to_dict() == other.to_dict()


def state_repr(state: Any, name: str, middle: str, end: str) -> str:
    """The short text of either game's state: ``<name seats=… seed=…middle phase=… to_act=…end>``."""
    phase = state.stage.value
    return f"<{name} seats={state.seats} seed={state.seed}{middle} phase={phase} to_act={state.to_act}{end}>"


class GameState(Protocol):
    """What both games' states offer (see the package docstring)."""

    kind: str
    seats: int
    seed: int
    dealer: int

    @property
    def phase(self) -> Phase: ...
    @property
    def to_act(self) -> int | None: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def outcome(self) -> Outcome | None: ...
    def seats_to_act(self) -> list[int]: ...
    def legal_moves(self, seat: int) -> list[Move]: ...
    def apply(self, seat: int, move: Move | str) -> list[Event]: ...
    def view(self, seat: int | None) -> Any: ...
    def copy(self) -> GameState: ...
    def to_dict(self) -> dict[str, Any]: ...
    def active_seats(self) -> list[int]: ...
