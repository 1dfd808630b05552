"""The demo's transcript, which a newcomer reads first: messages in the order they were sent, each
edit as it happened, keyboards in their real rows."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup

from testkit.fakebot import FakeTelegram
from tests.e2e.demo import PEOPLE, Transcript
from tests.e2e.harness import GROUP

ALICE, BOB = PEOPLE[0][0], PEOPLE[1][0]


@pytest.fixture
async def fake_all_started() -> AsyncIterator[FakeTelegram]:
    """Unlike the folder's `fake`, everyone has started the bot (and no one has a username)."""
    async with FakeTelegram() as server:
        for user_id, name in PEOPLE:
            server.add_user(user_id, name)
            server.start_bot(user_id)
        server.add_group(GROUP, "Friends", [u for u, _ in PEOPLE])
        yield server


def keyboard(*rows: list[str]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(t, callback_data=t) for t in row] for row in rows])


async def test_the_transcript_keeps_the_order_rows_and_every_edit(fake_all_started: FakeTelegram) -> None:
    transcript = Transcript(fake_all_started)
    assert transcript.new() == [f"── {name}'s private chat · {name} writes ──\n/start" for _, name in PEOPLE]
    async with Bot(
        fake_all_started.token, base_url=fake_all_started.base_url, base_file_url=fake_all_started.base_file_url
    ) as bot:
        table = await bot.send_message(GROUP, "Table 1", reply_markup=keyboard(["A", "B"], ["C"]))
        turn = await bot.send_message(BOB, "Your turn", reply_markup=keyboard(["4♦", "5♣"], ["Pick up"]))
        await bot.edit_message_text("Table 2", chat_id=GROUP, message_id=table.message_id)
        await bot.edit_message_reply_markup(chat_id=BOB, message_id=turn.message_id)
        await bot.send_message(ALICE, "Hello")
    assert transcript.new() == [
        "── group ──\nTable 1\n[A] [B]\n[C]",
        "── Bob's private chat ──\nYour turn\n[4♦] [5♣]\n[Pick up]",
        "── group (edited) ──\nTable 2",
        "── Bob's private chat (buttons changed) ──\nYour turn",
        "── Alice's private chat ──\nHello",
    ]
    assert transcript.new() == []  # each version once
