"""Deadlines that stay true: every text that shows one carries it as a ``date_time`` entity (Telegram
shows it in each reader's own time zone and language, relative times kept live), whose Unix time is
the game's deadline; nothing frozen ("in 23 h") is left outside the entity. The table picture, which
cannot be live, says the clock time in the chat's time zone, and which zone that is."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import pytest

from engine import PRESETS, NeighborRules, new_game
from shithead_bot.service import GameSnapshot, GameStatus, Reminder, ReminderPayload
from shithead_bot.telegram.render import Page, photo, private, table
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from testkit.fakebot.markup import parse_html
from testkit.fakebot.model import SeenMessage
from tests.service.helpers import GROUP, user
from tests.telegram.test_table_photo import Table
from tests.telegram.test_table_photo import table as table_game  # noqa: F401 (fixture)
from tests.telegram.test_texts import NOW, page_of, playing, snapshot

FROZEN = re.compile(r"\b(in|dans) \d+ ?(s|min|h|days|jours)\b|\d+ ?h left")


def outside(text: str, spans: list[dict[str, Any]]) -> str:
    """The text without the entities' spans (offsets in UTF-16 code units, as the Bot API counts)."""
    units = bytearray(text.encode("utf-16-le"))
    for span in spans:
        units[2 * span["offset"] : 2 * (span["offset"] + span["length"])] = b"\x00\x00" * span["length"]
    return bytes(units).decode("utf-16-le").replace("\x00", "")


def date_times(html_text: str) -> tuple[str, list[dict[str, Any]]]:
    """What a reader sees outside the date_time entities, and those entities (parsed as Telegram does)."""
    text, entities = parse_html(html_text)
    spans = [e for e in entities if e["type"] == "date_time"]
    return outside(text, spans), spans


def assert_shows_the_deadline(html_text: str, deadline: datetime) -> list[dict[str, Any]]:
    outside, spans = date_times(html_text)
    assert spans, f"no date_time entity in {html_text!r}"
    assert {span["unix_time"] for span in spans} == {int(deadline.timestamp())}
    assert not FROZEN.search(outside), f"a frozen time outside the entities: {outside!r}"
    return spans


def deadline_of(game: GameSnapshot) -> datetime:
    assert game.game.deadline_at is not None
    return game.game.deadline_at


def with_deadline(game: GameSnapshot, after: timedelta) -> GameSnapshot:
    return replace(game, game=replace(game.game, deadline_at=NOW + after))


# ------------------------------------------------------------------------- every text, rendered


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_text_that_shows_a_deadline_carries_it_as_a_date_time_entity(language: str) -> None:
    game = snapshot(playing())
    page = page_of(game, language)
    to_act = game.view(None).to_act or 0
    other = (to_act + 1) % 3
    texts = {
        "my turn": private.turn(page, game.seat(to_act)).text,
        "another's turn": private.turn(page, game.seat(other)).text.splitlines()[0],
        "text table": table.table(page).text,
        "caption": photo.caption(page, game.view(None), []),
        **{
            f"reminder {why.name}": private.reminder(page, game.seat(to_act), ReminderPayload(why, by="Bob")).text
            for why in Reminder
        },
    }
    for what, text in texts.items():
        assert assert_shows_the_deadline(text, deadline_of(game)), what


def test_the_swap_phase_shows_its_deadline_in_every_text() -> None:
    game = snapshot(new_game("shithead", PRESETS["standard"], 3, 5))
    page = page_of(game)
    for text in (
        private.turn(page, game.seat(0)).text,
        table.table(page).text,
        photo.caption(page, game.view(None), []),
    ):
        assert_shows_the_deadline(text, deadline_of(game))


def test_a_neighbor_turn_shows_its_deadline() -> None:
    game = snapshot(new_game("neighbor", NeighborRules(), 3, 5), kind="neighbor")
    page = page_of(game)
    to_act = game.view(None).to_act or 0
    for text in (private.turn(page, game.seat(to_act)).text, table.table(page).text):
        assert_shows_the_deadline(text, deadline_of(game))


