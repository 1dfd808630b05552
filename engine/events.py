"""Events: what happened when a move was applied, in order.

Events carry only public information — a card is named in an event only once everybody at the
table has seen it (a play, a turned face-down card, a blocked King, the reveal) — so the list can
be shown to the whole group and stored in the move log as it is. Each event is a small named
tuple; :func:`event_to_dict` / :func:`event_from_dict` convert to and from plain JSON-able data.

>>> from engine.cards import card_of
>>> event_to_dict(Played(0, "h", (card_of(10), card_of(23))))
{'type': 'Played', 'seat': 0, 'source': 'h', 'cards': [10, 23]}
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.cards import Card, card_of


class Swapped(NamedTuple):
    """Swap phase: ``to_face_up`` left the hand for face-up, ``to_hand`` the other way."""

    seat: int
    to_face_up: Card
    to_hand: Card


class Readied(NamedTuple):
    seat: int


class PlayStarted(NamedTuple):
    """Play begins with ``seat``; its first play must include ``rank`` (None: any play)."""

    seat: int
    rank: int | None


class Played(NamedTuple):
    """Cards went onto the pile. ``source``: ``h`` hand, ``u`` face-up, ``d`` face-down, ``g`` stock."""

    seat: int
    source: str
    cards: tuple[Card, ...]


class BlindFailed(NamedTuple):
    """A face-down (``d``) or stock (``g``) card was turned over and could not be played."""

    seat: int
    source: str
    card: Card


class Burned(NamedTuple):
    """The pile (``pile_size`` cards) left the game; ``four`` when four of a kind did it."""

    seat: int
    pile_size: int
    four: bool


class PickedUp(NamedTuple):
    """``amount`` cards went to the seat's hand; ``face_up`` is the face-up card taken along."""

    seat: int
    amount: int
    face_up: Card | None


class Drew(NamedTuple):
    """The seat drew ``amount`` cards from the stock (which cards is private)."""

    seat: int
    amount: int


class Skipped(NamedTuple):
    seats: tuple[int, ...]


class Reversed(NamedTuple):
    direction: int


class WentOut(NamedTuple):
    seat: int
    place: int


class Forfeited(NamedTuple):
    seat: int
    place: int


class Looped(NamedTuple):
    """Every move was forced and the game came back to where it was ``moves`` moves ago: it would
    go round for ever, so it ends here, ranked by the cards each player still holds."""

    moves: int


class GameOver(NamedTuple):
    """``places[seat]`` is each seat's place (1 = best; equal places are shared)."""

    places: tuple[int, ...]
    winners: tuple[int, ...]
    loser: int | None


class HandDealt(NamedTuple):
    """Neighbor: a new hand was dealt by ``dealer``."""

    hand: int
    dealer: int


class Kept(NamedTuple):
    seat: int


class Traded(NamedTuple):
    """Neighbor: ``seat`` swapped with ``neighbour`` (None: the dealer traded with the deck)."""

    seat: int
    neighbour: int | None


class Blocked(NamedTuple):
    """Neighbor: the swap was refused by a King, shown to everyone."""

    seat: int
    neighbour: int | None
    king: Card


class Revealed(NamedTuple):
    """Neighbor: every card of the hand, by seat (None for seats out of the game)."""

    cards: tuple[Card | None, ...]


class LifeLost(NamedTuple):
    seat: int
    lives: int


class Eliminated(NamedTuple):
    seat: int
    place: int


class HandVoided(NamedTuple):
    """Neighbor: a player left mid-hand, so the hand is dealt again."""

    seat: int


Event = (
    Swapped
    | Readied
    | PlayStarted
    | Played
    | BlindFailed
    | Burned
    | PickedUp
    | Drew
    | Skipped
    | Reversed
    | WentOut
    | Forfeited
    | Looped
    | GameOver
    | HandDealt
    | Kept
    | Traded
    | Blocked
    | Revealed
    | LifeLost
    | Eliminated
    | HandVoided
)

EVENT_TYPES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (
        Swapped,
        Readied,
        PlayStarted,
        Played,
        BlindFailed,
        Burned,
        PickedUp,
        Drew,
        Skipped,
        Reversed,
        WentOut,
        Forfeited,
        Looped,
        GameOver,
        HandDealt,
        Kept,
        Traded,
        Blocked,
        Revealed,
        LifeLost,
        Eliminated,
        HandVoided,
    )
}
_CARD_FIELDS = {"to_face_up", "to_hand", "card", "face_up", "king"}
_CARD_TUPLES = {"cards"}


def _plain(value: Any) -> Any:
    if isinstance(value, Card):
        return value.id
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def event_to_dict(event: Event) -> dict[str, Any]:
    """Plain JSON-able data: ``{"type": "Played", "seat": 0, ...}`` with cards as ids."""
    data: dict[str, Any] = {"type": type(event).__name__}
    for name, value in zip(event._fields, event, strict=True):
        data[name] = _plain(value)
    return data


def _card_or_none(value: Any) -> Card | None:
    return None if value is None else card_of(int(value))


def event_from_dict(data: dict[str, Any]) -> Event:
    """The inverse of :func:`event_to_dict`."""
    cls = EVENT_TYPES[data["type"]]
    values: list[Any] = []
    for name in cls._fields:
        value = data[name]
        if name in _CARD_FIELDS:
            value = _card_or_none(value)
        elif name in _CARD_TUPLES:
            value = tuple(_card_or_none(v) for v in value)
        elif isinstance(value, list):
            value = tuple(value)
        values.append(value)
    event: Event = cls(*values)
    return event
