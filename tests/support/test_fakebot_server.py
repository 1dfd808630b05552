"""The fake Telegram server, driven by a real python-telegram-bot ``Bot`` and ``Application``."""

import asyncio
import datetime as dtm
import socket
import sys
import time
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeChat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    ReplyParameters,
    Update,
)
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
)
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from testkit.fakebot.server import FakeTelegram

ALICE, BOB, CAROL = 1001, 1002, 1003
GROUP = -4001
JSON = dict[str, Any]


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server


@pytest.fixture
def people(fake: FakeTelegram) -> FakeTelegram:
    """Alice and Bob started the bot; Carol did not. All three are in GROUP, Alice created it."""
    for user_id, name in ((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol")):
        fake.add_user(user_id, name, username=name.lower())
    fake.start_bot(ALICE)
    fake.start_bot(BOB)
    fake.add_group(GROUP, "Table", [ALICE, BOB, CAROL])
    return fake


def keyboard(*labels: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=label.lower()) for label in labels]])


async def raw(fake: FakeTelegram, method: str, token: str | None = None, **params: object) -> tuple[int, JSON]:
    """Call the fake with a JSON body, the way other Bot API clients do, to see the exact response."""
    url = f"{fake.base_url}{token or fake.token}/{method}"
    async with aiohttp.ClientSession() as session, session.post(url, json=params) as response:
        return response.status, await response.json()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# --- the bot, tokens and methods -------------------------------------------------------------------------


async def test_get_me_describes_the_bot(bot: Bot) -> None:
    me = await bot.get_me()
    assert (me.id, me.username, me.is_bot) == (123456, "shithead_test_bot", True)
    assert me.can_join_groups
    assert not me.can_read_all_group_messages


async def test_unknown_token_is_invalid_token(fake: FakeTelegram) -> None:
    with pytest.raises(InvalidToken, match="was rejected by the server"):
        async with Bot("999:WRONG", base_url=fake.base_url):
            pass
    assert await raw(fake, "getMe", token="999:WRONG") == (
        401,
        {"ok": False, "error_code": 401, "description": "Unauthorized"},
    )
    assert (await raw(fake, "getMe", token="not-a-token"))[0] == 404


async def test_unknown_method_is_not_found(fake: FakeTelegram, bot: Bot) -> None:
    assert await raw(fake, "sendCarrierPigeon") == (
        404,
        {"ok": False, "error_code": 404, "description": "Not Found"},
    )
    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("sendCarrierPigeon")
    assert (await raw(fake, "GETME"))[1]["result"]["username"] == "shithead_test_bot"  # case-insensitive


async def test_calls_are_recorded(people: FakeTelegram, bot: Bot) -> None:
    people.reset_calls()
    await bot.send_message(ALICE, "one")
    with pytest.raises(Forbidden):
        await bot.send_message(CAROL, "two")
    assert [(call.method, call.result) for call in people.calls] == [("sendMessage", "ok"), ("sendMessage", 403)]
    assert people.calls[0].params == {"chat_id": ALICE, "text": "one"}
    assert people.call_counts() == {"sendMessage": 2}
    people.reset_calls()
    assert people.calls == []


async def test_next_call_counts_from_when_it_is_called(people: FakeTelegram, bot: Bot) -> None:
    waiter = people.next_call("sendMessage", timeout=2)
    await bot.send_message(ALICE, "hello")
    call = await waiter
    assert call.params["text"] == "hello"
    with pytest.raises(AssertionError, match="no sendmessage call"):
        await people.next_call("sendMessage", timeout=0.05)


# --- sending, HTML, limits ---------------------------------------------------------------------------------


async def test_html_message_is_stored_as_text_and_source(people: FakeTelegram, bot: Bot) -> None:
    sent = await bot.send_message(
        ALICE, "<b>Q♠</b> &amp; <i>7</i> <tg-spoiler>x</tg-spoiler>", parse_mode="HTML", reply_markup=keyboard("Go")
    )
    assert sent.text == "Q♠ & 7 x"
    assert sent.text_html == '<b>Q♠</b> &amp; <i>7</i> <span class="tg-spoiler">x</span>'
    seen = people.last_message(ALICE, as_user=ALICE)
    assert seen.text == "Q♠ & 7 x"
    assert seen.html == "<b>Q♠</b> &amp; <i>7</i> <tg-spoiler>x</tg-spoiler>"
    assert seen.from_bot
    assert not seen.edited
    assert seen.keyboard[0][0].text == "Go"
    assert seen.message_id == sent.message_id


async def test_message_ids_are_per_chat_and_shared_with_users(people: FakeTelegram, bot: Bot) -> None:
    first = await bot.send_message(ALICE, "a")  # Alice's /start was message 1
    user_message = await people.send_text(ALICE, ALICE, "hi")
    second = await bot.send_message(ALICE, "b")
    in_group = await bot.send_message(GROUP, "c")
    assert (first.message_id, user_message["message_id"], second.message_id) == (2, 3, 4)
    assert in_group.message_id == 1
    assert [m.text for m in people.messages(ALICE, as_user=ALICE)] == ["/start", "a", "hi", "b"]


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("<foo>x</foo>", 'unsupported start tag "foo" at byte offset 0'),
        ("<b>x</i>", 'unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
        ("<b><i>x</b></i>", 'unmatched end tag at byte offset 7, expected "</i>", found "</b>"'),
        ("<b>x", 'can\'t find end tag corresponding to start tag "b"'),
        ("x </b>", "unexpected end tag at byte offset 2"),
        ("a < b", 'unsupported start tag "" at byte offset 2'),
        ("<span>x</span>", 'tag "span" must have class "tg-spoiler" at byte offset 0'),
    ],
)
async def test_bad_html_is_rejected(people: FakeTelegram, bot: Bot, source: str, error: str) -> None:
    with pytest.raises(BadRequest) as caught:
        await bot.send_message(ALICE, source, parse_mode="HTML")
    assert caught.value.message == f"Can't parse entities: {error}"


