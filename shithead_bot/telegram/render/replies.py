"""Short answers, in the reader's language: what a refused action tells the person — never a stack
trace — keyed by the exception class itself, so a renamed class cannot silently lose its text; and
the one-line replies, toasts and confirmations of commands and presses. Handlers send these; they
hold no text of their own."""

from __future__ import annotations

import gettext
from dataclasses import dataclass

from engine import CardNotOwnedError, EngineError, GameOverError, IllegalMoveError, InvalidMoveError, NotYourTurnError
from shithead_bot.i18n import N_
from shithead_bot.service import (
    AlreadyDoneError,
    AlreadyJoinedError,
    AlreadyOpenError,
    AwayTooLongError,
    GameNotFoundError,
    GameStatus,
    LobbyFullError,
    MoveRejectedError,
    NeedsPrivateChatError,
    NotAllowedError,
    NotAPlayerError,
    QuietHours,
    RateLimitedError,
    ServiceError,
    StaleSettingsError,
    StaleVersionError,
    SupersededError,
    TooFewPlayersError,
    WrongStateError,
)
from shithead_bot.telegram.callback_data import BadCallbackError, NotYourQuestionError
from shithead_bot.telegram.parsing import TURN_CHOICES, SettingError
from shithead_bot.telegram.render.common import duration_text, esc
from shithead_bot.telegram.render.levels import level_text

# ----------------------------------------------------------------------------- refusals

MOVE_REFUSALS: dict[type[EngineError], str] = {
    IllegalMoveError: N_("That move is not allowed now."),
    CardNotOwnedError: N_("You do not hold those cards."),
    NotYourTurnError: N_("It is not your turn."),
    GameOverError: N_("This game is over."),
    InvalidMoveError: N_("This button is not valid."),
}
REFUSALS: dict[type[Exception], str] = {
    StaleVersionError: N_("This button is out of date."),
    SupersededError: N_("A newer game was played here: start one with /newgame."),
    StaleSettingsError: N_("These settings changed since: send /settings again."),
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
    AwayTooLongError: N_("You can be away for 10 minutes at least and 60 days at most."),
    ServiceError: N_("That cannot be done now."),
}
THINKING = N_("🤖 Thinking…")


def thinking_toast(t: gettext.NullTranslations) -> str:
    """A press's answer when the computers think before they move (they play on after it)."""
    return t.gettext(THINKING)


STARTED = frozenset({GameStatus.SWAPPING, GameStatus.PLAYING, GameStatus.PAUSED})
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
    return _(text) if text else something_went_wrong(t)


COMMAND_REFUSALS: dict[type[Exception], str] = {
    StaleVersionError: N_("The game changed just then; please send the command again."),
}


def command_refusal(exc: Exception, t: gettext.NullTranslations) -> str:
    """The reply to a refused command: :func:`refusal`'s, but never a button's words (a command's
    use case that lost a race to another change is not an old button)."""
    text = _by_class(COMMAND_REFUSALS, exc)
    return t.gettext(text) if text else refusal(exc, t)


def too_late_to_join(exc: Exception, game_id: int, t: gettext.NullTranslations) -> str | None:
    """Join (its link or its button) refused because the game started meanwhile: says so (None:
    refused for another reason)."""
    if isinstance(exc, WrongStateError) and exc.status in STARTED:
        return t.gettext("Game #{id} has already started: it is too late to join it.").format(id=game_id)
    return None


def something_went_wrong(t: gettext.NullTranslations) -> str:
    """The answer to a press that failed for a reason nobody foresaw."""
    return t.gettext("Something went wrong; please try again.")


def already_done(t: gettext.NullTranslations) -> str:
    """The answer to a press delivered twice (its first delivery carries the real answer)."""
    return t.gettext("Already done.")


# ----------------------------------------------------------------------------- confirmations


@dataclass(frozen=True)
class Question:
    """A yes/no confirmation: its text and its two buttons' labels."""

    text: str
    yes: str
    no: str


def abort_question(game_id: int, t: gettext.NullTranslations) -> Question:
    _ = t.gettext
    return Question(_("Abort game #{id}? Nobody wins.").format(id=game_id), _("🛑 Yes, abort"), _("No"))


def abort_answered(game_id: int, aborted: bool, t: gettext.NullTranslations) -> str:
    _ = t.gettext
    return _("Game #{id} aborted.").format(id=game_id) if aborted else _("The game goes on.")


def forfeit_question(game_id: int, t: gettext.NullTranslations) -> Question:
    _ = t.gettext
    return Question(
        _("Leave game #{id} for good? You will take the worst free place.").format(id=game_id),
        _("🏳 Yes, leave"),
        _("No"),
    )


def forfeit_answered(game_id: int, left: bool, t: gettext.NullTranslations) -> str:
    _ = t.gettext
    return _("You left game #{id}.").format(id=game_id) if left else _("You stay in the game.")


# ----------------------------------------------------------------------------- the game's controls


def no_game_here(t: gettext.NullTranslations) -> str:
    return t.gettext("There is no game here.")


def creator_or_admin_only(t: gettext.NullTranslations) -> str:
    return t.gettext("Only the game's creator or a chat admin can do that.")


def pause_vote_counted(t: gettext.NullTranslations) -> str:
    """/pause of a player who may not pause at once: their vote."""
    return t.gettext("Your vote to pause is counted; a majority of the players pauses the game.")


def pause_toast(paused: bool, t: gettext.NullTranslations) -> str:
    """The table's ⏸ Pause, answered: paused at once, or a vote counted."""
    _ = t.gettext
    return _("Paused.") if paused else _("Your vote to pause is counted.")


