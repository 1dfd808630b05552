"""Why a use case refused: one exception per cause, each with a stable ``code`` for the texts."""

from __future__ import annotations

from engine import EngineError
from shithead_bot.service.status import GameStatus


class ServiceError(Exception):
    """Base of every refusal. ``code`` names the cause; the message is for logs."""

    code = "error"


class SupersededError(ServiceError):
    """A finished game's Rematch pressed after a later game was dealt in its chat."""

    code = "superseded"


class StaleSettingsError(ServiceError):
    """A settings keyboard shown before the chat's settings changed again."""

    code = "stale_settings"


class StaleVersionError(ServiceError):
    """The button (or timer) was made for an older state of the game: nothing was changed."""

    code = "stale"


class AlreadyDoneError(ServiceError):
    """The press asked for something that already happened (a second tap on the same lobby)."""

    code = "already_done"


class GameNotFoundError(ServiceError):
    code = "no_game"


class NotAPlayerError(ServiceError):
    """The user has no seat at this game."""

    code = "not_a_player"


class NotAllowedError(ServiceError):
    """Only the creator, a chat admin or a seated player may do this."""

    code = "not_allowed"


class WrongStateError(ServiceError):
    """The game is not in a state where this can be done (e.g. joining a started game)."""

    code = "wrong_state"

    def __init__(self, message: str, status: str) -> None:
        super().__init__(message)
        self.status = status


class NotOverYetError(WrongStateError):
    """The game is not over: its seed and salt are still secret, so its deal cannot be verified yet.
    ``commitment`` is the fingerprint published at the start (None: an older game without one)."""

    code = "not_over_yet"

    def __init__(self, game_id: int, commitment: str | None) -> None:
        super().__init__(f"game {game_id} is not over yet", GameStatus.PLAYING)
        self.game_id = game_id
        self.commitment = commitment


class AlreadyOpenError(ServiceError):
    """The chat already has a game that is not over."""

    code = "already_open"

    def __init__(self, game_id: int, status: str, message_id: int | None = None) -> None:
        super().__init__(f"game {game_id} is still {status}")
        self.game_id = game_id
        self.status = status
        self.message_id = message_id  # its lobby (or table) message, to point at


class OpenRaceError(StaleVersionError):
    """Two lobbies were opened in one chat at the same moment and this one lost (internal: the use
    case turns it into :class:`AlreadyOpenError` naming the winner)."""


class LobbyFullError(ServiceError):
    """No seat is left: the rules seat at most ``max_seats`` players."""

    code = "lobby_full"

    def __init__(self, message: str, max_seats: int = 0) -> None:
        super().__init__(message)
        self.max_seats = max_seats


class AlreadyJoinedError(ServiceError):
    code = "already_joined"


class TooFewPlayersError(ServiceError):
    code = "too_few_players"


class NeedsPrivateChatError(ServiceError):
    """The player has not started the bot (or blocked it), so their hand could not reach them."""

    code = "needs_private_chat"

    def __init__(self, player_id: int, game_id: int | None = None) -> None:
        super().__init__(f"player {player_id} must open a private chat with the bot first")
        self.player_id = player_id
        self.game_id = game_id


class MoveRejectedError(ServiceError):
    """The engine refused the move; ``error`` is the engine's own exception (its class says why)."""

    code = "move_rejected"

    def __init__(self, error: EngineError) -> None:
        super().__init__(str(error))
        self.error = error

    @property
    def cause(self) -> str:
        return type(self.error).__name__


class RateLimitedError(ServiceError):
    """Asked again too soon (e.g. a second nudge within the hour)."""

    code = "rate_limited"

    def __init__(self, message: str, seconds_left: int) -> None:
        super().__init__(message)
        self.seconds_left = seconds_left


class QuietHoursError(ServiceError):
    """The player to remind is in their quiet hours."""

    code = "quiet_hours"
