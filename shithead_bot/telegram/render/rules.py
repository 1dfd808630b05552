"""Texts about the rules: a game's rules in plain words, and a chat's saved settings."""

from __future__ import annotations

import gettext
from collections.abc import Callable

from engine import NeighborRules, Power, Rules, rank_text
from shithead_bot.i18n import translations
from shithead_bot.narrate import a_rank
from shithead_bot.service import Autoplay, ChatSnapshot, Notify
from shithead_bot.telegram.render.common import duration_text, esc
from shithead_bot.telegram.render.levels import level_text

SETTINGS_USAGE = (
    "/settings turn 1h · /settings reminders 50% 1h (or off, default) · /settings timeouts 3 (0: never) · "
    "/settings quiet_deadlines on · /settings game shithead|neighbor · /settings preset smelly · "
    "/settings rule 8=skip · /settings rules clear · /settings table picture|text · /settings language en|fr|auto · "
    "/settings timezone Europe/Paris · /settings standin easy|normal|hard · /settings on_timeout standin|minimal · "
    "/settings after_timeouts remove|computer · in private, yours: /settings autoplay off|public|all · "
    "/settings notify smart|every|digest · /settings digest 4h"
)


def rules_text(rules: Rules | NeighborRules, language: str = "en") -> str:
    """The rules of a game in plain words, house rules included."""
    _ = translations(language).gettext
    if isinstance(rules, NeighborRules):
        return _(
            "<b>Shit On Your Neighbor</b>: everyone starts with {lives} lives and gets one card. From the "
            "dealer's left, each player keeps or swaps with the next player — a King blocks the swap. The dealer "
            "acts last and may trade with the deck. Then all cards are shown: every lowest card (Ace is lowest) "
            "loses a life. The last player with lives wins."
        ).format(lives=rules.lives)
    lines = [
        _("<b>Shithead</b> ({name})").format(name=esc(rules.name)),
        _(
            "Get rid of your cards: hand first (drawing back to 3 while the stock lasts), then your face-up "
            "cards, then your face-down cards blind. Play one or more cards of one rank, equal or higher than the "
            "pile. If you cannot, pick up the pile. The last player holding cards is the {title}."
        ).format(title=esc(rules.loser_title)),
    ]
    for rank, power in rules.powers:
        lines.append(
            _("• {rank}: {power}").format(rank=rank_text(rank), power=power_text(power, rank, rules, language))
        )
    toggles = {
        "four_burns": _("four of a kind on top burns the pile"),
        "pickup_then_play": _("after picking up, you lead again"),
        "faceup_pickup_takes_one": _("picking up from face-up takes one face-up card along"),
        "may_pickup_anytime": _("you may pick up instead of playing"),
        "stock_gamble": _("you may play the top of the stock blind"),
    }
    lines += [f"• {text}" for key, text in toggles.items() if getattr(rules, key)]
    if rules.decks == 2:
        lines.append(_("• played with two decks, up to {n} players").format(n=rules.max_seats))
    house = rules.house_rules()
    if house:
        lines.append(_("House rules: {rules}").format(rules=esc(", ".join(f"{k}={v}" for k, v in house.items()))))
    return "\n".join(lines)


def power_text(power: Power, rank: int, rules: Rules, language: str = "en") -> str:
    """What a rank's power does, in words, with the toggles that change it."""
    _ = translations(language).gettext
    this = a_rank(rank, language)
    if power is Power.BURN:
        text = _("burns the pile; play again")
        if rules.matters("burn_on_lower"):
            lower = a_rank(rules.ranks_with(Power.LOWER)[0], language)
            more = _(" — on {rank} too") if rules.burn_on_lower else _(" — but not on {rank}")
            text += more.format(rank=lower)
        return text
    if power is Power.LOWER:
        if rules.lower_is_wild:
            return _("goes on anything; the next card must be {rank} or lower").format(rank=this)
        return _("the next card must be {rank} or lower").format(rank=this)
    texts = {
        Power.RESET: _("goes on anything; anything goes on it"),
        Power.INVISIBLE: _("goes on anything and is see-through"),
        Power.SKIP: _("skips the next player"),
        Power.REVERSE: _("reverses the direction"),
    }
    return texts[power]


