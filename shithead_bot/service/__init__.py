"""The use cases of both games, transport-free: a terminal or web front end could call them too.

:class:`GameService` holds the use cases; each returns a :class:`Result` with the notices it wrote
to the outbox, which :class:`Outbox` delivers through whatever sender the front end provides, or
frozen snapshots (:mod:`snapshot`) — never a session or an ORM row. The values a front end compares
(:class:`GameStatus`, :class:`Actor` — owned by the service, :mod:`status`; persistence stores their values) and
the clock helper (:func:`utcnow`) are exported from here, so a front end imports nothing of ``persistence``.
"""

from persistence.models import utcnow
from shithead_bot.service.autoplay import Autoplay, Notify
from shithead_bot.service.away import AwayTooLongError
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
    NotOverYetError,
    QuietHoursError,
    RateLimitedError,
    ServiceError,
    StaleSettingsError,
    StaleVersionError,
    SupersededError,
    TooFewPlayersError,
    WrongStateError,
)
from shithead_bot.service.facade import GameService
from shithead_bot.service.inbox import Inbox, InboxLine
from shithead_bot.service.notices import (
    Announcement,
    AnnouncePayload,
    InboxPayload,
    MovedPayload,
    NoPayload,
    Notice,
    NoticeKind,
    Payload,
    Reminder,
    ReminderPayload,
    TablePayload,
    Tidy,
    TidyPayload,
    TurnPayload,
)
from shithead_bot.service.outbox import Outbox, Sender
from shithead_bot.service.queries import PlayerGame, PlayerRecord, PresetCount
from shithead_bot.service.ratings import OVERALL
from shithead_bot.service.schedule import QuietHours
from shithead_bot.service.snapshot import (
    TABLE_STYLES,
    ChatSnapshot,
    GameInfo,
    GameRecord,
    GameSnapshot,
    MoveLine,
    SeatSnapshot,
)
from shithead_bot.service.standings import RatingLine, plays_like
from shithead_bot.service.status import Actor, GameStatus
from shithead_bot.service.unit import Result, UserInfo
from shithead_bot.service.verification import Verdict

__all__ = [
    "OVERALL",
    "TABLE_STYLES",
    "Actor",
    "AlreadyDoneError",
    "AlreadyJoinedError",
    "AlreadyOpenError",
    "AnnouncePayload",
    "Announcement",
    "Autoplay",
    "AwayTooLongError",
    "ChatSnapshot",
    "GameInfo",
    "GameNotFoundError",
    "GameRecord",
    "GameService",
    "GameSnapshot",
    "GameStatus",
    "Inbox",
    "InboxLine",
    "InboxPayload",
    "LobbyFullError",
    "MoveLine",
    "MoveRejectedError",
    "MovedPayload",
    "NeedsPrivateChatError",
    "NoPayload",
    "NotAPlayerError",
    "NotAllowedError",
    "NotOverYetError",
    "Notice",
    "NoticeKind",
    "Notify",
    "Outbox",
    "Payload",
    "PlayerGame",
    "PlayerRecord",
    "PresetCount",
    "QuietHours",
    "QuietHoursError",
    "RateLimitedError",
    "RatingLine",
    "Reminder",
    "ReminderPayload",
    "Result",
    "SeatSnapshot",
    "Sender",
    "ServiceError",
    "StaleSettingsError",
    "StaleVersionError",
    "SupersededError",
    "TablePayload",
    "Tidy",
    "TidyPayload",
    "TooFewPlayersError",
    "TurnPayload",
    "UserInfo",
    "Verdict",
    "WrongStateError",
    "plays_like",
    "utcnow",
]
