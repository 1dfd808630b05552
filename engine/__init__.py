"""The rules engine: Shithead and Shit On Your Neighbor, pure and deterministic.

Nothing here does I/O, and nothing here imports the rest of the project. The rules are the ones of
``RULES.md``; a preset is a named :class:`Rules` value and house rules are the same value changed.

Start a game, list moves, apply them:

>>> from engine import new_game, parse_move, preset
>>> game = new_game("shithead", preset("standard"), seats=3, seed=7)
>>> game.phase.value, game.seats_to_act()
('swap', [0, 1, 2])
>>> for seat in range(3):
...     _ = game.apply(seat, "r")          # everybody ready: play starts
>>> seat = game.to_act
>>> move = game.legal_moves(seat)[0]       # the forced first play: the lowest plain card
>>> str(move)
'p:h:3:1'
>>> [type(e).__name__ for e in game.apply(seat, move)]
['Played', 'Drew']

The public API, shared by both games' states (:class:`ShitheadState`, :class:`NeighborState`):

``new_game(kind, rules=None, seats=4, seed=0, dealer=0)``
    Deal a new game. ``kind`` is ``"shithead"`` or ``"neighbor"``; ``rules`` defaults to the
    ``standard`` preset (Neighbor: three lives). All randomness comes from ``seed``.
``state.phase``, ``state.to_act``, ``state.seats_to_act()``
    ``swap`` (every seat not ready acts at once, ``to_act`` is None), ``play`` or ``over``.
``state.legal_moves(seat)``
    The moves ``seat`` may make now, as :mod:`engine.moves` values; ``Forfeit`` is always allowed
    for a seat still in and is not listed.
``state.apply(seat, move)``
    Apply a move (a value or its text, e.g. ``"p:h:Q:2"``) and return the list of
    :mod:`engine.events`. Bad input raises, leaving the state untouched:
    :class:`InvalidMoveError` (the text does not parse), :class:`IllegalMoveError` (not allowed
    now), :class:`CardNotOwnedError` (cards the seat does not hold), :class:`NotYourTurnError`,
    :class:`UnknownSeatError`, :class:`GameOverError`. All are :class:`EngineError` (a
    ``ValueError``).
``state.view(seat)``
    Exactly what that seat may know (RULES.md §1.12, §2.4); ``view(None)`` is a spectator's.
``state.is_over``, ``state.outcome``
    The end as an :class:`Outcome` value (places per seat, winners, the loser).
``state.copy()``, ``state.to_dict()``, ``load_game(data)``
    Cheap copies; plain JSON-able data with a schema version, and back.
``replay(kind, rules, seats, seed, moves, dealer=0)``
    Rebuild a state from its seed and ``(seat, move text)`` list: the same state, exactly.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

import engine.native  # noqa: F401  first: with SHITHEAD_PURE=1 the modules below load as plain Python

# isort: split
from engine import moves
from engine.cards import CARDS, RANKS, Card, card_of, parse_rank, rank_text
from engine.common import SCHEMA_VERSION, GameState, Outcome, Phase
from engine.errors import (
    CardNotOwnedError,
    EngineError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    NotYourTurnError,
    RulesError,
    SchemaError,
    UnknownSeatError,
)
from engine.events import Event, event_from_dict, event_to_dict
from engine.moves import *  # noqa: F403  the move API, named once in engine.moves.__all__
from engine.neighbor import NeighborState
from engine.rules import DEFAULT_PRESET, PRESETS, NeighborRules, Power, Rules, preset
from engine.shithead import ShitheadState
from engine.views import NeighborView, SeatInfo, ShitheadView


class GameKind(StrEnum):
    """The two games: a state's ``kind``, stored with every game and in its snapshot."""

    SHITHEAD = "shithead"
    NEIGHBOR = "neighbor"  # Shit On Your Neighbor


GAME_KINDS = tuple(kind.value for kind in GameKind)
AnyRules = Rules | NeighborRules
AnyState = ShitheadState | NeighborState


def default_rules(kind: str) -> AnyRules:
    """The rules a game of that kind gets when none are given."""
    if kind == GameKind.NEIGHBOR:
        return NeighborRules()
    if kind == GameKind.SHITHEAD:
        return PRESETS[DEFAULT_PRESET]
    raise RulesError(f"unknown game {kind!r}; choose one of {', '.join(GAME_KINDS)}")


def new_game(
    kind: str = GameKind.SHITHEAD,
    rules: AnyRules | None = None,
    seats: int = 4,
    seed: int = 0,
    dealer: int = 0,
) -> AnyState:
    """Deal a new game of ``kind`` for ``seats`` players; ``dealer`` deals (a rematch: the loser)."""
    rules = rules if rules is not None else default_rules(kind)
    if kind == GameKind.SHITHEAD and isinstance(rules, Rules):
        return ShitheadState.new(rules, seats, seed, dealer)
    if kind == GameKind.NEIGHBOR and isinstance(rules, NeighborRules):
        return NeighborState.new(rules, seats, seed, dealer)
    raise RulesError(f"rules {type(rules).__name__} do not fit a game of {kind!r}")


def load_game(data: dict[str, Any]) -> AnyState:
    """Rebuild a state from :meth:`to_dict` data; raises SchemaError for anything else."""
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind == GameKind.SHITHEAD:
        return ShitheadState.from_dict(data)
    if kind == GameKind.NEIGHBOR:
        return NeighborState.from_dict(data)
    raise SchemaError("not a saved game (no known 'kind')")


def rules_from_dict(kind: str, data: dict[str, Any]) -> AnyRules:
    """Rules of a game kind from their ``to_dict`` data."""
    if kind == GameKind.NEIGHBOR:
        return NeighborRules.from_dict(data)
    return Rules.from_dict(data)


def replay(
    kind: str,
    rules: AnyRules,
    seats: int,
    seed: int,
    moves: Iterable[tuple[int, str]],
    dealer: int = 0,
) -> AnyState:
    """Deal again from the seed and apply every ``(seat, move text)``: the same state, exactly."""
    state = new_game(kind, rules, seats, seed, dealer)
    for seat, text in moves:
        state.apply(seat, text)
    return state


__all__ = [
    "CARDS",
    "DEFAULT_PRESET",
    "GAME_KINDS",
    "PRESETS",
    "RANKS",
    "SCHEMA_VERSION",
    "AnyRules",
    "AnyState",
    "Card",
    "CardNotOwnedError",
    "EngineError",
    "Event",
    "GameKind",
    "GameOverError",
    "GameState",
    "IllegalMoveError",
    "InvalidMoveError",
    "NeighborRules",
    "NeighborState",
    "NeighborView",
    "NotYourTurnError",
    "Outcome",
    "Phase",
    "Power",
    "Rules",
    "RulesError",
    "SchemaError",
    "SeatInfo",
    "ShitheadState",
    "ShitheadView",
    "UnknownSeatError",
    "card_of",
    "default_rules",
    "event_from_dict",
    "event_to_dict",
    "load_game",
    "new_game",
    "parse_rank",
    "preset",
    "rank_text",
    "replay",
    "rules_from_dict",
]
__all__ += moves.__all__