def settings_text(chat: ChatSnapshot, t: gettext.NullTranslations) -> str:
    """A chat's saved settings, and how to change them."""
    _ = t.gettext
    rules = ", ".join(f"{k}={v}" for k, v in chat.house_rules.items()) or _("none")
    reminders = " ".join(chat.reminders) if chat.reminders is not None else _("default (half time, 1 h before)")
    return "\n".join(
        [
            _("⚙️ <b>Settings of this chat</b>"),
            _("Game: {kind} · preset: {preset} · house rules: {rules}").format(
                kind=chat.game_kind, preset=chat.preset, rules=esc(rules)
            ),
            _("Turn time: {turn} · reminders: {reminders}").format(
                turn=duration_text(chat.turn_seconds, t), reminders=esc(reminders or _("off"))
            ),
            t.ngettext(
                "Removal after {n} missed turn (0: never) · deadlines skip quiet hours: {quiet}",
                "Removal after {n} missed turns in a row (0: never) · deadlines skip quiet hours: {quiet}",
                chat.max_timeouts,
            ).format(n=chat.max_timeouts, quiet=_("on") if chat.deadlines_skip_quiet else _("off")),
            _("Stand-in (for /away): {level} · at a deadline: {on_timeout} · after the missed turns: {after}").format(
                level=level_text(_, chat.standin_level),
                on_timeout=_("the stand-in's move") if chat.on_timeout == "standin" else _("the minimal move"),
                after=_("a computer takes the seat") if chat.after_timeouts == "computer" else _("removal"),
            ),
            language_line(chat, _),
            _("Table: {style} · time zone of the picture: {zone}").format(
                style=_("picture") if chat.table_is_picture else _("text"), zone=esc(chat.zone)
            ),
            "",
            esc(SETTINGS_USAGE),
        ]
    )


def setting_fields(chat: ChatSnapshot, t: gettext.NullTranslations) -> dict[str, tuple[str, str]]:
    """Each setting ``/settings KEY …`` changes, by its key: its name and its value, in words."""
    _ = t.gettext
    rules = ", ".join(f"{k}={v}" for k, v in chat.house_rules.items()) or _("none")
    reminders = " ".join(chat.reminders) if chat.reminders is not None else _("default (half time, 1 h before)")
    own = _("your own (auto)") if chat.kind == "private" else _("en (auto)")
    return {
        "game": (_("Game"), chat.game_kind),
        "preset": (_("Preset"), chat.preset),
        "rules": (_("House rules"), esc(rules)),
        "turn": (_("Turn time"), duration_text(chat.turn_seconds, t)),
        "reminders": (_("Reminders"), esc(reminders or _("off"))),
        "timeouts": (_("Removal after missed turns in a row"), str(chat.max_timeouts or _("never"))),
        "quiet_deadlines": (_("Deadlines skip quiet hours"), _("on") if chat.deadlines_skip_quiet else _("off")),
        "standin": (_("Stand-in"), level_text(_, chat.standin_level)),
        "on_timeout": (
            _("At a deadline"),
            _("the stand-in's move") if chat.on_timeout == "standin" else _("the minimal move"),
        ),
        "after_timeouts": (
            _("After the missed turns"),
            _("a computer takes the seat") if chat.after_timeouts == "computer" else _("removal"),
        ),
        "language": (_("Language"), chat.language or own),
        "table": (_("Table"), _("picture") if chat.table_is_picture else _("text")),
        "timezone": (_("Time zone"), esc(chat.zone)),
    }


def setting_changed(key: str, before: ChatSnapshot, after: ChatSnapshot, t: gettext.NullTranslations) -> str:
    """What one ``/settings KEY …`` changed, in one line ("⚙️ Turn time: 2 min (was 5 min)."): the
    whole list is for a bare ``/settings``."""
    _ = t.gettext
    old, new = setting_fields(before, t), setting_fields(after, t)
    changed = [
        _("⚙️ {setting}: {value} (was {old}).").format(setting=name, value=value, old=old[field][1])
        for field, (name, value) in new.items()
        if old[field][1] != value
    ]
    if changed:
        return " ".join(changed)
    name, value = new[{"rule": "rules"}.get(key, key)] if key in (*new, "rule") else new["turn"]
    return _("⚙️ {setting}: {value} (unchanged).").format(setting=name, value=value)