def nudged(t: gettext.NullTranslations) -> str:
    return t.gettext("Nudged!")


# ----------------------------------------------------------------------------- the lobby

COMPUTERS_USAGE = N_(
    "Against computers, in our private chat: add their level (easy, normal or hard) and how many, e.g. /newgame hard 3."
)


def unknown_game(t: gettext.NullTranslations) -> str:
    """/newgame with words it cannot read."""
    unknown = t.gettext("Unknown game. Try /newgame standard, smelly, classic, free or neighbor.")
    return f"{unknown} {t.gettext(COMPUTERS_USAGE)}"


def too_many_computers(max_seats: int, t: gettext.NullTranslations) -> str:
    most = t.gettext("A game seats at most {n} players: you and up to {computers} computers.")
    return most.format(n=max_seats, computers=max_seats - 1)


def saved_rules_ignored(reason: str, t: gettext.NullTranslations) -> str:
    """A new game whose chat's saved house rules could not be used."""
    return t.gettext(
        "This chat's saved house rules cannot be used ({reason}), so this game plays the plain preset. "
        "A chat admin can fix them with /settings rules clear."
    ).format(reason=esc(reason))


def computers_level(level: str, t: gettext.NullTranslations) -> str:
    """In private, a /newgame without a level: which level the computers play at, and how to choose."""
    told = t.gettext("Your computer opponents play at the {level} level.")
    return f"{told.format(level=level_text(t.gettext, level))} {t.gettext(COMPUTERS_USAGE)}"


def computers_by_buttons(t: gettext.NullTranslations) -> str:
    return t.gettext("In a group, add computer players with the lobby's 🤖 buttons.")


def joined_by_link(game_id: int, t: gettext.NullTranslations) -> str:
    return t.gettext("You joined game #{id}. Your cards will come here.").format(id=game_id)


def joined_toast(t: gettext.NullTranslations) -> str:
    return t.gettext("You are in! Your cards will come here in private.")


def dealt_toast(t: gettext.NullTranslations) -> str:
    return t.gettext("Dealt! Check your private chat with me.")


# ----------------------------------------------------------------------------- your cards and games


def sent_privately(t: gettext.NullTranslations) -> str:
    return t.gettext("Sent to our private chat.")


def sent_below(t: gettext.NullTranslations) -> str:
    """My cards asked for in our private chat: the fresh copy is the newest message there."""
    return t.gettext("Here they are, below.")


def no_game_going_on(t: gettext.NullTranslations) -> str:
    return t.gettext("You have no game going on.")


def not_playing_this_game(t: gettext.NullTranslations) -> str:
    return t.gettext("You are not playing in this game.")


def not_playing_here(t: gettext.NullTranslations) -> str:
    return t.gettext("You are not playing a game here.")


@dataclass(frozen=True)
class OpenChat:
    """What to tell someone the bot may not write to yet: the text, and its link's label."""

    text: str
    label: str


def cannot_message_you(t: gettext.NullTranslations) -> OpenChat:
    """The bot may not write to someone who never opened its chat."""
    return OpenChat(t.gettext("I cannot message you yet: open our chat first."), t.gettext("Open the bot"))


def games_sent_privately(t: gettext.NullTranslations) -> str:
    return t.gettext("I sent your games to our private chat.")


def bad_link(t: gettext.NullTranslations) -> str:
    """A /start payload that is not a link of ours any more."""
    return t.gettext("This link is not valid or no longer works. /games lists yours.")


# ----------------------------------------------------------------------------- settings

SETTING_UNREADABLE = N_("I cannot read /settings {what}")


def admins_only(t: gettext.NullTranslations) -> str:
    return t.gettext("Only a chat admin can change the settings.")


def turn_time_set(name: str, t: gettext.NullTranslations) -> str:
    """A turn-time button's answer, the time said as everywhere else ("5 min")."""
    return t.gettext("Turn time: {turn}").format(turn=duration_text(TURN_CHOICES.get(name), t))


def in_words(exc: Exception, t: gettext.NullTranslations) -> str:
    """Why a setting was refused, in the reader's language (a house rule's reason is the engine's)."""
    if isinstance(exc, SettingError):
        return t.gettext(exc.template).format(**exc.values)
    return str(exc)


def quiet_hours_text(hours: QuietHours | None, t: gettext.NullTranslations) -> str:
    """/quiet: the player's quiet hours, or that there are none."""
    _ = t.gettext
    if hours is None:
        return _("No quiet hours. Set some with /quiet 23:00-08:00 Europe/Paris.")
    return _("Quiet hours: {hours}. No reminders then; /quiet off to remove.").format(hours=hours)


# ----------------------------------------------------------------------------- who writes


def channel_cannot_play(t: gettext.NullTranslations) -> str:
    return t.gettext("Messages sent on behalf of a channel cannot run a game here: write as yourself.")


def anonymous_cannot_play(t: gettext.NullTranslations) -> str:
    return t.gettext("You are writing anonymously: that runs this chat's game, but to play, write as yourself.")


# ----------------------------------------------------------------------------- /verify


def nothing_dealt(number: int | None, t: gettext.NullTranslations) -> str:
    """/verify of a game that was never dealt: none in the chat yet, or not that number."""
    if number is None:
        return t.gettext("No game has been dealt in this chat yet: there is nothing to verify.")
    return t.gettext("No game #{id} was dealt in this chat.").format(id=number)
