"""What every message is made of: the rendered value, HTML escaping, Telegram's length limit, and
:class:`Page` — one game, for one reader's language."""

from __future__ import annotations

import gettext
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from babel.dates import format_datetime
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from engine import Card, NeighborRules, Power, Rules, ShitheadView, rank_text
from engine import events as ev
from shithead_bot.i18n import pick_language, translations
from shithead_bot.narrate import Narrator, a_rank, cards_text
from shithead_bot.service import Actor, GameSnapshot, GameStatus, MoveLine
from shithead_bot.telegram.callback_data import Action, Button, Codec

MAX_TEXT = 4096
SWAP_EVENTS = (ev.Swapped, ev.Readied)
ROW = 4
NEAR = timedelta(hours=1)  # a deadline closer than this is told relative only ("in 25 minutes")
FAR = timedelta(days=6)  # beyond this, a weekday alone is ambiguous: the date goes with it
_TAG = re.compile(r"<[^>]*>")


@dataclass
class Rendered:
    text: str
    buttons: list[list[InlineKeyboardButton]] = field(default_factory=list)

    @property
    def markup(self) -> InlineKeyboardMarkup | None:
        return InlineKeyboardMarkup(self.buttons) if self.buttons else None


def esc(text: str) -> str:
    return html.escape(text, quote=False)


def visible_text(html_text: str) -> str:
    """What a reader sees of our HTML: the text after entity parsing."""
    return html.unescape(_TAG.sub("", html_text))


def visible_length(html_text: str) -> int:
    """The length Telegram checks against its limit: the text after entity parsing, in UTF-16 units."""
    return len(visible_text(html_text).encode("utf-16-le")) // 2


def fit_lines(head: Sequence[str], tail: Sequence[str] = (), limit: int = MAX_TEXT) -> str:
    """Join whole lines (each line holds its own tags) so that what Telegram counts stays within
    ``limit``: the oldest ``tail`` lines (e.g. past actions) go first, then ``head`` lines from the end."""
    head, tail = list(head), list(tail)
    total = sum(visible_length(line) + 1 for line in [*head, *tail]) - 1
    while tail and total > limit:
        total -= visible_length(tail.pop(0)) + 1
    while len(head) > 1 and total > limit:
        total -= visible_length(head.pop()) + 1
    return "\n".join([*head, *tail])


def rows(buttons: Sequence[InlineKeyboardButton], width: int = ROW) -> list[list[InlineKeyboardButton]]:
    return [list(buttons[i : i + width]) for i in range(0, len(buttons), width)]


def relative(until: datetime, now: datetime, _: Any) -> str:
    """ "in 23 h", "in 1 h 30 min", "in 5 min", "in 40 s" — or "now" when past."""
    seconds = int((until - now).total_seconds())
    if seconds <= 0:
        return _("now")
    if seconds < 90:
        return _("in {n} s").format(n=seconds)
    if seconds < 3600 - 30:
        return _("in {n} min").format(n=round(seconds / 60))
    if seconds < 3 * 3600:
        hours, minutes = divmod(round(seconds / 60), 60)
        if minutes:
            return _("in {h} h {min} min").format(h=hours, min=minutes)
        return _("in {n} h").format(n=hours)
    if seconds < 48 * 3600:
        return _("in {n} h").format(n=round(seconds / 3600))
    return _("in {n} days").format(n=round(seconds / 86400))