PNG_1x1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


async def test_a_time_tag_is_a_date_time_entity_on_the_message(people: FakeTelegram, bot: Bot) -> None:
    source = '⏳ <tg-time unix="1767225600" format="r">in 1 h</tg-time>'
    sent = await bot.send_message(ALICE, source, parse_mode="HTML")
    assert sent.text == "⏳ in 1 h"
    (entity,) = sent.entities
    assert (entity.type, entity.offset, entity.length) == ("date_time", 2, 6)
    assert entity.unix_time == dtm.datetime(2026, 1, 1, tzinfo=dtm.UTC)
    assert entity.date_time_format == "r"
    assert sent.text_html == source
    seen = people.last_message(ALICE, as_user=ALICE)
    assert seen.entities == [
        {"type": "date_time", "offset": 2, "length": 6, "unix_time": 1767225600, "date_time_format": "r"}
    ]


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("<tg-time>x</tg-time>", "Invalid Unix time specified"),
        ('<tg-time unix="1767225600" format="soon">x</tg-time>', "Invalid date and time format specified"),
    ],
)
async def test_a_malformed_time_tag_is_a_bad_request(people: FakeTelegram, bot: Bot, source: str, error: str) -> None:
    with pytest.raises(BadRequest) as caught:
        await bot.send_message(ALICE, source, parse_mode="HTML")
    assert caught.value.message.lower() == f"can't parse entities: {error}".lower()
    with pytest.raises(BadRequest):
        await bot.send_photo(GROUP, PNG_1x1, caption=source, parse_mode="HTML")


async def test_exact_parse_error_text(people: FakeTelegram) -> None:
    status, body = await raw(people, "sendMessage", chat_id=ALICE, text="♠ <x>", parse_mode="HTML")
    assert (status, body["description"]) == (
        400,
        'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 4',
    )


async def test_empty_and_too_long_texts(people: FakeTelegram, bot: Bot) -> None:
    for text in ("", "  \n ", "<b></b>"):
        status, body = await raw(people, "sendMessage", chat_id=ALICE, text=text, parse_mode="HTML")
        assert (status, body["description"]) == (400, "Bad Request: message text is empty")
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.send_message(ALICE, "x" * 4097)
    long_source = "<b>" + "x" * 4096 + "</b>"  # 4103 characters of HTML, 4096 visible
    assert (await bot.send_message(ALICE, long_source, parse_mode="HTML")).text == "x" * 4096


async def test_surrounding_whitespace_is_trimmed(people: FakeTelegram, bot: Bot) -> None:
    sent = await bot.send_message(ALICE, "\n <b>hi</b> \n", parse_mode="HTML")
    assert sent.text == "hi"
    assert sent.entities[0].offset == 0


async def test_callback_data_is_at_most_64_bytes(people: FakeTelegram, bot: Bot) -> None:
    fits = InlineKeyboardMarkup([[InlineKeyboardButton("ok", callback_data="é" * 32)]])
    await bot.send_message(ALICE, "fits", reply_markup=fits)
    too_long = InlineKeyboardMarkup([[InlineKeyboardButton("no", callback_data="é" * 32 + "x")]])
    with pytest.raises(BadRequest) as caught:
        await bot.send_message(ALICE, "too long", reply_markup=too_long)
    assert caught.value.message == "Button_data_invalid"  # PTB capitalises "BUTTON_DATA_INVALID"


async def test_a_button_needs_exactly_one_action(people: FakeTelegram) -> None:
    text_only = {"inline_keyboard": [[{"text": "A"}]]}
    status, body = await raw(people, "sendMessage", chat_id=ALICE, text="x", reply_markup=text_only)
    assert (status, body["description"]) == (
        400,
        "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard",
    )
    both = {"inline_keyboard": [[{"text": "A", "callback_data": "a", "url": "https://t.me"}]]}
    status, body = await raw(people, "sendMessage", chat_id=ALICE, text="x", reply_markup=both)
    assert status == 400
    assert "one action only" in body["description"]


async def test_reply_parameters(people: FakeTelegram, bot: Bot) -> None:
    asked = await people.send_text(ALICE, ALICE, "question")
    answer = await bot.send_message(ALICE, "answer", reply_parameters=ReplyParameters(asked["message_id"]))
    assert answer.reply_to_message is not None
    assert answer.reply_to_message.text == "question"
    with pytest.raises(BadRequest, match="Message to be replied not found"):
        await bot.send_message(ALICE, "x", reply_parameters=ReplyParameters(999))
    lenient = ReplyParameters(999, allow_sending_without_reply=True)
    assert (await bot.send_message(ALICE, "x", reply_parameters=lenient)).reply_to_message is None


