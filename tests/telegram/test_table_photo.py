"""The group's table as a photo, through a real PTB ``Bot`` and the fake Bot API: posted with
sendPhoto, edited in place with editMessageMedia, the text table for an edit whose upload Telegram
refused, the text table for chats that ask for it, and the final ranking at the end."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot

from engine.ai import make_player
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from testkit.fakebot.model import SeenMessage
from tests.service.helpers import GROUP, play_humans_to_end, user
from tests.telegram.fakegame import FakeGame


class Table(FakeGame):
    """A two-player game whose notices go out through the fake Telegram."""

    async def move(self) -> None:
        """One heuristic move by whoever is to act."""
        game = await self.service.game_view(self.game_id)
        assert game.state is not None
        seat = game.seat(game.state.seats_to_act()[0])
        assert seat.player_id is not None
        move = make_player("normal", seat.number).choose(game.state.view(seat.number))
        await self.service.play(self.game_id, seat.player_id, move, seat.keyboard_version)
        await self.deliver()

    def tables(self) -> list[SeenMessage]:
        return [m for m in self.fake.messages(GROUP, as_user=user(0).id) if f"· #{self.game_id}" in m.text]

    async def stored(self) -> tuple[int, bool]:
        async with self.sessions() as session:
            row = (await session.execute(text("select table_message_id, table_is_picture from game"))).one()
        return int(row[0]), bool(row[1])


@pytest.fixture
def table(sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot) -> Table:
    return Table(sessions, clock, fake, bot)


async def test_the_table_is_a_photo_with_a_caption_edited_in_place(table: Table) -> None:
    await table.start()
    [photo] = table.tables()
    assert photo.photo is not None
    assert photo.photo_size == (1280, 720)
    assert "Swap phase" in photo.text
    assert photo.buttons[0].text == "🃏 My cards"
    assert await table.stored() == (photo.message_id, True)
    while (await table.service.game_view(table.game_id)).in_swap_phase:
        await table.move()
    await table.move()
    [edited] = table.tables()
    assert edited.message_id == photo.message_id
    assert edited.edited
    assert edited.photo != photo.photo
    assert "to play" in edited.text
    assert table.fake.call_counts().get("editMessageMedia", 0) >= 2
    assert table.fake.call_counts().get("sendPhoto") == 1


async def test_a_refused_upload_gives_the_text_table_for_that_edit(table: Table) -> None:
    await table.start()
    [photo] = table.tables()
    table.fake.fail_next("editMessageMedia", error_code=400, description="Bad Request: IMAGE_PROCESS_FAILED")
    await table.move()
    [fallback] = table.tables()
    assert fallback.message_id == photo.message_id
    assert fallback.photo == photo.photo  # the picture stays; the caption is now the text table
    assert "Stock:" in fallback.text
    await table.move()
    [again] = table.tables()
    assert again.photo != photo.photo  # the next edit is a picture again
    assert "Stock:" not in again.text


async def test_a_chat_that_wants_text_gets_the_text_table(table: Table) -> None:
    await table.start()
    [photo] = table.tables()
    await table.service.update_chat(GROUP, table_style="text")
    await table.move()
    [text_table] = table.tables()  # the photo is replaced (deleted), not left behind
    assert text_table.photo is None
    assert text_table.message_id != photo.message_id
    assert "Stock:" in text_table.text
    assert await table.stored() == (text_table.message_id, False)
    await table.move()
    assert [m.message_id for m in table.tables()] == [text_table.message_id]


async def test_an_unknown_table_style_is_refused(table: Table) -> None:
    await table.start()
    with pytest.raises(ValueError, match="picture or text"):
        await table.service.update_chat(GROUP, table_style="ascii")


async def test_the_end_is_a_picture_of_the_ranking(table: Table) -> None:
    await table.start()
    await play_humans_to_end(table.service, table.game_id)
    await table.deliver()
    [final] = table.tables()
    assert final.photo is not None
    assert "is the Shithead" in final.text
    assert final.keyboard == []
