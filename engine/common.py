"""Pieces shared by both games: the phase, the outcome, the base both states inherit
(:class:`StateBase`), and the protocol every state follows."""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Protocol, Self, TypedDict

from engine.errors import GameOverError, RulesError, SchemaError, UnknownSeatError
from engine.events import Event
from engine.frozen import Frozen
from engine.generated.base import StateFields
from engine.moves import Move
from engine.phase import Phase as Phase  # the engine imports it from here
from engine.rules import NeighborRules, Rules

SCHEMA_VERSION = 1


SWAP_PHASE: Final = Phase.SWAP  # enum lookups are slow
PLAY_PHASE: Final = Phase.PLAY
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


def check_deal(rules: Rules | NeighborRules, seats: int, dealer: int, hint: str = "") -> None:
    """The checks before either game deals: a number of seats its rules take (RulesError, with
    ``hint`` added to the text) and a dealer among the seats (UnknownSeatError)."""
    if not rules.min_seats <= seats <= rules.max_seats:
        plural = "" if seats == 1 else "s"
        raise RulesError(f"{seats} seat{plural}: this game takes {rules.min_seats}-{rules.max_seats} players{hint}")
    if not 0 <= dealer < seats:
        raise UnknownSeatError(f"dealer {dealer} is not a seat of a {seats}-seat game")


class ViewBasics(TypedDict):
    """What every seat's view tells, whatever the game: :meth:`StateBase._view_basics` fills it in."""

    seat: int | None
    phase: Phase
    dealer: int
    to_act: int | None
    legal_moves: tuple[Move, ...]
    outcome: Outcome | None


class StateBase(StateFields):
    """The base of both games' states: the fields every game has and what any state answers the same
    way — the questions (:attr:`phase`, :attr:`to_act`, :attr:`is_over`, :attr:`outcome`), the seat
    check, the start of every view, equality, its text, copies and pickles, and :meth:`from_dict`.

    Each game fills in the hooks: ``kind``, :meth:`copy`, :meth:`legal_moves`, :meth:`_outcome`,
    :meth:`_repr_details` and :meth:`_load`; its ``view`` starts from :meth:`_view_basics`. The fields
    every game has are declared by ``StateFields``, which it inherits; each game's own fields, their
    copy and :meth:`to_dict` by the class between it and the game's (``ShitheadFields``,
    ``NeighborFields``): all three written into engine/generated/ from the tables of engine/_fields.py.
    """

    __slots__ = ()

    kind: ClassVar[str]  # the game, as saved with its data: "shithead" or "neighbor"

    # ----------------------------------------------------------------- questions

    @property
    def phase(self) -> Phase:
        return self.stage

    @property
    def to_act(self) -> int | None:
        """``turn`` in the play phase; None in the swap phase (all seats act at once) and at the end."""
        return self.turn if self.stage is PLAY_PHASE else None

    @property
    def is_over(self) -> bool:
        return self.stage is OVER_PHASE

    @property
    def outcome(self) -> Outcome | None:
        """The end of the game as a value; None while it goes on."""
        if self.stage is not OVER_PHASE:
            return None
        return self._outcome()

    @abstractmethod
    def _outcome(self) -> Outcome:
        """The outcome of the game, once it is over."""
        raise NotImplementedError

    @abstractmethod
    def legal_moves(self, seat: Any) -> list[Move]:
        """The moves ``seat`` may make now."""
        raise NotImplementedError

    def _view_basics(self, seat: Any) -> ViewBasics:
        """What the view of ``seat`` (None: a spectator) tells in any game; UnknownSeatError for a seat
        not in this one."""
        if seat is not None:
            self._check_seat(seat)
        moves = () if seat is None else tuple(self.legal_moves(seat))
        return ViewBasics(
            seat=seat, phase=self.stage, dealer=self.dealer, to_act=self.to_act, legal_moves=moves, outcome=self.outcome
        )

    def _check_move(self, seat: Any, move: Move) -> None:
        """The first checks of any move: UnknownSeatError for a seat not in the game, then
        GameOverError once it is over."""
        self._check_seat(seat)
        if self.stage is OVER_PHASE:
            raise GameOverError(f"the game is over; {move} not accepted")

    def _check_seat(self, seat: Any) -> None:
        """UnknownSeatError unless ``seat`` is one of this game's seats (an ``int``, not a ``bool``).

        ``seat`` is typed Any, here and in the games' public methods, so that compiled by mypyc a seat
        that is not an int still reaches this check instead of failing a TypeError at the call.
        """
        if seat.__class__ is not int or not 0 <= seat < self.seats:
            raise UnknownSeatError(f"{seat!r} is not a seat of this {self.seats}-seat game")

    # ----------------------------------------------------------------- copies, equality, data

    @abstractmethod
    def copy(self) -> StateBase:
        """An independent copy."""
        raise NotImplementedError

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data with a schema version; :meth:`from_dict` reads it back."""
        raise NotImplementedError

    def __copy__(self) -> StateBase:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> StateBase:
        return self.copy()  # a copy shares only immutable values (the rules, cards)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as its :meth:`to_dict` data: the same in both builds, and readable by either."""
        return type(self).from_dict, (self.to_dict(),)

    def __eq__(self, other: object) -> bool:
        """Equal states have equal :meth:`to_dict` data, so equality covers every saved field of the
        game's table (engine/_fields.py); NotImplemented for other types."""
        if not isinstance(other, self.__class__):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        """``<ShitheadState seats=… seed=… phase=… to_act=…>``, the game's details before the ``>``."""
        head = f"{type(self).__name__} seats={self.seats} seed={self.seed}"
        return f"<{head} phase={self.stage.value} to_act={self.to_act}{self._repr_details()}>"

    @abstractmethod
    def _repr_details(self) -> str:
        """The end of the game's :func:`repr`, after a space."""
        raise NotImplementedError

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Rebuild a state from :meth:`to_dict` data; raises SchemaError if it is not such data."""
        name = cls.kind.capitalize()
        if not isinstance(data, dict) or data.get("schema") != SCHEMA_VERSION or data.get("kind") != cls.kind:
            raise SchemaError(f"not a {name} state of schema {SCHEMA_VERSION}")
        state = cls()
        try:
            state._load(data)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise SchemaError(f"malformed {name} state: {exc!r}") from exc
        return state

    @abstractmethod
    def _load(self, data: dict[str, Any]) -> None:
        """Every field from :meth:`to_dict` data (KeyError, TypeError, ValueError… or SchemaError if
        they do not make a state)."""
        raise NotImplementedError


class GameState(Protocol):
    """What both games' states offer (see the package docstring)."""

    kind: ClassVar[str]
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