# --- editing and deleting ----------------------------------------------------------------------------------


async def test_edits_keep_every_version(people: FakeTelegram, bot: Bot) -> None:
    sent = await bot.send_message(ALICE, "Your hand: 3 7 Q", reply_markup=keyboard("Q"))
    await bot.edit_message_text("You played Q", chat_id=ALICE, message_id=sent.message_id)
    seen = people.last_message(ALICE, as_user=ALICE)
    assert (seen.text, seen.keyboard, seen.edited) == ("You played Q", [], True)  # no markup: keyboard gone
    versions = [(v.text, v.version) for v in people.history(ALICE) if v.message_id == sent.message_id]
    assert versions == [("Your hand: 3 7 Q", 0), ("You played Q", 1)]
    assert (ALICE, "Your hand: 3 7 Q") in list(people.all_texts())


async def test_identical_edit_is_not_modified(people: FakeTelegram, bot: Bot) -> None:
    sent = await bot.send_message(ALICE, "<b>table</b>", parse_mode="HTML", reply_markup=keyboard("A"))
    with pytest.raises(BadRequest, match="Message is not modified: specified new message content"):
        await bot.edit_message_text(
            "<b>table</b>", chat_id=ALICE, message_id=sent.message_id, parse_mode="HTML", reply_markup=keyboard("A")
        )
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_reply_markup(ALICE, sent.message_id, reply_markup=keyboard("A"))
    _, body = await raw(
        people,
        "editMessageReplyMarkup",
        chat_id=ALICE,
        message_id=sent.message_id,
        reply_markup=keyboard("A").to_dict(),
    )
    assert body["description"] == (
        "Bad Request: message is not modified: specified new message content and reply markup are exactly the same "
        "as a current content and reply markup of the message"
    )
    # the same visible text without the bold entity is a change
    await bot.edit_message_text("table", chat_id=ALICE, message_id=sent.message_id, reply_markup=keyboard("A"))
    await bot.edit_message_reply_markup(ALICE, sent.message_id, reply_markup=keyboard("B"))
    assert people.buttons(ALICE, sent.message_id)[0].text == "B"


async def test_missing_messages_cannot_be_edited_or_deleted(people: FakeTelegram, bot: Bot) -> None:
    sent = await bot.send_message(ALICE, "bye")
    assert await bot.delete_message(ALICE, sent.message_id)
    assert people.messages(ALICE, as_user=ALICE)[-1].text == "/start"
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", chat_id=ALICE, message_id=sent.message_id)
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await bot.delete_message(ALICE, sent.message_id)
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", chat_id=ALICE, message_id=999)
    with pytest.raises(BadRequest, match="Message can't be edited"):
        await bot.edit_message_text("x", chat_id=ALICE, message_id=1)  # Alice's own /start
    assert "bye" in [v.text for v in people.history(ALICE)]


async def test_bot_cannot_delete_others_messages_in_groups_unless_admin(people: FakeTelegram, bot: Bot) -> None:
    said = await people.send_text(BOB, GROUP, "hello all")
    with pytest.raises(BadRequest, match="Message can't be deleted"):
        await bot.delete_message(GROUP, said["message_id"])


# --- who the bot may write to --------------------------------------------------------------------------------


