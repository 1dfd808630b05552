"""When things happen to an idle player: deadlines, reminders, grace, quiet hours. Pure functions.

The database keeps, per game, the current turn's ``deadline_at``, how many reminders were sent
(``reminders_sent``) and ``due_at``, the next moment the sweep must look at the game. Everything
here computes those from settings and the clock; nothing here does I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from shithead_bot.i18n import N_

DEFAULT_TURN = 24 * 3600
DEFAULT_REMINDERS = ("50%", "1h")
SHORT_TURN = 2 * 3600  # below this, the default is one reminder at half time
_DURATION = re.compile(r"^([0-9]+)\s*(s|m|min|h|d)$", re.ASCII)
_UNIT = {"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}
MAX_DURATION = 30 * 86400  # nothing the settings time is longer than a month
# A player who pressed or wrote in their private chat this recently is looking at it: their turn comes
# silently, and one nudge notifies this long after it if the turn is not taken (``bench/attention.py``).
LOOKING = timedelta(minutes=5)
NUDGE_AFTER = timedelta(minutes=5)


class SettingError(ValueError):
    """A setting written in a way we cannot read; the message says what is expected.

    ``template`` (marked for translation) and ``values`` let the bot say it in the reader's
    language: ``t.gettext(exc.template).format(**exc.values)``; ``str(exc)`` is the English."""

    def __init__(self, template: str, **values: Any) -> None:
        super().__init__(template.format(**values))
        self.template = template
        self.values = values


def parse_duration(text: str) -> int:
    """``30s``, ``5m``, ``1h``, ``3d`` -> seconds."""
    match = _DURATION.match(text.strip().lower())
    if not match:
        raise SettingError(N_("{text}: write a duration like 30s, 5m, 1h or 3d"), text=repr(text[:20]))
    digits = match.group(1)
    seconds = int(digits) * _UNIT[match.group(2)] if len(digits) <= 7 else 0
    if not 0 < seconds <= MAX_DURATION:
        raise SettingError(N_("{text}: a duration from 1s to 30d"), text=repr(text[:20]))
    return seconds


def reminder_offsets(turn_seconds: int, reminders: Sequence[str] | None) -> list[int]:
    """Seconds before the deadline at which reminders go out, earliest reminder first.

    The default is half time and one hour before; for turns under two hours, half time only."""
    if reminders is None:
        reminders = DEFAULT_REMINDERS if turn_seconds >= SHORT_TURN else ("50%",)
    offsets = set()
    for item in reminders:
        seconds = turn_seconds * int(item[:-1]) // 100 if item.endswith("%") else parse_duration(item)
        if 0 < seconds < turn_seconds:
            offsets.add(seconds)
    return sorted(offsets, reverse=True)


def missed_after(sweep_seconds: float) -> timedelta:
    """A deadline fired later than this after it passed was not watched (the bot was down) — unless
    the worker firing it was sweeping all along and is only busy (see ``Sweeper.watching_since``)."""
    return timedelta(seconds=max(30.0, 3 * sweep_seconds))


def grace(turn_seconds: int, fraction: float, minimum: int) -> timedelta:
    """A deadline that passed while no worker was watching gets this much extra time."""
    return timedelta(seconds=max(minimum, int(turn_seconds * fraction)))


NOT_ZONES = frozenset({"localtime", "posixrules", "Factory"})  # files of the system's tz folder, not zones


@cache
def _zones_by_lower_name() -> dict[str, str]:
    return {name.lower(): name for name in available_timezones() - NOT_ZONES}


def iana_zone(text: str) -> str:
    """An IANA time zone's name as the tz database spells it (``europe/paris`` -> ``Europe/Paris``);
    SettingError for anything else (paths, offsets, city names alone)."""
    name = _zones_by_lower_name().get(text.strip().lower())
    if name is None:
        raise SettingError(
            N_("{text} is not a time zone (try Europe/Paris, America/New_York, UTC)"), text=repr(text[:20])
        )
    return name


@dataclass(frozen=True)
class QuietHours:
    """A daily window (local time) with no reminder messages, e.g. 23:00–08:00 Europe/Paris."""

    start: int  # minute of the day
    end: int
    zone: str = "UTC"

    @classmethod
    def parse(cls, text: str) -> QuietHours:
        """``23:00-08:00 Europe/Paris`` (the zone may be left out: UTC)."""
        parts = text.split()
        match = re.fullmatch(r"(\d{1,2}):?(\d{2})?-(\d{1,2}):?(\d{2})?", parts[0] if parts else "", re.ASCII)
        if not match or len(parts) > 2:
            raise SettingError(N_("Write quiet hours like 23:00-08:00 Europe/Paris."))
        h1, m1, h2, m2 = (int(g or 0) for g in match.groups())
        for hours, minutes in ((h1, m1), (h2, m2)):
            if hours > 23 or minutes > 59:
                shown = f"{hours:02}:{minutes:02}"
                raise SettingError(N_("{time} is not a time of day: use 00:00 to 23:59."), time=shown)
        if (h1, m1) == (h2, m2):
            raise SettingError(N_("Quiet hours start and end at different times, e.g. 23:00-08:00."))
        zone = parts[1] if len(parts) == 2 else "UTC"
        try:
            if len(zone) > 64:
                raise ValueError(zone)
            ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
            raise SettingError(
                N_("{zone} is not a time zone (try Europe/Paris, America/New_York, UTC)."), zone=repr(zone[:20])
            ) from exc
        return cls(h1 * 60 + m1, h2 * 60 + m2, zone)

    def __str__(self) -> str:
        return f"{self.start // 60:02}:{self.start % 60:02}-{self.end // 60:02}:{self.end % 60:02} {self.zone}"

    def contains(self, moment: datetime) -> bool:
        local = moment.astimezone(ZoneInfo(self.zone))
        minute = local.hour * 60 + local.minute
        if self.start < self.end:
            return self.start <= minute < self.end
        return minute >= self.start or minute < self.end

    def ends_after(self, moment: datetime) -> datetime:
        """The end of the quiet window ``moment`` is in (``moment`` itself if it is not quiet)."""
        if not self.contains(moment):
            return moment
        zone = ZoneInfo(self.zone)
        local = moment.astimezone(zone)
        end = datetime.combine(local.date(), time(self.end // 60, self.end % 60), tzinfo=zone)
        if end <= local:
            end += timedelta(days=1)
        return end.astimezone(UTC)

    def starts_after(self, moment: datetime) -> datetime:
        """The next start of a quiet window after ``moment``."""
        zone = ZoneInfo(self.zone)
        local = moment.astimezone(zone)
        start = datetime.combine(local.date(), time(self.start // 60, self.start % 60), tzinfo=zone)
        if start <= local:
            start += timedelta(days=1)
        return start.astimezone(UTC)


def deadline_after(start: datetime, seconds: int, quiet: QuietHours | None) -> datetime:
    """``start + seconds``, or — when deadlines skip quiet hours — that much time outside them."""
    if quiet is None:
        return start + timedelta(seconds=seconds)
    moment, left = quiet.ends_after(start), timedelta(seconds=seconds)
    for _ in range(400):  # a year of days at most
        window = quiet.starts_after(moment)
        if moment + left <= window:
            return moment + left
        left -= window - moment
        moment = quiet.ends_after(window)
    return moment + left


def next_reminder(
    deadline: datetime, offsets: Sequence[int], sent: int, quiet: QuietHours | None, now: datetime
) -> tuple[datetime, int] | None:
    """When the next reminder goes out and its index: reminders inside quiet hours are skipped, and
    one that is already overdue is sent now (once)."""
    for index in range(sent, len(offsets)):
        at = max(deadline - timedelta(seconds=offsets[index]), now)
        if at >= deadline:
            return None
        if quiet is None or not quiet.contains(at):
            return at, index
    return None
