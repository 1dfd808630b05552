"""The texts of /away and /back: until when a stand-in plays for the player, and the choices."""

from __future__ import annotations

import gettext
from datetime import datetime

from shithead_bot.telegram.render.common import clock_text, time_tag


def away_text(until: datetime, games: int, t: gettext.NullTranslations) -> str:
    """The answer to going away: until when, and in how many games the stand-in plays now."""
    _ = t.gettext
    when = time_tag(until, "wdt", until.strftime("%Y-%m-%d %H:%M UTC"))
    if games == 0:
        head = _(
            "🌴 You are away until {when}. You have no game going on: a computer will play for you in any "
            "game you are dealt into meanwhile."
        )
    else:
        head = t.ngettext(
            "🌴 You are away until {when}: a computer plays for you in your game, and you get no reminders.",
            "🌴 You are away until {when}: a computer plays for you in your {n} games, and you get no reminders.",
            games,
        )
    return "\n".join([head.format(when=when, n=games), _("Back sooner? /back, or press any button of a game.")])


def away_toast(until: datetime, now: datetime, language: str, t: gettext.NullTranslations) -> str:
    """A press's short answer to going away: plain words (a toast shows no time entity), the time
    in UTC and the reader's language."""
    return t.gettext("🌴 You are away until {when}.").format(when=clock_text(until, now, "UTC", language))


def back_text(was_away: bool, t: gettext.NullTranslations) -> str:
    _ = t.gettext
    if not was_away:
        return _("You were not away. /away 3d lets a computer play for you for three days.")
    return _("👋 Welcome back: your turns are yours again.")


def away_choices_text(until: datetime | None, t: gettext.NullTranslations) -> str:
    """/away without a time: how long? (And until when, if already away.)"""
    _ = t.gettext
    lines = [
        _(
            "🌴 How long are you away? A computer plays your turns meanwhile, in every game. Or write /away 3d "
            "(from 10 minutes to 60 days)."
        )
    ]
    if until is not None:
        when = time_tag(until, "wdt", until.strftime("%Y-%m-%d %H:%M UTC"))
        lines.insert(0, _("You are away until {when}. /back to come back now.").format(when=when))
    return "\n".join(lines)


def away_refused(reason: str, t: gettext.NullTranslations) -> str:
    return "\n".join([reason, t.gettext("For example: /away 12h, /away 3d or /away 2w.")])