async def test_user_who_never_started_the_bot(people: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(Forbidden) as caught:
        await bot.send_message(CAROL, "hi")
    assert caught.value.message == "Forbidden: bot can't initiate conversation with a user"
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(55555, "hi")


async def test_blocking_and_unblocking(people: FakeTelegram, bot: Bot) -> None:
    sent = await bot.send_message(ALICE, "hi")
    await bot.get_updates(offset=-1)  # drop what came before
    people.block_bot(ALICE)
    with pytest.raises(Forbidden, match="Forbidden: bot was blocked by the user"):
        await bot.send_message(ALICE, "hi")
    with pytest.raises(Forbidden, match="blocked"):
        await bot.edit_message_text("x", chat_id=ALICE, message_id=sent.message_id)
    updates = await bot.get_updates(offset=-1)
    change = updates[0].my_chat_member
    assert change is not None
    assert (change.old_chat_member.status, change.new_chat_member.status) == ("member", "kicked")
    assert change.from_user.id == ALICE
    people.unblock_bot(ALICE)
    await bot.send_message(ALICE, "welcome back")


async def test_bot_removed_from_group(people: FakeTelegram, bot: Bot) -> None:
    await bot.send_message(GROUP, "hello")
    await bot.get_updates(offset=-1)
    people.remove_bot_from_group(GROUP, by_user=ALICE)
    with pytest.raises(Forbidden) as caught:
        await bot.send_message(GROUP, "still here?")
    assert caught.value.message == "Forbidden: bot was kicked from the group chat"
    change = (await bot.get_updates(offset=-1))[0].my_chat_member
    assert change is not None
    assert change.new_chat_member.status == "left"
    people.add_group(-1009999, "Big", [BOB], supergroup=True)
    people.remove_bot_from_group(-1009999, by_user=BOB)
    with pytest.raises(Forbidden, match="bot was kicked from the supergroup chat"):
        await bot.send_message(-1009999, "x")


async def test_bot_that_left_is_not_a_member(people: FakeTelegram, bot: Bot) -> None:
    assert await bot.leave_chat(GROUP)
    with pytest.raises(Forbidden, match="Forbidden: bot is not a member of the group chat"):
        await bot.send_message(GROUP, "x")
    people.add_member(GROUP, people.world.bot.id)
    await bot.send_message(GROUP, "back again")


async def test_migrated_group(people: FakeTelegram, bot: Bot) -> None:
    await bot.get_updates(offset=-1)
    new_id = people.migrate_group(GROUP)
    assert str(new_id).startswith("-100")
    with pytest.raises(ChatMigrated) as caught:
        await bot.send_message(GROUP, "x")
    assert caught.value.new_chat_id == new_id
    _, body = await raw(people, "sendMessage", chat_id=GROUP, text="x")
    assert body == {
        "ok": False,
        "error_code": 400,
        "description": "Bad Request: group chat was upgraded to a supergroup chat",
        "parameters": {"migrate_to_chat_id": new_id},
    }
    updates = await bot.get_updates(offset=-2)
    assert [u.message.migrate_to_chat_id for u in updates if u.message] == [new_id, None]
    assert updates[1].message
    assert updates[1].message.migrate_from_chat_id == GROUP
    await bot.send_message(new_id, "hello supergroup")
    assert people.last_message(new_id, as_user=BOB).text == "hello supergroup"


# --- injected faults -------------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # RetryAfter.retry_after as int
async def test_429_raises_retry_after(people: FakeTelegram, bot: Bot) -> None:
    people.fail_next("sendMessage", times=2, retry_after=3)
    for _ in range(2):
        with pytest.raises(RetryAfter) as caught:
            await bot.send_message(ALICE, "x")
        assert caught.value.retry_after in (3, dtm.timedelta(seconds=3))
    await bot.send_message(ALICE, "now it works")
    assert [call.result for call in people.calls_of("sendMessage")] == [429, 429, "ok"]
    people.fail_next("editMessageText")
    status, body = await raw(people, "editMessageText", chat_id=ALICE, message_id=1, text="x")
    assert (status, body["description"], body["parameters"]) == (
        429,
        "Too Many Requests: retry after 1",
        {"retry_after": 1},
    )


async def test_other_injected_faults(people: FakeTelegram, bot: Bot) -> None:
    people.fail_next("sendMessage", error_code=502, description="Bad Gateway")
    with pytest.raises(NetworkError, match="Bad Gateway"):
        await bot.send_message(ALICE, "x")
    people.fail_next("getChat", error_code=400, description="Bad Request: something odd")
    with pytest.raises(BadRequest, match="Something odd"):
        await bot.get_chat(ALICE)


# --- getUpdates --------------------------------------------------------------------------------------------------


async def test_long_poll_returns_as_soon_as_an_update_arrives(people: FakeTelegram, bot: Bot) -> None:
    await bot.get_updates(offset=-1)
    await bot.get_updates(offset=(await bot.get_updates())[-1].update_id + 1)
    started = time.monotonic()
    poll = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.05)
    await people.send_text(ALICE, ALICE, "wake up")
    updates = await poll
    assert time.monotonic() - started < 1
    assert [u.message.text for u in updates if u.message] == ["wake up"]


async def test_long_poll_times_out_empty(fake: FakeTelegram, bot: Bot) -> None:
    started = time.monotonic()
    assert await bot.get_updates(timeout=dtm.timedelta(seconds=0.2)) == ()
    assert 0.15 < time.monotonic() - started < 1


async def test_offset_confirms_and_limit_caps(people: FakeTelegram, bot: Bot) -> None:
    everything = await bot.get_updates()
    ids = [u.update_id for u in everything]
    assert ids == list(range(1, len(ids) + 1))  # my_chat_member for the group, /start ×2 …
    assert [u.update_id for u in await bot.get_updates(limit=2)] == ids[:2]
    assert [u.update_id for u in await bot.get_updates(offset=ids[1])] == ids[1:]
    assert [u.update_id for u in await bot.get_updates()] == ids[1:]  # confirmed ones are gone
    assert [u.update_id for u in await bot.get_updates(offset=-1)] == ids[-1:]
    assert await bot.get_updates(offset=ids[-1] + 1) == ()
    assert people.queue.pending == []


async def test_allowed_updates(people: FakeTelegram, bot: Bot) -> None:
    await bot.get_updates(offset=-1)
    await bot.get_updates(offset=people.queue.next_id, allowed_updates=["message"])
    sent = await bot.send_message(ALICE, "pick", reply_markup=keyboard("A"))
    await people.press(ALICE, ALICE, sent.message_id, "a")
    people.block_bot(ALICE)
    assert await bot.get_updates() == ()
    assert [next(iter(u)) for u in people.queue.filtered] == ["callback_query", "my_chat_member"]


async def test_a_second_poller_terminates_the_first(fake: FakeTelegram, bot: Bot) -> None:
    first = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.05)
    async with Bot(fake.token, base_url=fake.base_url) as second_process:  # PTB polls one request at a time
        second = asyncio.create_task(second_process.get_updates(timeout=dtm.timedelta(seconds=0.1)))
        with pytest.raises(Conflict, match="terminated by other getUpdates request"):
            await first
        assert await second == ()


# --- users acting ------------------------------------------------------------------------------------------------


