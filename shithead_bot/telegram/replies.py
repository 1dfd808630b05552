"""What a refused action tells the person — short, in their language, never a stack trace — keyed
by the exception class itself, so a renamed class cannot silently lose its text. And the two ways
of answering: :func:`reply` to a message, :func:`answer` to a press."""

from __future__ import annotations

import gettext
import logging

from telegram import CallbackQuery, InlineKeyboardMarkup, Message, ReplyParameters, Update
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, Forbidden

from engine import CardNotOwnedError, EngineError, GameOverError, IllegalMoveError, InvalidMoveError, NotYourTurnError
from shithead_bot.i18n import N_
from shithead_bot.service import (
    AlreadyDoneError,
    AlreadyJoinedError,
    AlreadyOpenError,
    GameNotFoundError,
    GameStatus,
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
from shithead_bot.telegram.callback_data import BadCallbackError, NotYourQuestionError
from shithead_bot.telegram.render.info import addressed

log = logging.getLogger(__name__)

MOVE_REFUSALS: dict[type[EngineError], str] = {
    IllegalMoveError: N_("That move is not allowed now."),
    CardNotOwnedError: N_("You do not hold those cards."),
    NotYourTurnError: N_("It is not your turn."),
    GameOverError: N_("This game is over."),
    InvalidMoveError: N_("This button is not valid."),
}
REFUSALS: dict[type[Exception], str] = {
    StaleVersionError: N_("This button is out of date."),
    BadCallbackError: N_("This button is not valid."),
    AlreadyDoneError: N_("Already done."),
    NotYourQuestionError: N_("Only whoever asked can answer this."),
    NotAPlayerError: N_("You are not playing in this game."),
    NotAllowedError: N_("Only the game's creator or a chat admin can do that."),
    LobbyFullError: N_("The game is full."),
    AlreadyJoinedError: N_("You are already in."),
    TooFewPlayersError: N_("At least two players are needed."),
    NeedsPrivateChatError: N_("Open a private chat with me first, so I can send you your cards."),
    GameNotFoundError: N_("I cannot find that game."),
    ServiceError: N_("That cannot be done now."),
}
THINKING = N_("🤖 Thinking…")


def thinking_toast(t: gettext.NullTranslations) -> str:
    """A press's answer when the computers think before they move (they play on after it)."""
    return t.gettext(THINKING)


WRONG_STATE: dict[GameStatus, str] = {
    GameStatus.LOBBY: N_("The game has not started yet."),
    GameStatus.PAUSED: N_("The game is paused."),
    GameStatus.FINISHED: N_("This game is over."),
    GameStatus.ABORTED: N_("This game was aborted."),
}


def _by_class(table: dict[type[Exception], str] | dict[type[EngineError], str], exc: Exception) -> str | None:
    """The text of the nearest class of ``exc`` in the table (a subclass inherits its parent's)."""
    return next((table[cls] for cls in type(exc).__mro__ if cls in table), None)


def refusal(exc: Exception, t: gettext.NullTranslations) -> str:
    """The toast or reply for a refused action."""
    _ = t.gettext
    if isinstance(exc, MoveRejectedError):
        return _(_by_class(MOVE_REFUSALS, exc.error) or MOVE_REFUSALS[IllegalMoveError])
    if isinstance(exc, AlreadyOpenError):
        if exc.status == GameStatus.LOBBY:
            return _("There is already a game waiting for players here (#{id}).").format(id=exc.game_id)
        return _("There is already a game going on here (#{id}).").format(id=exc.game_id)
    if isinstance(exc, RateLimitedError):
        n = max(1, exc.seconds_left // 60)
        return t.ngettext("Not so fast — try again in {n} min.", "Not so fast — try again in {n} min.", n).format(n=n)
    if isinstance(exc, LobbyFullError) and exc.max_seats:
        return _("The game is full: it seats at most {n} players.").format(n=exc.max_seats)
    if isinstance(exc, WrongStateError):
        return _(WRONG_STATE.get(GameStatus(exc.status), N_("That cannot be done now.")))
    text = _by_class(REFUSALS, exc)
    return _(text) if text else _("Something went wrong; please try again.")


async def reply(
    update: Update, text: str, markup: InlineKeyboardMarkup | None = None, *, reply_to: int | None = None
) -> Message | None:
    """Answer in the chat (and the forum topic) the update came from; ``reply_to`` quotes that
    message, e.g. the open lobby. In a group, commands in the text name the bot (privacy mode)."""
    message = update.effective_message
    if message is None:
        return None
    if message.chat.type != ChatType.PRIVATE:
        text = addressed(text, message.get_bot().username)
    quote = ReplyParameters(reply_to, allow_sending_without_reply=True) if reply_to else None
    return await message.reply_text(
        text, parse_mode=ParseMode.HTML, reply_markup=markup, disable_web_page_preview=True, reply_parameters=quote
    )


async def answer(query: CallbackQuery, text: str | None = None, *, url: str | None = None) -> bool:
    """Answer a press (its toast, or a link to open). A press answered already — by another worker
    that got the same update, or too late — is no error: False."""
    try:
        await query.answer(text, url=url)
    except BadRequest as exc:
        log.debug("press %s not answered: %s", query.id, exc)
        return False
    return True


async def reply_privately(update: Update, text: str) -> None:
    """A refusal that concerns only its sender: in our private chat, so the group stays clear; in
    the group only when the bot cannot write to them (they never opened the private chat)."""
    user, message = update.effective_user, update.effective_message
    if user is not None and message is not None and message.sender_chat is None:
        try:
            await message.get_bot().send_message(user.id, text, parse_mode=ParseMode.HTML)
            return
        except Forbidden:
            pass
    await reply(update, text)
