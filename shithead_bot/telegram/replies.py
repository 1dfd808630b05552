"""What a refused action tells the person: short, in their language, never a stack trace."""

from __future__ import annotations

import gettext
import logging

from telegram import CallbackQuery
from telegram.error import BadRequest

from shithead_bot.i18n import N_
from shithead_bot.service import (
    AlreadyDoneError,
    AlreadyJoinedError,
    AlreadyOpenError,
    GameNotFoundError,
    LobbyFullError,
    MoveRejectedError,
    NeedsPrivateChatError,
    NotAllowedError,
    NotAPlayerError,
    RateLimitedError,
    ServiceError,
    StaleVersionError,
    TooFewPlayersError,
    WrongStateError,
)
from shithead_bot.telegram.callback_data import BadCallbackError

log = logging.getLogger(__name__)

_MOVE_CAUSES = {
    "IllegalMoveError": N_("That move is not allowed now."),
    "CardNotOwnedError": N_("You do not hold those cards."),
    "NotYourTurnError": N_("It is not your turn."),
    "GameOverError": N_("This game is over."),
    "InvalidMoveError": N_("This button is not valid."),
}


def refusal(exc: Exception, t: gettext.NullTranslations) -> str:
    """The toast or reply for a refused action."""
    _ = t.gettext
    if isinstance(exc, StaleVersionError):
        return _("This button is out of date.")
    if isinstance(exc, BadCallbackError):
        return _("This button is not valid.")
    if isinstance(exc, MoveRejectedError):
        return _(_MOVE_CAUSES.get(exc.cause, "That move is not allowed now."))
    return _service_refusal(exc, t)


def _service_refusal(exc: Exception, t: gettext.NullTranslations) -> str:
    _ = t.gettext
    if isinstance(exc, AlreadyDoneError):
        return _("Already done.")
    if isinstance(exc, NotAPlayerError):
        return _("You are not playing in this game.")
    if isinstance(exc, NotAllowedError):
        return _("Only the game's creator or a chat admin can do that.")
    if isinstance(exc, AlreadyOpenError):
        if exc.status == "lobby":
            return _("There is already a game waiting for players here (#{id}).").format(id=exc.game_id)
        return _("There is already a game going on here (#{id}).").format(id=exc.game_id)
    if isinstance(exc, LobbyFullError):
        return _("The game is full.")
    if isinstance(exc, AlreadyJoinedError):
        return _("You are already in.")
    if isinstance(exc, TooFewPlayersError):
        return _("At least two players are needed.")
    if isinstance(exc, NeedsPrivateChatError):
        return _("Open a private chat with me first, so I can send you your cards.")
    if isinstance(exc, RateLimitedError):
        return _("Not so fast — try again in {n} min.").format(n=max(1, exc.seconds_left // 60))
    if isinstance(exc, WrongStateError):
        return {
            "lobby": _("The game has not started yet."),
            "paused": _("The game is paused."),
            "finished": _("This game is over."),
            "aborted": _("This game was aborted."),
        }.get(exc.status, _("That cannot be done now."))
    if isinstance(exc, GameNotFoundError):
        return _("I cannot find that game.")
    if isinstance(exc, ServiceError):
        return _("That cannot be done now.")
    return _("Something went wrong; please try again.")


async def answer(query: CallbackQuery, text: str | None = None, *, url: str | None = None) -> bool:
    """Answer a press (its toast, or a link to open). A press answered already — by another worker
    that got the same update, or too late — is no error: False."""
    try:
        await query.answer(text, url=url)
    except BadRequest as exc:
        log.debug("press %s not answered: %s", query.id, exc)
        return False
    return True