async def test_commands_carry_bot_command_entities(people: FakeTelegram, bot: Bot) -> None:
    await bot.get_updates(offset=-1)
    await people.send_text(BOB, GROUP, "/newgame@shithead_test_bot now")
    update = (await bot.get_updates(offset=-1))[0]
    assert update.message is not None
    assert update.message.entities[0].type == "bot_command"
    assert update.message.parse_entities(["bot_command"]).popitem()[1] == "/newgame@shithead_test_bot"
    assert update.message.from_user
    assert update.message.from_user.language_code == "en"


async def test_privacy_mode_in_groups(people: FakeTelegram, bot: Bot) -> None:
    await bot.get_updates(offset=-1)
    first_id = people.queue.next_id
    table = await bot.send_message(GROUP, "the table")
    await people.send_text(BOB, GROUP, "just chatting")
    await people.send_text(BOB, GROUP, "/help@some_other_bot")
    await people.send_text(BOB, GROUP, "/help")
    await people.send_text(BOB, GROUP, "nice move", reply_to=table.message_id)
    updates = await bot.get_updates(offset=first_id)
    assert [u.message.text for u in updates if u.message] == ["/help", "nice move"]
    assert len(people.messages(GROUP, as_user=CAROL)) == 5


async def test_privacy_mode_a_bare_command_needs_the_bot_to_have_posted_last(people: FakeTelegram, bot: Bot) -> None:
    await bot.get_updates(offset=-1)
    first_id = people.queue.next_id
    people.add_other_bot(777, "Other", "other_bot")
    await people.send_text(BOB, GROUP, "/help")  # no bot posted yet: it reaches us
    people.other_bot_posts(777, GROUP, "I am another bot")
    await people.send_text(BOB, GROUP, "/newgame")  # the other bot posted last: not ours
    await people.send_text(BOB, GROUP, "/newgame@shithead_test_bot")
    await bot.send_message(GROUP, "we posted")
    await people.send_text(BOB, GROUP, "/hand")  # we posted last again
    updates = await bot.get_updates(offset=first_id)
    assert [u.message.text for u in updates if u.message] == ["/help", "/newgame@shithead_test_bot", "/hand"]
    assert (await bot.get_me()).can_read_all_group_messages is False


async def test_anonymous_admins_and_channels_write_as_chats(people: FakeTelegram, bot: Bot) -> None:
    people.add_member(GROUP, CAROL, "administrator")
    people.add_channel(-1009999, "News")
    await bot.get_updates(offset=-1)
    first_id = people.queue.next_id
    await people.send_as_group(CAROL, GROUP, "/settings turn 1h")
    await people.send_as_channel(BOB, GROUP, -1009999, "/newgame")
    with pytest.raises(AssertionError, match="no admin"):
        await people.send_as_group(BOB, GROUP, "/abort")
    anonymous, channel = [u.message for u in await bot.get_updates(offset=first_id)]
    assert anonymous is not None
    assert channel is not None
    assert anonymous.from_user is not None
    assert anonymous.from_user.id == 1087968824
    assert anonymous.sender_chat is not None
    assert anonymous.sender_chat.id == GROUP
    assert channel.from_user is not None
    assert channel.from_user.username == "Channel_Bot"
    assert channel.sender_chat is not None
    assert (channel.sender_chat.id, channel.sender_chat.type) == (-1009999, "channel")


