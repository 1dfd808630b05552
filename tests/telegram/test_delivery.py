"""Delivering notices with a recording Bot stand-in: who gets what, in whose language."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from engine.ai import make_player
from persistence import repo
from shithead_bot.service import GameService, Outbox, UserInfo, faults
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.delivery import Delivery
from testkit.clock import FakeClock
from tests.service.helpers import user


class Message:
    def __init__(self, message_id: int) -> None:
        self.message_id = message_id


class RecordingBot:
    def __init__(self) -> None:
        self.sent: list[tuple[int, str]] = []
        self.ids = itertools.count(1)

    async def send_message(self, chat_id: int, text: str, **_: Any) -> Message:
        self.sent.append((chat_id, text))
        return Message(next(self.ids))

    async def edit_message_text(self, text: str, chat_id: int, message_id: int, **_: Any) -> bool:
        self.sent.append((chat_id, text))
        return True

    async def edit_message_reply_markup(self, *args: Any, **kwargs: Any) -> bool:
        return True

    async def send_photo(self, chat_id: int, photo: Any, caption: str = "", **_: Any) -> Message:
        self.sent.append((chat_id, caption))
        return Message(next(self.ids))

    async def pin_chat_message(self, *args: Any, **kwargs: Any) -> bool:
        return True

    async def unpin_chat_message(self, *args: Any, **kwargs: Any) -> bool:
        return True

    async def delete_message(self, *args: Any, **kwargs: Any) -> bool:
        return True


async def test_private_messages_follow_each_players_language(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    amelie, bob = UserInfo(201, "Amélie", language="fr-FR"), UserInfo(202, "Bob", language="en-GB")
    for person in (amelie, bob):
        await service.see_user(person, can_message=True)
    lobby = await service.open_lobby(-42, amelie, chat_title="Amis")
    await service.join(lobby.game_id, bob)
    await service.start(lobby.game_id, amelie.id)
    bot = RecordingBot()
    await Outbox(sessions, clock=clock).deliver(Delivery(bot, Codec(b"k"), "bot"))  # type: ignore[arg-type]
    to_amelie = " ".join(text for chat, text in bot.sent if chat == amelie.id)
    to_bob = " ".join(text for chat, text in bot.sent if chat == bob.id)
    to_group = " ".join(text for chat, text in bot.sent if chat == -42)
    assert "Main" in to_amelie or "main" in to_amelie
    assert "Your hand:" in to_bob
    assert "Your hand:" not in to_amelie
    assert "Ta main :" in to_amelie
    assert "Swap phase" in to_group  # groups: English unless the chat says otherwise


async def test_a_chats_language_is_its_group_messages_not_its_players_private_ones(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    """/settings language fr in a group: the group reads French, Bob still reads English in private."""
    amelie, bob = UserInfo(201, "Amélie", language="fr-FR"), UserInfo(202, "Bob", language="en-GB")
    for person in (amelie, bob):
        await service.see_user(person, can_message=True)
    await service.ensure_chat(-42, "group", "Amis")
    await service.update_chat(-42, language="fr")
    lobby = await service.open_lobby(-42, amelie, chat_title="Amis")
    await service.join(lobby.game_id, bob)
    await service.start(lobby.game_id, amelie.id)
    bot = RecordingBot()
    await Outbox(sessions, clock=clock).deliver(Delivery(bot, Codec(b"k"), "bot"))  # type: ignore[arg-type]
    to_bob = " ".join(text for chat, text in bot.sent if chat == bob.id)
    to_group = " ".join(text for chat, text in bot.sent if chat == -42)
    assert "Your hand:" in to_bob
    assert "Ta main :" not in to_bob
    assert "Phase d'échange" in to_group or "échange" in to_group


async def test_a_game_in_a_private_chat_speaks_its_players_language_throughout(service: GameService) -> None:
    amelie = UserInfo(201, "Amélie", language="fr-FR")
    await service.see_user(amelie, can_message=True)
    game = await service.open_private_game(amelie, computers=1, level="easy", chat_title="Amélie")
    view = await service.game_view(game.game_id)
    delivery = Delivery(RecordingBot(), Codec(b"k"), "bot")  # type: ignore[arg-type]
    assert delivery.page_for(view).language == "fr"  # the table and the end, in their own chat
    assert delivery.page_for(view, view.seat(0)).language == "fr"


def test_house_rule_titles_and_names_are_escaped() -> None:
    from engine import PRESETS, Outcome
    from shithead_bot.narrate import Narrator
    from shithead_bot.telegram.render import esc

    rules = PRESETS["standard"].with_rule("loser_title", "<i>Dishwasher</i>\u0000 & co")
    narrator = Narrator(["<b>Eve</b>", "Bob"], rules, escape=esc)
    line = narrator.result(Outcome((2, 1), (1,), 0))
    assert line == "&lt;b&gt;Eve&lt;/b&gt; is the &lt;i&gt;Dishwasher&lt;/i&gt; &amp; co! 💩"


class KeyboardBot(RecordingBot):
    """Also remembers which private messages show buttons."""

    def __init__(self) -> None:
        super().__init__()
        self.live: dict[int, set[int]] = {}  # chat -> ids of messages with buttons

    def _mark(self, chat_id: int, message_id: int, markup: Any) -> None:
        live = self.live.setdefault(chat_id, set())
        if markup is not None and markup.inline_keyboard:
            live.add(message_id)
        else:
            live.discard(message_id)

    async def send_message(self, chat_id: int, text: str, **kwargs: Any) -> Message:
        message = await super().send_message(chat_id, text)
        self._mark(chat_id, message.message_id, kwargs.get("reply_markup"))
        return message

    async def edit_message_text(self, text: str, chat_id: int, message_id: int, **kwargs: Any) -> bool:
        self._mark(chat_id, message_id, kwargs.get("reply_markup"))
        return await super().edit_message_text(text, chat_id, message_id)

    async def edit_message_reply_markup(self, chat_id: int, message_id: int, **kwargs: Any) -> bool:
        self._mark(chat_id, message_id, kwargs.get("reply_markup"))
        return True

    async def delete_message(self, chat_id: int, message_id: int, **_: Any) -> bool:
        self.live.get(chat_id, set()).discard(message_id)
        return True


async def test_a_move_from_a_turn_message_the_database_lost_leaves_no_live_keyboard(
    service: GameService,
    game_id: int,
    sessions: async_sessionmaker[AsyncSession],
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The turn message went out but writing the delivery's report failed (a dropped connection: its
    id is not recorded, its notices not marked); the player played from it before the outbox tried
    again. That message is theirs: it is edited, and no keyboard stays live on it (the chaos test
    once saw two live keyboards)."""
    bot = KeyboardBot()
    outbox = Outbox(sessions, clock=clock)
    delivery = Delivery(bot, Codec(b"k"), "bot")  # type: ignore[arg-type]
    await outbox.deliver(delivery)
    await service.play(game_id, user(0).id, "r", (await service.game_view(game_id)).seat(0).keyboard_version)
    await outbox.deliver(delivery)
    await service.play(game_id, user(1).id, "r", (await service.game_view(game_id)).seat(1).keyboard_version)
    record = repo.set_seat_messages
    # lost for good: as many faults in a row as the report's retry makes attempts in its time budget
    monkeypatch.setattr(faults, "RETRY_SECONDS", 0.0)
    fails = [DBAPIError("UPDATE seat", None, ConnectionError("connection was closed"))] * faults.MIN_ATTEMPTS

    async def record_once_failing(**kwargs: Any) -> None:
        if fails:
            raise fails.pop()
        await record(**kwargs)

    monkeypatch.setattr(repo, "set_seat_messages", record_once_failing)
    await outbox.deliver(delivery)
    assert not fails, "recording the turn message failed"
    view = await service.game_view(game_id)
    assert view.state is not None
    number = view.state.seats_to_act()[0]
    player_id = view.seat(number).player_id
    assert player_id is not None
    pressed = max(bot.live[player_id])  # the turn message the bot does not know about
    assert pressed != view.seat(number).private_message_id
    mover = make_player("heuristic", 1)
    move = mover.choose(view.state.view(number))
    await service.play(game_id, player_id, move, view.seat(number).keyboard_version, message_id=pressed)
    for _ in range(3):  # the press's own delivery, then the failed notice's retry
        await outbox.deliver(delivery)
        clock.advance(seconds=60)
    view = await service.game_view(game_id)
    for seat in view.seats:
        assert seat.player_id is not None
        wanted = {seat.private_message_id} if view.may_act(seat.number) else set()
        assert bot.live.get(seat.player_id, set()) == wanted, (seat.number, bot.live)


def test_only_a_press_in_the_pressers_private_chat_names_its_message() -> None:
    from datetime import UTC, datetime

    from telegram import CallbackQuery, Chat, Update, User
    from telegram import Message as TgMessage

    from shithead_bot.telegram.handlers.play import pressed_private

    def press(chat: Chat) -> Update:
        message = TgMessage(77, datetime.now(UTC), chat)
        alice = User(5, "Alice", is_bot=False)
        return Update(1, callback_query=CallbackQuery("q", alice, "ci", message=message, data="x"))

    assert pressed_private(press(Chat(5, Chat.PRIVATE))) == 77
    assert pressed_private(press(Chat(-100, Chat.SUPERGROUP))) is None  # a forged button in a group
    assert pressed_private(press(Chat(6, Chat.PRIVATE))) is None