def language_line(chat: ChatSnapshot, _: Callable[[str], str]) -> str:
    """Which language the bot writes in here, and that private messages follow each player's own."""
    if chat.kind == "private":
        return _("Language: {language}").format(language=chat.language or _("your own (auto)"))
    return _("Language of this chat: {language} · private messages: each player's own").format(
        language=chat.language or _("en (auto)")
    )


def autoplay_text(setting: Autoplay, t: gettext.NullTranslations) -> str:
    """A player's autoplay setting, what it does, and how to change it."""
    _ = t.gettext
    what = {
        Autoplay.OFF: _("none: every move is your tap."),
        Autoplay.PUBLIC: _(
            "those everybody can see you had to make — a pickup when nothing fits, your face-up cards, your "
            "last face-down card, your last card in hand. I make them at once and tell you without a "
            "notification; you are notified when a real choice is yours."
        ),
        Autoplay.ALL: _(
            "all of them, also your only fitting card when you hold others — the other players can then tell "
            "that nothing else in your hand fitted."
        ),
    }[setting]
    return "\n".join(
        [
            _("⏩ <b>Forced moves I make for you</b> ({setting}): {what}").format(setting=setting.value, what=what),
            _("In every game. /settings autoplay off · public (the default) · all"),
        ]
    )


def notify_text(setting: Notify, digest_seconds: int, t: gettext.NullTranslations) -> str:
    """A player's notify setting, what it does, and how to change it."""
    _ = t.gettext
    what = {
        Notify.SMART: _(
            "when you are not already here. A turn that comes within 5 minutes of your last tap or command in "
            "this chat arrives silently, and if it is still waiting 5 minutes later I nudge you once."
        ),
        Notify.EVERY: _("every turn, whether you are here or not."),
        Notify.DIGEST: digest_words(digest_seconds, t),
    }[setting]
    return "\n".join(
        [
            _("🔔 <b>Your turns notify you</b> ({setting}): {what}").format(setting=setting.value, what=what),
            _("In every game. /settings notify smart (the default) · every · digest"),
        ]
    )


def digest_words(seconds: int, t: gettext.NullTranslations) -> str:
    """What digest mode does, with the player's interval."""
    return t.gettext(
        "never for a turn: turns come silently, and your inbox (📥 Your games) comes anew with a notification "
        "at most once every {interval}, when a game waits on you, outside your quiet hours. A reminder before "
        "a deadline still notifies you."
    ).format(interval=duration_text(seconds, t))


def digest_text(setting: Notify, seconds: int, t: gettext.NullTranslations) -> str:
    """``/settings digest``: the interval, whether digest mode is on, and how to change them."""
    _ = t.gettext
    lines = [_("📥 <b>Digest</b> every {interval}").format(interval=duration_text(seconds, t))]
    if setting is not Notify.DIGEST:
        lines.append(_("Digest mode is off: /settings notify digest turns it on."))
    lines.append(_("/settings digest 4h (the default) · 30m · 2h · 1d — from 15m to 7d"))
    return "\n".join(lines)


def notify_unknown(text: str, t: gettext.NullTranslations) -> str:
    """The answer to ``/settings notify`` with a value it does not know."""
    refused = t.gettext("{text}: choose one of {choices}").format(
        text=repr(text[:20]), choices=", ".join(str(n) for n in Notify)
    )
    return esc(refused)


def autoplay_unknown(text: str, t: gettext.NullTranslations) -> str:
    """The answer to ``/settings autoplay`` with a value it does not know."""
    refused = t.gettext("{text}: choose one of {choices}").format(
        text=repr(text[:20]), choices=", ".join(str(a) for a in Autoplay)
    )
    return esc(refused)