async def test_deep_link_starts_the_bot_with_payload(people: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(Forbidden):
        await bot.send_message(CAROL, "x")
    started = people.open_deep_link(CAROL, "https://t.me/shithead_test_bot?start=join_g42")
    assert started["text"] == "/start join_g42"
    assert (await bot.get_updates(offset=-1))[0].message.text == "/start join_g42"  # type: ignore[union-attr]
    await bot.send_message(CAROL, "joined")
    with pytest.raises(AssertionError, match="not @shithead_test_bot"):
        people.open_deep_link(CAROL, "https://t.me/other_bot?start=x")
    with pytest.raises(AssertionError, match="A-Za-z0-9"):
        people.open_deep_link(CAROL, "https://t.me/shithead_test_bot?start=has%20space")


async def test_press_emits_a_callback_query_and_gets_the_answer(people: FakeTelegram, bot: Bot) -> None:
    sent = await bot.send_message(GROUP, "Lobby", reply_markup=keyboard("Join", "Start"))
    await bot.get_updates(offset=-1)
    data = people.button_data(GROUP, sent.message_id, "Join")
    press = await people.press(BOB, GROUP, sent.message_id, data)
    query = (await bot.get_updates(offset=-1))[0].callback_query
    assert query is not None
    assert query.message is not None
    assert (query.data, query.from_user.id, query.message.message_id) == ("join", BOB, sent.message_id)
    assert query.chat_instance
    assert await query.answer("You joined", show_alert=True)
    answer = await press.answer(timeout=1)
    assert answer is not None
    assert (answer.text, answer.show_alert) == ("You joined", True)
    with pytest.raises(BadRequest, match="Query is too old"):
        await query.answer("again")


async def test_press_answered_without_text_and_unanswered(people: FakeTelegram, bot: Bot) -> None:
    sent = await bot.send_message(ALICE, "pick", reply_markup=keyboard("A"))
    silent = await people.press(ALICE, ALICE, sent.message_id, "a")
    await bot.answer_callback_query(silent.query_id)
    assert await silent.answer() is None
    ignored = await people.press(ALICE, ALICE, sent.message_id, "a")
    with pytest.raises(AssertionError, match=r"was not answered within 0\.05 s"):
        await ignored.answer(timeout=0.05)


async def test_only_visible_buttons_can_be_pressed(people: FakeTelegram, bot: Bot) -> None:
    hand = await bot.send_message(ALICE, "hand", reply_markup=keyboard("Q"))
    lobby = await bot.send_message(GROUP, "lobby", reply_markup=keyboard("Join"))
    with pytest.raises(AssertionError, match="no button with callback_data 'k'"):
        await people.press(ALICE, ALICE, hand.message_id, "k")
    with pytest.raises(AssertionError, match="cannot see chat"):
        await people.press(BOB, ALICE, hand.message_id, "q")  # Alice's private chat
    people.add_user(2000, "Dora")
    with pytest.raises(AssertionError, match="cannot see chat"):
        await people.press(2000, GROUP, lobby.message_id, "join")
    await bot.edit_message_reply_markup(ALICE, hand.message_id, reply_markup=None)
    with pytest.raises(AssertionError, match="no button"):
        await people.press(ALICE, ALICE, hand.message_id, "q")
    await bot.delete_message(GROUP, lobby.message_id)
    with pytest.raises(AssertionError, match="does not exist or was deleted"):
        await people.press(BOB, GROUP, lobby.message_id, "join")


async def test_button_helpers(people: FakeTelegram, bot: Bot) -> None:
    markup = InlineKeyboardMarkup(
        [[InlineKeyboardButton("Join", callback_data="j:1")], [InlineKeyboardButton("Rules", url="https://x.org/r")]]
    )
    sent = await bot.send_message(GROUP, "lobby", reply_markup=markup)
    assert people.button_data(GROUP, sent.message_id, "Join") == "j:1"
    assert [b.url for b in people.url_buttons(GROUP, sent.message_id)] == ["https://x.org/r"]
    assert len(people.buttons(GROUP, sent.message_id)) == 2
    with pytest.raises(AssertionError, match="expected one button 'Leave'"):
        people.button_data(GROUP, sent.message_id, "Leave")


async def test_reading_needs_membership(people: FakeTelegram, bot: Bot) -> None:
    await bot.send_message(ALICE, "secret hand")
    with pytest.raises(AssertionError, match="cannot see chat"):
        people.messages(ALICE, as_user=BOB)
    people.remove_member(GROUP, CAROL)
    with pytest.raises(AssertionError, match="cannot see chat"):
        people.messages(GROUP, as_user=CAROL)
    assert (ALICE, "secret hand") in list(people.all_texts())


# --- commands, chats, members, pins ----------------------------------------------------------------------------


async def test_my_commands_per_scope_and_language(people: FakeTelegram, bot: Bot) -> None:
    await bot.set_my_commands([BotCommand("newgame", "Start a lobby")])
    await bot.set_my_commands([BotCommand("newgame", "Nouvelle partie")], language_code="fr")
    await bot.set_my_commands([BotCommand("hand", "Show hand")], scope=BotCommandScopeAllGroupChats())
    assert [c.description for c in await bot.get_my_commands(language_code="fr")] == ["Nouvelle partie"]
    assert [c.command for c in await bot.get_my_commands(scope=BotCommandScopeAllGroupChats())] == ["hand"]
    assert people.commands() == [{"command": "newgame", "description": "Start a lobby"}]
    await bot.delete_my_commands(language_code="fr")
    assert await bot.get_my_commands(language_code="fr") == ()
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await bot.set_my_commands([BotCommand("New-Game", "bad")])
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.set_my_commands([BotCommand("a", "b")], scope=BotCommandScopeChat(-777))


async def test_chat_and_members(people: FakeTelegram, bot: Bot) -> None:
    people.add_group(-5000, "Admins", [BOB], admins=[CAROL, people.world.bot.id], creator=ALICE)
    chat = await bot.get_chat(-5000)
    assert (chat.title, chat.type) == ("Admins", "group")
    people.add_user(2000, "Dora")
    statuses = {uid: (await bot.get_chat_member(-5000, uid)).status for uid in (ALICE, BOB, CAROL, 2000, 123456)}
    assert statuses == {ALICE: "creator", BOB: "member", CAROL: "administrator", 2000: "left", 123456: "administrator"}
    with pytest.raises(BadRequest, match="User not found"):
        await bot.get_chat_member(-5000, 5)
    admins = await bot.get_chat_administrators(-5000)
    assert sorted(member.user.id for member in admins) == sorted([ALICE, CAROL, 123456])
    people.remove_member(-5000, BOB)
    assert (await bot.get_chat_member(-5000, BOB)).status == "left"
    people.remove_member(-5000, CAROL, kicked=True)
    assert (await bot.get_chat_member(-5000, CAROL)).status == "kicked"
    with pytest.raises(BadRequest, match="There are no administrators in the private chat"):
        await bot.get_chat_administrators(ALICE)


async def test_pins_need_admin_rights_in_groups(people: FakeTelegram, bot: Bot) -> None:
    table = await bot.send_message(GROUP, "table")
    with pytest.raises(BadRequest, match="Not enough rights to manage pinned messages"):
        await bot.pin_chat_message(GROUP, table.message_id)
    people.add_member(GROUP, people.world.bot.id, status="administrator")
    assert await bot.pin_chat_message(GROUP, table.message_id, disable_notification=True)
    assert people.pinned(GROUP) == [table.message_id]
    assert await bot.unpin_chat_message(GROUP)
    assert people.pinned(GROUP) == []
    with pytest.raises(BadRequest, match="Message to pin not found"):
        await bot.pin_chat_message(GROUP, 999)


async def test_chat_action(people: FakeTelegram, bot: Bot) -> None:
    assert await bot.send_chat_action(GROUP, "typing")
    status, body = await raw(people, "sendChatAction", chat_id=GROUP, action="dancing")
    assert (status, body["description"]) == (400, "Bad Request: wrong parameter action in request")


async def test_form_and_json_bodies_agree(people: FakeTelegram) -> None:
    url = f"{people.base_url}{people.token}/sendMessage"
    form = {"chat_id": str(ALICE), "text": "via form", "disable_notification": "true"}
    async with aiohttp.ClientSession() as session, session.post(url, data=form) as response:
        assert (await response.json())["result"]["text"] == "via form"
    status, _ = await raw(people, "sendMessage", chat_id=ALICE, text="via json", disable_notification=True)
    assert status == 200
    assert [m.silent for m in people.messages(ALICE, as_user=ALICE)[-2:]] == [True, True]


# --- webhooks ------------------------------------------------------------------------------------------------------


class Receiver:
    """A tiny webhook endpoint that records what it gets and answers with scripted status codes."""

    def __init__(self, statuses: list[int] | None = None) -> None:
        self.statuses = deque(statuses or [])
        self.received: list[tuple[str | None, JSON]] = []
        self.runner: web.AppRunner | None = None
        self.url = ""

    async def handle(self, request: web.Request) -> web.Response:
        self.received.append((request.headers.get("X-Telegram-Bot-Api-Secret-Token"), await request.json()))
        return web.Response(status=self.statuses.popleft() if self.statuses else 200)

    async def __aenter__(self) -> "Receiver":
        app = web.Application()
        app.router.add_post("/hook", self.handle)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{self.runner.addresses[0][1]}/hook"
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self.runner is not None
        await self.runner.cleanup()

    def update_ids(self) -> list[int]:
        return [body["update_id"] for _, body in self.received]


async def test_webhook_blocks_get_updates(people: FakeTelegram, bot: Bot) -> None:
    assert await bot.set_webhook("https://bot.example/hook", secret_token="s3cret")
    with pytest.raises(Conflict) as caught:
        await bot.get_updates()
    assert caught.value.message == (
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
    )
    info = await bot.get_webhook_info()
    assert info.url == "https://bot.example/hook"
    with pytest.raises(BadRequest, match="Secret token contains unallowed characters"):
        await bot.set_webhook("https://bot.example/hook", secret_token="a+b=")
    assert await bot.delete_webhook(drop_pending_updates=True)
    assert await bot.get_updates() == ()


async def test_webhook_delivery_in_order_with_retries(people: FakeTelegram, bot: Bot) -> None:
    people.queue.backoff = 0.01
    async with Receiver(statuses=[500, 500]) as receiver:
        await bot.get_updates(offset=-1)
        await bot.get_updates(offset=people.queue.next_id)
        await bot.set_webhook(receiver.url, secret_token="s3cret")
        await people.send_text(ALICE, ALICE, "one")
        await people.send_text(ALICE, ALICE, "two")
        await people.wait_for(lambda: len(receiver.received) == 4, timeout=3)
        first, second = people.queue.next_id - 2, people.queue.next_id - 1
        assert receiver.update_ids() == [first, first, first, second]
        assert {secret for secret, _ in receiver.received} == {"s3cret"}
        info = await bot.get_webhook_info()
        assert info.pending_update_count == 0
        assert info.last_error_message == "Wrong response from the webhook: 500 Internal Server Error"


async def test_undeliverable_update_is_given_up(people: FakeTelegram, bot: Bot) -> None:
    people.queue.backoff = 0.01
    people.queue.attempts = 2
    async with Receiver(statuses=[403, 403]) as receiver:
        await bot.set_webhook(receiver.url, drop_pending_updates=True)
        await people.send_text(ALICE, ALICE, "lost")
        await people.send_text(ALICE, ALICE, "kept")
        await people.wait_for(lambda: len(receiver.received) == 3, timeout=3)
        assert [body["message"]["text"] for _, body in receiver.received] == ["lost", "lost", "kept"]
        assert [update["message"]["text"] for update in people.queue.given_up] == ["lost"]


async def test_delivery_targets_round_robin(people: FakeTelegram, bot: Bot) -> None:
    async with Receiver() as one, Receiver() as two:
        await bot.set_webhook(one.url, drop_pending_updates=True)
        people.set_delivery_targets([one.url, two.url])
        for text in ("a", "b", "c", "d"):
            await people.send_text(BOB, BOB, text)
        await people.wait_for(lambda: len(one.received) + len(two.received) == 4, timeout=3)
        texts_one = [body["message"]["text"] for _, body in one.received]
        texts_two = [body["message"]["text"] for _, body in two.received]
        assert (texts_one, texts_two) == (["a", "c"], ["b", "d"])
        people.set_delivery_targets(None)
        await people.send_text(BOB, BOB, "e")
        await people.wait_for(lambda: len(one.received) == 3, timeout=3)


async def test_duplicate_deliveries_one_after_the_other_and_at_once(people: FakeTelegram, bot: Bot) -> None:
    async with Receiver() as one, Receiver() as two:
        await bot.set_webhook(one.url, drop_pending_updates=True)
        people.duplicate_deliveries(2)
        await people.send_text(BOB, BOB, "twice")
        await people.wait_for(lambda: len(one.received) == 2, timeout=3)
        assert len(set(one.update_ids())) == 1
        people.set_delivery_targets([one.url, two.url])
        people.duplicate_deliveries(2, at_once=True)
        await people.send_text(BOB, BOB, "both")
        await people.wait_for(lambda: len(two.received) == 1 and len(one.received) == 3, timeout=3)
        assert one.update_ids()[-1] == two.update_ids()[-1]
        people.duplicate_deliveries(1)


# --- a real Application ---------------------------------------------------------------------------------------------


def build_app(fake: FakeTelegram) -> Application:  # type: ignore[type-arg]
    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message is not None
        args = " ".join(context.args or [])
        await update.effective_message.reply_text(f"Hi! {args}".strip(), reply_markup=keyboard("Deal"))

    async def pressed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        await query.answer(f"You pressed {query.data}")
        await query.edit_message_text("<b>Dealt</b>", parse_mode="HTML")

    app = Application.builder().token(fake.token).base_url(fake.base_url).base_file_url(fake.base_file_url).build()
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CallbackQueryHandler(pressed))
    return app


