"""Numbers and words typed after /settings and /quiet: every value is range-checked, with a reason;
the chat's time zone is an IANA name."""

from __future__ import annotations

import pytest

from shithead_bot.i18n import translations
from shithead_bot.service import ChatSnapshot
from shithead_bot.service.schedule import parse_duration
from shithead_bot.telegram.parsing import (
    QuietHours,
    SettingError,
    parse_reminders,
    parse_timeouts,
    parse_timezone,
    parse_turn_time,
)
from shithead_bot.telegram.render.rules import SETTINGS_USAGE, settings_text

HUGE = "99999999999999999999"


@pytest.mark.parametrize("text", [HUGE, "-1", "21", "1e9", "³", "٣٣", "", "3 4", "0x10"])
def test_timeouts_out_of_range_or_not_a_number(text: str) -> None:
    with pytest.raises(SettingError, match="0 \\(never\\) to 20"):
        parse_timeouts(text)


@pytest.mark.parametrize(("text", "value"), [("0", 0), ("3", 3), ("20", 20), (" 7 ", 7)])
def test_timeouts_in_range(text: str, value: int) -> None:
    assert parse_timeouts(text) == value


@pytest.mark.parametrize("text", [f"{HUGE}h", "0s", "31d", "99999999d", "5 weeks", "١h", "1.5h"])
def test_durations_out_of_range(text: str) -> None:
    with pytest.raises(SettingError):
        parse_duration(text)


@pytest.mark.parametrize("items", [[f"{HUGE}%"], ["100%"], ["0%"], [f"{HUGE}h"], ["50%"] * 6, ["٥٠%"]])
def test_reminders_out_of_range(items: list[str]) -> None:
    with pytest.raises(SettingError):
        parse_reminders(items)


def test_turn_time_only_the_choices() -> None:
    with pytest.raises(SettingError):
        parse_turn_time(f"{HUGE}h")
    assert parse_turn_time("24h") == 86400


@pytest.mark.parametrize(
    "text",
    [f"{HUGE}:00-08:00", "23:00-08:00 " + "A" * 500, "23:00-08:00 ../../etc/passwd", "23:00-08:00 é", "٢٣:00-08:00"],
)
def test_quiet_hours_refused(text: str) -> None:
    with pytest.raises(SettingError):
        QuietHours.parse(text)


def test_refusals_quote_at_most_a_little_of_the_input() -> None:
    with pytest.raises(SettingError) as refused:
        parse_timeouts("x" * 5000)
    assert len(str(refused.value)) < 100


@pytest.mark.parametrize(
    ("text", "zone"),
    [("Europe/Paris", "Europe/Paris"), ("europe/paris", "Europe/Paris"), ("America/New_York", "America/New_York"),
     ("UTC", None), ("utc", None)],
)  # fmt: skip
def test_a_chat_time_zone_is_an_iana_name_and_utc_is_the_default(text: str, zone: str | None) -> None:
    assert parse_timezone(text) == zone


@pytest.mark.parametrize("text", ["Paris", "Mars/Olympus", "../../etc/passwd", "/etc/localtime", "localtime",
                                  "Europe/" + "A" * 500, "", "+02:00", "é"])  # fmt: skip
def test_a_chat_time_zone_that_is_not_one_is_refused(text: str) -> None:
    with pytest.raises(SettingError) as refused:
        parse_timezone(text)
    assert len(str(refused.value)) < 120


def test_settings_show_the_chat_time_zone_utc_by_default() -> None:
    assert "time zone of the picture: UTC" in settings_text(ChatSnapshot(-1), translations("en"))
    paris = settings_text(ChatSnapshot(-1, timezone="Europe/Paris"), translations("en"))
    assert "time zone of the picture: Europe/Paris" in paris
    assert "/settings timezone Europe/Paris" in SETTINGS_USAGE


def test_a_time_that_is_no_time_of_day_is_called_so() -> None:
    with pytest.raises(SettingError) as refused:
        QuietHours.parse("25:00-08:00")
    assert str(refused.value) == "25:00 is not a time of day: use 00:00 to 23:59."
    with pytest.raises(SettingError) as same:
        QuietHours.parse("22:00-22:00")
    assert "different times" in str(same.value)


def test_setting_refusals_are_translated() -> None:
    from shithead_bot.i18n import translations
    from shithead_bot.telegram.render.replies import in_words

    with pytest.raises(SettingError) as refused:
        QuietHours.parse("25:00-08:00")
    french = in_words(refused.value, translations("fr"))
    assert french.startswith("25:00 n'est pas une heure")