def duration_text(seconds: int | None, t: gettext.NullTranslations) -> str:
    """A duration as a person says it, the one format of every turn time: "30 s", "2 min",
    "1 h 30 min", "24 h", "3 days"; None: "no limit"."""
    _ = t.gettext
    if seconds is None:
        return _("no limit")
    if seconds < 60 or seconds % 60:
        return _("{n} s").format(n=seconds)
    hours, minutes = divmod(seconds // 60, 60)
    if not hours:
        return _("{n} min").format(n=minutes)
    if minutes:
        return _("{h} h {min} min").format(h=hours, min=minutes)
    if hours < 48 or hours % 24:
        return _("{n} h").format(n=hours)
    return t.ngettext("{n} day", "{n} days", hours // 24).format(n=hours // 24)


def time_tag(at: datetime, time_format: str, fallback: str) -> str:
    """A Bot API ``date_time`` entity: Telegram shows ``at`` in the reader's own time zone and language
    (``time_format``: ``r`` relative, kept live; ``wt`` weekday and time; ``wdt`` with the date…);
    ``fallback`` is for apps that do not know the entity."""
    unix = int(aware(at).timestamp())
    return f'<tg-time unix="{unix}" format="{time_format}">{esc(fallback)}</tg-time>'


def aware(moment: datetime) -> datetime:
    """A stored time as an aware UTC one (naive times are UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def clock_text(at: datetime, now: datetime, zone: str, language: str) -> str:
    """The clock time of ``at`` in ``zone``, with the zone's name: "Mon 18:00 UTC", "lun. 19:00
    Europe/Paris"; the date too when it is more than six days away ("Mon 12 Jan 13:00 UTC")."""
    pattern = "EEE d MMM HH:mm" if aware(at) - aware(now) > FAR else "EEE HH:mm"
    local = format_datetime(aware(at), pattern, tzinfo=ZoneInfo(zone), locale=pick_language(language))
    return f"{local} {zone}"


def rules_words(rules: Rules, _: Any, language: str) -> list[str]:
    """Each power, then each toggle that is on and matters, in a few words."""
    words = {
        Power.RESET: _("{rank} resets"),
        Power.INVISIBLE: _("{rank} is see-through"),
        Power.BURN: _("{rank} burns"),
        Power.LOWER: _("{rank} (on anything): lower next") if rules.lower_is_wild else _("{rank}: lower next"),
        Power.SKIP: _("{rank} skips"),
        Power.REVERSE: _("{rank} reverses"),
    }
    lower = rules.ranks_with(Power.LOWER)
    parts = []
    for rank, power in rules.powers:
        part = words[power].format(rank=rank_text(rank))
        if power is Power.BURN and rules.matters("burn_on_lower") and not rules.burn_on_lower:
            part += _(", not on {rank}").format(rank=a_rank(lower[0], language))
        parts.append(esc(part))
    toggles = {
        "four_burns": _("four of a kind burns"),
        "pickup_then_play": _("you lead after a pickup"),
        "faceup_pickup_takes_one": _("a pickup from face-up takes one along"),
        "may_pickup_anytime": _("pick up any time"),
        "stock_gamble": _("blind stock play"),
    }
    parts += [text for key, text in toggles.items() if getattr(rules, key)]
    return parts + ([_("two decks")] if rules.decks == 2 else [])


class Page:
    """One game rendered for one language: its texts, names, narrator and buttons."""

    def __init__(self, game: GameSnapshot, codec: Codec, language: str = "en", bot_username: str = "") -> None:
        self.game = game
        self.codec = codec
        self.language = language
        self.bot_username = bot_username
        t = translations(language)
        self._ = t.gettext
        self._n = t.ngettext
        self.rules = game.rules
        self.names = game.names  # as the table shows them now: 🤖 beside a stood-in seat's
        self.narrator = self.narrator_for(None)

    @property
    def game_id(self) -> int:
        return self.game.game.id

    def button(self, text: str, action: Action, version: int = 0, argument: str = "") -> InlineKeyboardButton:
        data = self.codec.encode(Button(action, self.game_id, version, argument))
        return InlineKeyboardButton(text, callback_data=data)

    def deep_link(self, action: str) -> str:
        return self.codec.deep_link(self.bot_username, action, self.game_id)

    def title(self) -> str:
        _ = self._
        if isinstance(self.rules, NeighborRules):
            return _("🃏 <b>Shit On Your Neighbor</b>")
        return _("🃏 <b>Shithead</b> ({preset})").format(preset=esc(self.rules.name))

    def rules_line(self) -> str:
        """The rules in one line of words: "2 resets · 10 burns · four of a kind burns"."""
        if isinstance(self.rules, NeighborRules):
            return self._n(
                "{n} life, Ace low, King blocks", "{n} lives, Ace low, King blocks", self.rules.lives
            ).format(n=self.rules.lives)
        return " · ".join(rules_words(self.rules, self._, self.language))

    def chat_title(self) -> str:
        return esc(self.game.chat.title or self._("your game"))

    def cards(self, cards: Sequence[Card]) -> str:
        return cards_text(cards) or "—"

    def narrator_for(self, me: int | None, stand_in: int | None = None) -> Narrator:
        """The narrator for one reader: their own moves in the second person (None: the group).

        What happened is told with each seat's own name, whoever stands in now; ``stand_in``: the
        seat whose move a stand-in made, told with the 🤖 beside its name."""
        seats = self.game.seats
        names = [s.stand_in_name if s.number == stand_in else s.name for s in seats]
        return Narrator(names, self.rules, self.language, escape=esc, me=me)

    def move_lines(self, moves: Sequence[MoveLine], me: int | None = None, play_only: bool = False) -> list[str]:
        """The moves in words, each by who made it: a timed-out player's moves say so, a stand-in's
        carry the 🤖 (whether the seat is stood in now or not). ``me``: the reader's seat, whose own
        moves are told in the second person. ``play_only``: leave out the swap phase's moves.

        Swaps are told only to their player (``me``): in the group they are noise — the face-up cards
        show on the table, and a computer's swaps, an ``easy`` one's pointless ones above all, made
        a line each. A timed-out player's swap-phase Ready is always told: it is what the timeout did."""
        narrators: dict[int | None, Narrator] = {None: self.narrator_for(me)}
        lines: list[str] = []
        for move in moves:
            stand_in = move.seat if move.actor == Actor.STANDIN and move.seat != me else None
            if stand_in not in narrators:
                narrators[stand_in] = self.narrator_for(me, stand_in)
            narrator = narrators[stand_in]
            timeout = move.actor == Actor.TIMEOUT
            events = [e for e in move.events if self._told(e, move.seat, me, play_only, timeout)]
            told = narrator.lines(events)
            first = next((e for e in events if narrator.line(e)), None)
            if timeout and told:
                if first is not None and getattr(first, "seat", move.seat) == move.seat:
                    told[0] = self.timed_out(move.seat, told[0], me)
                else:
                    told.insert(0, self.timed_out(move.seat, None, me))
            elif move.actor == Actor.AUTOPLAY and move.seat == me and told:
                told[0] = self._("⏩ You had no other move — {what}").format(what=told[0][:1].lower() + told[0][1:])
            elif move.actor == Actor.STANDIN and move.seat == me and told:
                told[0] = self.stood_in(me, events) or told[0]
            lines.extend(told)
        return lines

    def stood_in(self, me: int, events: Sequence[ev.Event]) -> str | None:
        """My stand-in's move, told as its own ("🤖 Your stand-in played 5♥"), never as mine."""
        names = [self._("your stand-in") if seat == me else name for seat, name in enumerate(self.names)]
        told = Narrator(names, self.rules, self.language, escape=esc).lines(events)
        return f"🤖 {told[0][:1].upper()}{told[0][1:]}" if told else None

    @staticmethod
    def _told(event: ev.Event, seat: int, me: int | None, play_only: bool, timeout: bool) -> bool:
        if isinstance(event, ev.Swapped):
            return me is not None and not play_only
        if isinstance(event, ev.Readied) and play_only:
            return timeout and event.seat == seat
        return True

    def timed_out(self, seat: int, what: str | None, me: int | None) -> str:
        """``⏰ Time ran out: Bob picked up the pile`` — the name once; ``what`` None: the timeout alone."""
        _ = self._
        if what is None:
            if seat == me:
                return _("⏰ Your time ran out.")
            return _("⏰ {name}'s time ran out.").format(name=esc(self.game.seat(seat).name))
        if seat == me:
            return _("⏰ Your time ran out — {what}").format(what=what[:1].lower() + what[1:])
        return _("⏰ Time ran out: {what}").format(what=what)

    def deadline(self) -> str:
        """ "⏳" and the deadline as date_time entities (see :meth:`when`), "⏸ paused", or nothing."""
        game = self.game.game
        if game.status == GameStatus.PAUSED:
            return self._("⏸ paused")
        if game.deadline_at is None:
            return ""
        return self._("⏳ {when}").format(when=self.when(game.deadline_at))

    def when(self, at: datetime) -> str:
        """A deadline that stays true however late it is read: relative ("in 23 hours", which the
        reader's app keeps live), and when an hour or more away the weekday and time too ("Tue 18:00",
        in the reader's own time zone; with the date beyond six days). Fallback texts use the chat's zone."""
        relative_tag = time_tag(at, "r", relative(aware(at), aware(self.game.now), self._))
        if aware(at) - aware(self.game.now) < NEAR:
            return relative_tag
        return self._("{relative} ({clock})").format(relative=relative_tag, clock=self.clock_tag(at))

    def clock_tag(self, at: datetime) -> str:
        """The weekday and time of ``at`` as a date_time entity (the date too beyond six days)."""
        time_format = "wdt" if aware(at) - aware(self.game.now) > FAR else "wt"
        return time_tag(at, time_format, clock_text(at, self.game.now, self.game.chat.zone, self.language))

    def picture_deadline(self) -> str:
        """The deadline for the table picture, which cannot be live: the clock time in the chat's
        time zone, naming the zone ("until Mon 18:00 UTC"); "⏸ paused"; or nothing. (The picture's
        fonts have no ⏳.)"""
        game = self.game.game
        if game.status == GameStatus.PAUSED or game.deadline_at is None:
            return visible_text(self.deadline())
        clock = clock_text(game.deadline_at, self.game.now, self.game.chat.zone, self.language)
        return self._("until {clock}").format(clock=clock)

    def pile_line(self, view: ShitheadView) -> str:
        _ = self._
        if not view.pile:
            return _("Pile: empty — any card")
        top = view.pile[-6:]
        shown = " ".join(str(c) for c in top[:-1]) + (" " if len(top) > 1 else "") + f"<b>{top[-1]}</b>"
        return _("Pile ({n}): {cards} — {need}").format(n=len(view.pile), cards=shown, need=self.need(view))

    def need(self, view: ShitheadView) -> str:
        """What the next play must be, in words."""
        _ = self._
        top = view.effective_top
        if top is None:
            return _("any card")
        rules = self.rules
        assert isinstance(rules, Rules)
        power = rules.power(top)
        if power is Power.RESET:
            return _("any card")
        if power is Power.LOWER:
            return _("{rank} or lower").format(rank=rank_text(top))
        return _("beat {rank}").format(rank=rank_text(top))