async def play_one_round(fake: FakeTelegram) -> None:
    fake.start_bot(ALICE, payload="g1")
    reply = await fake.wait_for(lambda: fake.messages(ALICE, as_user=ALICE)[-1].from_bot, timeout=5)
    assert reply
    hello = fake.last_message(ALICE, as_user=ALICE)
    assert hello.text == "Hi! g1"
    press = await fake.press(ALICE, ALICE, hello.message_id, fake.button_data(ALICE, hello.message_id, "Deal"))
    answer = await press.answer(timeout=5)
    assert answer is not None
    assert answer.text == "You pressed deal"
    await fake.wait_for(lambda: fake.last_message(ALICE, as_user=ALICE).edited, timeout=5)
    dealt = fake.last_message(ALICE, as_user=ALICE)
    assert (dealt.text, dealt.html, dealt.keyboard) == ("Dealt", "<b>Dealt</b>", [])


async def test_application_polling(people: FakeTelegram) -> None:
    app = build_app(people)
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=1, drop_pending_updates=True)
        await play_one_round(people)
        await app.updater.stop()
        await app.stop()
    assert people.call_counts()["answerCallbackQuery"] == 1


async def test_application_webhook(people: FakeTelegram) -> None:
    app = build_app(people)
    port = free_port()
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_webhook(
            listen="127.0.0.1",
            port=port,
            url_path="hook",
            webhook_url=f"http://127.0.0.1:{port}/hook",
            secret_token="worker-secret",
            drop_pending_updates=True,
        )
        assert people.queue.webhook.secret == "worker-secret"
        await play_one_round(people)
        assert all(delivery.error is None for delivery in people.queue.deliveries)
        await app.updater.stop()
        await app.stop()


