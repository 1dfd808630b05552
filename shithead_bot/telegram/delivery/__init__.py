"""The outbox's sender: a plan becomes steps (``planner.py``, pure: ``steps.py`` the values), which
the executor (``executor.py``, and ``group.py`` for the game's chat) runs against the Bot API,
returning a report. It calls no use case."""

from shithead_bot.telegram.botapi import PlayerUnreachableError
from shithead_bot.telegram.delivery.executor import Delivery

__all__ = ["Delivery", "PlayerUnreachableError"]
