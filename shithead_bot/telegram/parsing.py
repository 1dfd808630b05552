"""What people type after /settings and /quiet, read into the values the service takes.

Every number is range-checked and every refusal says what is expected, quoting at most a little of
the input (it may be anything).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine import GAME_KINDS, PRESETS, GameKind
from shithead_bot.i18n import N_
from shithead_bot.service.schedule import QuietHours, SettingError, iana_zone, parse_duration
from shithead_bot.telegram.render.levels import level_words

__all__ = [
    "MAX_TIMEOUTS",
    "TURN_CHOICES",
    "NewGame",
    "QuietHours",
    "SettingError",
    "parse_away",
    "parse_newgame",
    "parse_quiet_hours",
    "parse_reminders",
    "parse_timeouts",
    "parse_timezone",
    "parse_turn_time",
]

TURN_CHOICES: dict[str, int | None] = {
    "30s": 30,
    "1m": 60,
    "5m": 300,
    "15m": 900,
    "1h": 3600,
    "6h": 6 * 3600,
    "12h": 12 * 3600,
    "24h": 24 * 3600,
    "3d": 3 * 86400,
    "7d": 7 * 86400,
    "none": None,
}
MAX_TIMEOUTS = 20
AWAY_CHOICES = ("12h", "1d", "3d", "7d")  # /away's buttons
_AWAY = re.compile(r"([0-9]{1,7}) ?(m|min|h|d|w)?", re.ASCII)
_AWAY_UNIT = {"m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400, None: 86400}
AWAY_MIN_SECONDS, AWAY_MAX_SECONDS = 600, 60 * 86400  # as the service's AWAY_MIN and AWAY_MAX


def parse_away(text: str) -> int:
    """How long a player is away: ``30m``, ``12h``, ``3d`` (a bare number: days), ``2w`` -> seconds,
    from 10 minutes to 60 days."""
    match = _AWAY.fullmatch(text.strip().lower())
    if match is None:
        raise SettingError(N_("{text}: say how long you are away, like 12h, 3d or 2w"), text=repr(text[:20]))
    seconds = int(match.group(1)) * _AWAY_UNIT[match.group(2)]
    if not AWAY_MIN_SECONDS <= seconds <= AWAY_MAX_SECONDS:
        raise SettingError(N_("{text}: away for 10 minutes at least and 60 days at most"), text=repr(text[:20]))
    return seconds


def parse_timeouts(text: str) -> int:
    """Timeouts in a row before a player is removed: ``0`` (never) to ``20``."""
    if not re.fullmatch(r"[0-9]{1,3}", text.strip(), re.ASCII) or int(text) > MAX_TIMEOUTS:
        raise SettingError(
            N_("{text}: a number of timeouts from 0 (never) to {most}"), text=repr(text[:20]), most=MAX_TIMEOUTS
        )
    return int(text)


def parse_turn_time(text: str) -> int | None:
    """One of the turn-time choices (``24h``, ``none``…) -> seconds (None: no time limit)."""
    key = text.strip().lower().replace(" ", "")
    if key not in TURN_CHOICES:
        raise SettingError(N_("{text}: choose one of {choices}"), text=repr(text[:20]), choices=", ".join(TURN_CHOICES))
    return TURN_CHOICES[key]


def parse_timezone(text: str) -> str | None:
    """A chat's time zone, an IANA name (``Europe/Paris``); ``UTC`` is the default: None."""
    zone = iana_zone(text)
    return None if zone == "UTC" else zone


def parse_reminders(items: Sequence[str]) -> list[str]:
    """Reminder settings: ``50%`` (of the turn time) or a duration before the deadline; ``off``."""
    if [i.lower() for i in items] == ["off"]:
        return []
    if len(items) > 5:
        raise SettingError(N_("At most five reminders."))
    for item in items:
        if item.endswith("%"):
            if not re.fullmatch(r"[0-9]{1,2}", item[:-1], re.ASCII) or not 0 < int(item[:-1]) < 100:
                raise SettingError(N_("{text}: a share of the turn time between 1% and 99%"), text=repr(item[:20]))
        else:
            parse_duration(item)
    return list(items)


def parse_quiet_hours(text: str) -> QuietHours:
    """``23:00-08:00 Europe/Paris`` (the zone may be left out: UTC)."""
    return QuietHours.parse(text)


@dataclass(frozen=True)
class NewGame:
    """What follows /newgame: ``neighbor`` or a preset, then ``KEY=VALUE`` house rules; and, for a
    game against computers, their level (``hard``) and how many (``3``), None when not given."""

    kind: str = GameKind.SHITHEAD
    preset: str | None = None
    house_rules: dict[str, str] = field(default_factory=dict)
    level: str | None = None
    computers: int | None = None


def parse_newgame(args: Sequence[str]) -> NewGame | None:
    """None when a word is neither a game, a preset, a computer level, a number of computers
    (1 to 9) nor ``KEY=VALUE``. A level may be named in any language (``difficile``) or by its
    older name (``heuristic``: normal)."""
    kind, preset, level, computers = GameKind.SHITHEAD, None, None, None
    rules: dict[str, str] = {}
    for arg in args:
        word = arg.strip().lower()
        if "=" in word:
            key, _, value = word.partition("=")
            rules[key] = value
        elif word in GAME_KINDS:
            kind = GameKind(word)
        elif word in PRESETS:
            preset = word
        elif word in level_words():
            level = level_words()[word]
        elif re.fullmatch(r"[1-9]", word, re.ASCII):
            computers = int(word)
        else:
            return None
    return NewGame(kind, preset, rules, level, computers)
