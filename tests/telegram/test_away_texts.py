"""/away's durations are read strictly and refused clearly; its texts carry date_time entities."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from shithead_bot.i18n import translations
from shithead_bot.telegram.parsing import SettingError, parse_away
from shithead_bot.telegram.render.away import away_text, back_text
from shithead_bot.telegram.render.replies import in_words


@pytest.mark.parametrize(("text", "seconds"), [("3d", 3 * 86400), ("12h", 43200), ("30m", 1800), ("2w", 14 * 86400)])
def test_away_durations(text: str, seconds: int) -> None:
    assert parse_away(text) == seconds


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("0", "10 minutes at least"),
        ("400d", "60 days at most"),
        ("tomorrow", "like 12h, 3d or 2w"),
        ("5m", "10 minutes"),
    ],
)
def test_bad_away_durations_are_answered_clearly(text: str, says: str) -> None:
    with pytest.raises(SettingError) as refused:
        parse_away(text)
    answer = in_words(refused.value, translations("en"))
    assert says in answer
    assert repr(text) in answer
    assert "absent" in in_words(refused.value, translations("fr"))


def test_away_answers() -> None:
    until = datetime(2026, 12, 7, 18, 0, tzinfo=UTC)
    text = away_text(until, 2, translations("en"))
    assert '<tg-time unix="1796666400"' in text
    assert "2 games" in text
    assert "no game going on" in away_text(until, 0, translations("en"))
    assert "Bon retour" in back_text(True, translations("fr"))
