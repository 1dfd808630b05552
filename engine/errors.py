"""Exceptions by cause. Every engine error is an :class:`EngineError`, itself a ``ValueError``.

A failed call never changes the state: every check runs before the first mutation.
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input."""


class InvalidMoveError(EngineError):
    """The move text does not parse (``"p:h:Z:9"``, ``""``, ``"hello"``)."""


class IllegalMoveError(EngineError):
    """The move parses but is not allowed now (a 9 on a 7, a pickup when a play is possible…)."""


class CardNotOwnedError(IllegalMoveError):
    """The move names cards the seat does not hold in that source (two Queens when it holds one)."""


class NotYourTurnError(EngineError):
    """The seat is not the one to act, or has already declared ready, or is out of the game."""


class UnknownSeatError(EngineError):
    """The seat number is not a seat of this game."""


class GameOverError(EngineError):
    """The game has ended; no move is accepted any more."""


class SchemaError(EngineError):
    """Serialised data has an unknown schema version or is malformed."""


class RulesError(EngineError):
    """A rules value or a house rule (``KEY=VALUE``) is not valid."""