# --- standalone ------------------------------------------------------------------------------------------------------


async def test_runs_standalone() -> None:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "testkit.fakebot",
        "--port",
        str(port),
        "--demo",
        stdout=asyncio.subprocess.PIPE,
        cwd=Path(__file__).parents[2],
    )
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 10)).decode()
        assert f"http://127.0.0.1:{port}/bot" in line
        async with Bot("123456:TEST-TOKEN", base_url=f"http://127.0.0.1:{port}/bot") as client:
            assert client.username == "shithead_test_bot"
            control = f"http://127.0.0.1:{port}/_fake/start_bot"
            async with aiohttp.ClientSession() as session, session.post(control, json={"user_id": 1001}) as response:
                assert (await response.json())["result"]["text"] == "/start"
            assert (await client.send_message(1001, "hello")).text == "hello"
    finally:
        process.terminate()
        await process.wait()


async def test_forum_topics(people: FakeTelegram, bot: Bot) -> None:
    people.add_group(-1009, "Forum", [ALICE, BOB], supergroup=True, forum=True)
    topic = people.create_topic(-1009, "Shithead")
    await people.send_text(ALICE, -1009, "/hello", thread_id=topic)
    update = (await bot.get_updates())[-1]
    assert update.message is not None
    assert update.message.is_topic_message
    assert update.message.message_thread_id == topic
    assert update.message.chat.is_forum
    sent = await bot.send_message(-1009, "in the topic", message_thread_id=topic)
    assert sent.message_thread_id == topic
    general = await bot.send_message(-1009, "in General")
    assert general.message_thread_id is None
    replied = await bot.send_message(-1009, "a reply", reply_to_message_id=sent.message_id)
    assert replied.message_thread_id == topic  # a reply stays in its message's topic
    assert [m.thread_id for m in people.messages(-1009, as_user=ALICE)][-3:] == [topic, None, topic]
    people.close_topic(-1009, topic)
    with pytest.raises(BadRequest, match="Topic_closed"):
        await bot.send_message(-1009, "closed", message_thread_id=topic)
    people.delete_topic(-1009, topic)
    with pytest.raises(BadRequest, match="Message thread not found"):
        await bot.send_message(-1009, "deleted", message_thread_id=topic)
    assert all(m.thread_id is None for m in people.messages(-1009, as_user=ALICE))  # its messages are gone
