"""The service's status enums: a game's :class:`GameStatus` and a move's :class:`Actor`.

The service owns them; ``persistence`` stores their values as plain strings (``Game.status``,
``Move.actor``) and knows no enum. Where the schema itself needs values (the partial index of open
games), ``persistence.models`` keeps plain string constants, and tests/test_architecture.py checks
that they equal the values here.
"""

from __future__ import annotations

from enum import StrEnum


class GameStatus(StrEnum):
    LOBBY = "lobby"
    SWAPPING = "swapping"
    PLAYING = "playing"
    PAUSED = "paused"
    FINISHED = "finished"
    ABORTED = "aborted"


class Actor(StrEnum):
    """Who made a move of the log (``Move.actor``)."""

    HUMAN = "human"  # the player's own tap
    COMPUTER = "computer"  # a computer seat
    AUTOPLAY = "autoplay"  # a forced move the bot made for the player
    STANDIN = "standin"  # a computer standing in for an away player (or, after timeouts, for good)
    TIMEOUT = "timeout"  # the move made for a player at their deadline


# the statuses of a game that is not over yet (persistence.models.OPEN_STATUSES stores these values)
OPEN_STATUSES = (GameStatus.LOBBY, GameStatus.SWAPPING, GameStatus.PLAYING, GameStatus.PAUSED)
