"""Cards, ranks and suits.

Inside the engine a card is an ``int`` id: ``deck * 52 + suit * 13 + (rank - 2)``. The public API
hands out :class:`Card` values, interned per id, so ``card_of(7) is card_of(7)``.

Ranks are the face values ``2 … 14`` (``11`` = J, ``12`` = Q, ``13`` = K, ``14`` = A).

>>> str(card_of(10))
'Q♣'
>>> parse_rank("q"), rank_text(10)
(12, '10')
"""

from __future__ import annotations

from engine.errors import InvalidMoveError, SchemaError

RANKS: tuple[int, ...] = tuple(range(2, 15))
RANK_SLOTS = 15  # the length of a list indexed by rank: 2 … 14, with 0 and 1 unused
RANK_TEXTS: dict[int, str] = {r: str(r) for r in range(2, 11)} | {11: "J", 12: "Q", 13: "K", 14: "A"}
SUIT_SYMBOLS: tuple[str, ...] = ("♣", "♦", "♥", "♠")
SUIT_LETTERS: tuple[str, ...] = ("C", "D", "H", "S")
RED_SUITS: frozenset[int] = frozenset({1, 2})
CARDS_PER_DECK = 52

_RANK_BY_TEXT: dict[str, int] = {t: r for r, t in RANK_TEXTS.items()} | {"T": 10}


def rank_text(rank: int) -> str:
    """The short text of a rank: ``2`` … ``10``, ``J``, ``Q``, ``K``, ``A``."""
    return RANK_TEXTS[rank]


def parse_rank(text: str) -> int:
    """Parse a rank written as a person would (``q``, ``Q``, ``10``, ``t``); raises InvalidMoveError."""
    rank = _RANK_BY_TEXT.get(text.strip().upper())
    if rank is None:
        raise InvalidMoveError(f"{text!r} is not a rank (2-10, J, Q, K, A)")
    return rank


def parse_rank_strict(text: str) -> int:
    """Parse a rank in its canonical text only (``Q``, ``10``); raises InvalidMoveError."""
    rank = _RANK_BY_TEXT.get(text)
    if rank is None or RANK_TEXTS[rank] != text:
        raise InvalidMoveError(f"{text!r} is not a rank (2-10, J, Q, K, A)")
    return rank


class Card(int):
    """One physical card: an ``int`` id with a face. Two decks hold two cards of each rank and suit,
    told apart by ``deck``. Cards are interned: use :func:`card_of`, not the constructor.

    Being an ``int`` keeps the engine's lists cheap and JSON-able as they are.
    """

    __slots__ = ()

    @property
    def id(self) -> int:
        return int(self)

    @property
    def rank(self) -> int:
        return self % 13 + 2

    @property
    def suit(self) -> int:
        return self // 13 % 4

    @property
    def deck(self) -> int:
        return self // CARDS_PER_DECK

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS

    def __str__(self) -> str:
        return RANK_TEXTS[self.rank] + SUIT_SYMBOLS[self.suit]

    def __repr__(self) -> str:
        return f"card_of({int(self)})"

    def code(self) -> str:
        """An ASCII text such as ``QH`` (``10S``), for logs and plain terminals."""
        return RANK_TEXTS[self.rank] + SUIT_LETTERS[self.suit]


_CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(CARDS_PER_DECK * 2))
RANK_OF: tuple[int, ...] = tuple(c.rank for c in _CARDS)
CARDS = _CARDS


def card_of(card_id: int) -> Card:
    """The interned :class:`Card` of an id."""
    return _CARDS[card_id]


def by_rank(card_ids: list[int]) -> list[list[Card]]:
    """Cards (ids) as :data:`RANK_SLOTS` lists, one a rank, each in the order given."""
    lists: list[list[Card]] = [[] for _ in range(RANK_SLOTS)]
    for c in card_ids:
        card = _CARDS[c]
        lists[RANK_OF[card]].append(card)
    return lists


def card_bits(per_seat: list[list[int]]) -> list[int]:
    """Card ids per seat as an ``int`` per seat, bit ``id`` set for each card."""
    return [sum(1 << _CARDS[c] for c in cards) for cards in per_seat]


def rank_bits(per_seat: list[list[int]]) -> list[int]:
    """Ranks per seat as an ``int`` per seat, bit ``rank`` set for each; SchemaError for a rank out of range."""
    if any(not 2 <= int(r) <= 14 for ranks in per_seat for r in ranks):
        raise SchemaError("a barred rank out of range")
    return [sum(1 << int(r) for r in set(ranks)) for ranks in per_seat]
