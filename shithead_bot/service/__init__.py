"""The use cases of both games, transport-free: a terminal or web front end could call them too.

:class:`GameService` holds the use cases; each returns a :class:`Result` with the notices it wrote
to the outbox, which :class:`Outbox` delivers through whatever sender the front end provides.
"""

from shithead_bot.service.errors import (
    AlreadyDoneError,
    AlreadyJoinedError,
    AlreadyOpenError,
    GameNotFoundError,
    LobbyFullError,
    MoveRejectedError,
    NeedsPrivateChatError,
    NotAllowedError,
    NotAPlayerError,
    QuietHoursError,
    RateLimitedError,
    ServiceError,
    StaleVersionError,
    TooFewPlayersError,
    WrongStateError,
)
from shithead_bot.service.games import Ctx, GameService, Result, UserInfo
from shithead_bot.service.notices import Notice, NoticeKind
from shithead_bot.service.outbox import Outbox, Sender

__all__ = [
    "AlreadyDoneError",
    "AlreadyJoinedError",
    "AlreadyOpenError",
    "Ctx",
    "GameNotFoundError",
    "GameService",
    "LobbyFullError",
    "MoveRejectedError",
    "NeedsPrivateChatError",
    "NotAPlayerError",
    "NotAllowedError",
    "Notice",
    "NoticeKind",
    "Outbox",
    "QuietHoursError",
    "RateLimitedError",
    "Result",
    "Sender",
    "ServiceError",
    "StaleVersionError",
    "TooFewPlayersError",
    "UserInfo",
    "WrongStateError",
]
