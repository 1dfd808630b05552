"""Photos in the fake Telegram: sendPhoto and editMessageMedia with real multipart uploads from PTB,
captions, and the errors Telegram gives for the wrong kind of edit or a bad image."""

import io
from collections.abc import AsyncIterator

import pytest
from PIL import Image
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto
from telegram.error import BadRequest

from testkit.fakebot.server import FakeTelegram

ALICE, GROUP = 1001, -4001


def png(width: int, height: int, colour: str = "green") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, "PNG")
    return out.getvalue()


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        server.add_user(ALICE, "Alice")
        server.start_bot(ALICE)
        server.add_group(GROUP, "Table", [ALICE])
        yield server


def keyboard(label: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=label.lower())]])


async def test_a_photo_with_a_caption_is_seen_with_its_caption_as_text(fake: FakeTelegram, bot: Bot) -> None:
    sent = await bot.send_photo(
        GROUP, png(320, 180), caption="<b>Table</b> · #1", parse_mode="HTML", reply_markup=keyboard("Pause")
    )
    assert sent.photo[-1].width == 320
    assert sent.photo[-1].height == 180
    assert sent.caption == "Table · #1"
    assert sent.text is None
    seen = fake.last_message(GROUP, as_user=ALICE)
    assert (seen.text, seen.photo_size, seen.buttons[0].text) == ("Table · #1", (320, 180), "Pause")
    assert seen.photo is not None
    assert seen.photo.startswith(b"\x89PNG")


async def test_edit_media_replaces_photo_caption_and_buttons(fake: FakeTelegram, bot: Bot) -> None:
    sent = await bot.send_photo(GROUP, png(320, 180), caption="turn 1", reply_markup=keyboard("A"))
    media = InputMediaPhoto(png(640, 360, "red"), caption="turn <i>2</i>", parse_mode="HTML")
    edited = await bot.edit_message_media(media, chat_id=GROUP, message_id=sent.message_id, reply_markup=keyboard("B"))
    assert not isinstance(edited, bool)
    assert edited.caption == "turn 2"
    seen = fake.last_message(GROUP, as_user=ALICE)
    assert (seen.text, seen.photo_size, seen.edited, seen.buttons[0].text) == ("turn 2", (640, 360), True, "B")
    versions = [v.text for v in fake.history(GROUP) if v.message_id == sent.message_id]
    assert versions == ["turn 1", "turn 2"]


async def test_the_same_picture_and_caption_again_is_not_modified(fake: FakeTelegram, bot: Bot) -> None:
    image = png(100, 100)
    sent = await bot.send_photo(GROUP, image, caption="same")
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_media(InputMediaPhoto(image, caption="same"), chat_id=GROUP, message_id=sent.message_id)
    await bot.edit_message_caption(GROUP, sent.message_id, caption="other")
    assert fake.last_message(GROUP, as_user=ALICE).text == "other"


async def test_the_wrong_kind_of_edit_fails_as_in_telegram(fake: FakeTelegram, bot: Bot) -> None:
    photo = await bot.send_photo(GROUP, png(100, 100))
    text = await bot.send_message(GROUP, "text")
    with pytest.raises(BadRequest, match="no text in the message to edit"):
        await bot.edit_message_text("x", chat_id=GROUP, message_id=photo.message_id)
    with pytest.raises(BadRequest, match="no media in the message to edit"):
        await bot.edit_message_media(InputMediaPhoto(png(10, 10)), chat_id=GROUP, message_id=text.message_id)
    with pytest.raises(BadRequest, match="no media in the message to edit"):
        await bot.edit_message_caption(GROUP, text.message_id, caption="x")


async def test_bad_images_and_long_captions_are_refused(fake: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(BadRequest, match="Image_process_failed"):
        await bot.send_photo(GROUP, b"not an image at all")
    with pytest.raises(BadRequest, match="Photo_invalid_dimensions"):
        await bot.send_photo(GROUP, png(2000, 20))
    with pytest.raises(BadRequest, match="caption is too long"):
        await bot.send_photo(GROUP, png(10, 10), caption="x" * 1025)
    assert fake.messages(GROUP, as_user=ALICE) == []


async def test_a_photo_can_be_sent_again_by_its_file_id(fake: FakeTelegram, bot: Bot) -> None:
    first = await bot.send_photo(GROUP, png(50, 60))
    again = await bot.send_photo(ALICE, first.photo[-1].file_id)
    assert again.photo[-1].file_id == first.photo[-1].file_id