def test_a_near_deadline_is_relative_and_a_far_one_also_says_the_weekday_and_time() -> None:
    near = page_of(with_deadline(snapshot(playing()), timedelta(minutes=25)))
    spans = assert_shows_the_deadline(near.deadline(), NOW + timedelta(minutes=25))
    assert [span["date_time_format"] for span in spans] == ["r"]
    assert (
        near.deadline()
        == f'⏳ <tg-time unix="{int((NOW + timedelta(minutes=25)).timestamp())}" format="r">in 25 min</tg-time>'
    )
    far = page_of(with_deadline(snapshot(playing()), timedelta(hours=23)))
    spans = assert_shows_the_deadline(far.deadline(), NOW + timedelta(hours=23))
    assert [span["date_time_format"] for span in spans] == ["r", "wt"]
    assert parse_html(far.deadline())[0] == "⏳ in 23 h (Tue 11:00 UTC)"  # what an app without the entity shows
    week = page_of(with_deadline(snapshot(playing()), timedelta(days=7)))
    assert [span["date_time_format"] for span in date_times(week.deadline())[1]] == ["r", "wdt"]


def test_a_paused_game_shows_no_deadline() -> None:
    game = snapshot(playing())
    paused = replace(game, game=replace(game.game, status=GameStatus.PAUSED))
    assert date_times(table.table(page_of(paused)).text)[1] == []
    assert "⏸ paused" in table.table(page_of(paused)).text


# ------------------------------------------------------------------------- the picture


def test_the_picture_says_the_deadline_in_utc_by_default_and_says_so() -> None:
    game = with_deadline(snapshot(playing()), timedelta(hours=6))  # Monday 18:00 UTC
    assert photo.info(Page(game, page_of(game).codec), []).deadline == "until Mon 18:00 UTC"


def test_the_picture_says_the_deadline_in_the_chat_time_zone_and_language() -> None:
    game = with_deadline(snapshot(playing()), timedelta(hours=6))
    paris = replace(game, chat=replace(game.chat, timezone="Europe/Paris"))
    assert photo.info(page_of(paris, "fr"), []).deadline == "jusqu'à lun. 19:00 Europe/Paris"
    assert photo.info(page_of(paris), []).deadline == "until Mon 19:00 Europe/Paris"
    far = with_deadline(paris, timedelta(days=7))
    assert photo.info(page_of(far), []).deadline == "until Mon 12 Jan 13:00 Europe/Paris"


# ------------------------------------------------------------------------- through the fake Bot API


def showing_a_deadline(telegram: FakeTelegram) -> list[SeenMessage]:
    """The current messages of the group and both players' chats that show a deadline."""
    seen = telegram.messages(GROUP, as_user=user(0).id)
    seen += [m for n in range(2) for m in telegram.messages(user(n).id, as_user=user(n).id)]
    return [m for m in seen if "⏳" in m.text or "time is up" in m.text]


def assert_stored_with_the_deadline(messages: list[SeenMessage], deadline: datetime) -> None:
    for message in messages:
        assert {e["unix_time"] for e in message.date_times()} == {int(deadline.timestamp())}, message.text
        assert not FROZEN.search(outside(message.text, message.date_times())), message.text


async def test_the_messages_telegram_stores_carry_the_game_deadline(table_game: Table, clock: FakeClock) -> None:  # noqa: F811
    service = table_game.service
    await table_game.start()
    game = await service.game_view(table_game.game_id)
    shown = showing_a_deadline(table_game.fake)
    assert len(shown) == 3  # the table and both swap messages
    assert_stored_with_the_deadline(shown, deadline_of(game))
    while (await service.game_view(table_game.game_id)).in_swap_phase:
        await table_game.move()
    await table_game.move()
    game = await service.game_view(table_game.game_id)
    shown = showing_a_deadline(table_game.fake)
    assert any("Your turn" in m.text for m in shown)
    assert any(m.photo for m in shown)
    assert_stored_with_the_deadline(shown, deadline_of(game))

    clock.advance(hours=12, seconds=1)  # half time: a reminder
    for game_id, version in await service.due():
        await service.fire_due(game_id, version)
    await table_game.deliver()
    shown = showing_a_deadline(table_game.fake)
    assert any("time is up" in m.text for m in shown)
    assert_stored_with_the_deadline(shown, deadline_of(game))
