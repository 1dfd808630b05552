"""The values that go into a picture and the one that comes out: labels, table metadata, the layout."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

Box = tuple[int, int, int, int]  # left, top, right, bottom, in pixels; right and bottom excluded


def english_ordinal(place: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st…"""
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


@dataclass(frozen=True)
class Labels:
    """Every word the picture shows, already in the reader's language (English defaults).

    Templates take ``str.format`` fields: ``{n}``, ``{place}``, ``{rank}``, ``{name}``, ``{title}``,
    ``{names}``. ``ordinal`` turns a place into its text (French: ``1er``, ``2e``…).
    """

    pile: str = "Pile {n}"
    empty_pile: str = "Empty pile"
    stock: str = "Stock {n}"
    burned: str = "Burned {n}"
    need_any: str = "any card"
    need_beat: str = "beat {rank}"
    need_lower: str = "{rank} or lower"
    to_beat: str = "to beat"
    to_play: str = "to play"
    swapping: str = "swapping"
    swap_phase: str = "Swap phase"
    ready: str = "ready"
    out: str = "out, {place}"
    left: str = "left the game"
    dealer: str = "dealer"
    dealer_short: str = "D"  # on the narrow panels of a big Neighbor table
    nameless: str = "Player {n}"
    # Neighbor
    hand_number: str = "Hand {n}"
    deck: str = "Deck {n}"
    the_deck: str = "the deck"
    acted: str = "done"
    blocked: str = "blocked"
    last_hand: str = "last hand"
    # the end
    game_over: str = "Game over"
    loser: str = "{name} is the {title}!"
    winners: str = "{names} won!"
    ordinal: Callable[[int], str] = field(default=english_ordinal)


@dataclass(frozen=True)
class TableInfo:
    """What the caller knows besides the spectator view: names and words, nothing secret.

    ``names[seat]`` is each seat's display name (any script); ``title`` e.g. ``"Shithead (smelly) ·
    #12"``; ``deadline`` e.g. ``"23 h left"``, shown at the seat to act; ``actions`` the last few
    actions in words, oldest first (the last two or three are drawn); ``status`` a banner such as
    ``"Paused"``; ``turn`` overrides whose turn is highlighted (default: the view's ``to_act``);
    ``ended``: the game was ended before its end (aborted): nobody's turn, nobody swapping.
    """

    names: Sequence[str]
    title: str = ""
    deadline: str = ""
    actions: Sequence[str] = ()
    status: str = ""
    turn: int | None = None
    ended: bool = False


@dataclass(frozen=True)
class Item:
    """One thing drawn, for tests and for callers that want to know what is where.

    ``kind``: ``"seat"`` (a seat's panel), ``"name"``, ``"card"`` (a card's face: ``card`` is its
    id), ``"back"`` (a card's back), ``"highlight"`` (whose turn), ``"to_beat"`` (the mark on the
    pile card to beat), ``"pile_count"``, ``"stock_count"``, ``"burned_count"``, ``"hand_count"``,
    ``"status"`` (a seat's state: ready, out, left…), ``"lives"``, ``"dealer"``, ``"place"``,
    ``"text"`` (title, need, actions, banners). ``what`` is the text drawn (a card: ``"Q♥"``).
    ``role`` says where a card or back belongs: ``"pile"``, ``"face_up"``, ``"face_down"``,
    ``"stock"``, ``"burned"``, ``"hand"``, ``"reveal"``, ``"blocked"``, ``"title"``, ``"action"``…
    """

    kind: str
    what: str
    box: Box
    seat: int | None = None
    role: str = ""
    card: int | None = None


@dataclass(frozen=True)
class Picture:
    """A rendered PNG, its size in pixels, and what was drawn where."""

    png: bytes
    size: tuple[int, int]
    layout: tuple[Item, ...]

    def items(self, kind: str | None = None, *, seat: int | None = None, role: str | None = None) -> list[Item]:
        """The layout's items of that kind (and seat, and role), in drawing order."""
        return [
            item
            for item in self.layout
            if (kind is None or item.kind == kind)
            and (seat is None or item.seat == seat)
            and (role is None or item.role == role)
        ]

    def __iter__(self) -> Iterator[Item]:
        return iter(self.layout)


def seat_names(names: Sequence[str], seats: int) -> list[str]:
    """One name per seat: the caller's, padded with empty names (drawn as the placeholder)."""
    return [names[s] if s < len(names) else "" for s in range(seats)]
