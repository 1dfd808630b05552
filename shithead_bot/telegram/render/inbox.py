"""The inbox, "📥 Your games": the games waiting on the player, longest wait first, each with its
chat and deadline (a ``date_time`` entity: Telegram shows it in the reader's own time zone), then the
games waiting on others (whose turn, until when); a button per game brings its live message back
(the HAND action). It never shows a card: only chats, names and times."""

from __future__ import annotations

import gettext
from datetime import datetime

from telegram import InlineKeyboardButton

from shithead_bot.i18n import translations
from shithead_bot.service import Inbox, InboxLine
from shithead_bot.telegram.callback_data import Action, Button, Codec
from shithead_bot.telegram.render.common import NEAR, Rendered, aware, clock_text, esc, relative, time_tag

MAX_BUTTONS = 24  # one per game, the waiting ones first; more would only crowd the chat


def inbox(box: Inbox, codec: Codec, language: str) -> Rendered:
    """The inbox message in the reader's language, with its buttons."""
    t = translations(language)
    _ = t.gettext
    lines = [_("📥 <b>Your games</b>")]
    if box.waiting:
        lines.append(_("Waiting on you, longest first:"))
        lines += [f"👉 {_title(line, t)}{_until(line, box.now, t)}" for line in box.waiting]
    else:
        lines.append(_("Nothing waits on you now."))
    if box.others:
        lines += ["", _("Waiting on others:")]
        lines += [f"⌛ {_title(line, t)} — {_whose(line, t)}{_until(line, box.now, t)}" for line in box.others]
    if not box.waiting and not box.others:
        lines.append(_("You have no game going on. Start one with /newgame."))
    return Rendered("\n".join(lines), _buttons(box, codec, t))


def _title(line: InboxLine, t: gettext.NullTranslations) -> str:
    title = line.chat_title or t.gettext("private game")
    return f"<b>{esc(title)}</b> #{line.game_id}"


def _whose(line: InboxLine, t: gettext.NullTranslations) -> str:
    if line.paused:
        return t.gettext("⏸ paused")
    if not line.to_act:
        return t.gettext("the computers play")
    return ", ".join(esc(name) for name in line.to_act)


def _until(line: InboxLine, now: datetime, t: gettext.NullTranslations) -> str:
    if line.deadline is None or line.paused:
        return ""
    return " · " + t.gettext("⏳ {when}").format(when=when(line.deadline, now, t))


def when(at: datetime, now: datetime, t: gettext.NullTranslations) -> str:
    """A deadline as ``date_time`` entities: relative, and the weekday and time an hour or more away."""
    relative_tag = time_tag(at, "r", relative(aware(at), aware(now), t.gettext))
    if aware(at) - aware(now) < NEAR:
        return relative_tag
    clock = time_tag(at, "wt", clock_text(at, now, "UTC", "en"))
    return t.gettext("{relative} ({clock})").format(relative=relative_tag, clock=clock)


def _buttons(box: Inbox, codec: Codec, t: gettext.NullTranslations) -> list[list[InlineKeyboardButton]]:
    _ = t.gettext
    shown = [*box.waiting, *box.others][:MAX_BUTTONS]
    return [
        [
            InlineKeyboardButton(
                ("👉 " if line.mine else "🃏 ") + f"#{line.game_id} {line.chat_title or _('private game')}",
                callback_data=codec.encode(Button(Action.HAND, line.game_id)),
            )
        ]
        for line in shown
    ]
