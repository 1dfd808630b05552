"""Delivering notices with a recording Bot stand-in: who gets what, in whose language."""

from __future__ import annotations

import itertools
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shithead_bot.service import Outbox, UserInfo
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.deliver import Delivery
from tests.conftest import FakeClock
from tests.service.helpers import make_service


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


async def test_private_messages_follow_each_players_language(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    service = make_service(sessions, clock)
    amelie, bob = UserInfo(201, "Amélie", language="fr-FR"), UserInfo(202, "Bob", language="en-GB")
    for person in (amelie, bob):
        await service.see_user(person, can_message=True)
    lobby = await service.open_lobby(-42, amelie, chat_title="Amis")
    await service.join(lobby.game_id, bob)
    await service.start(lobby.game_id, amelie.id)
    bot = RecordingBot()
    await Outbox(sessions, clock=clock).deliver(Delivery(bot, service, Codec(b"k"), "bot"))  # type: ignore[arg-type]
    to_amelie = " ".join(text for chat, text in bot.sent if chat == amelie.id)
    to_bob = " ".join(text for chat, text in bot.sent if chat == bob.id)
    to_group = " ".join(text for chat, text in bot.sent if chat == -42)
    assert "Main" in to_amelie or "main" in to_amelie
    assert "Your hand:" in to_bob
    assert "Your hand:" not in to_amelie
    assert "Ta main :" in to_amelie
    assert "Swap phase" in to_group  # groups: English unless the chat says otherwise


def test_house_rule_titles_and_names_are_escaped() -> None:
    from engine import PRESETS, Outcome
    from shithead_bot.narrate import Narrator
    from shithead_bot.telegram.render import esc

    rules = PRESETS["standard"].with_rule("loser_title", "<i>Dishwasher</i>\u0000 & co")
    narrator = Narrator(["<b>Eve</b>", "Bob"], rules, escape=esc)
    line = narrator.result(Outcome((2, 1), (1,), 0))
    assert line == "&lt;b&gt;Eve&lt;/b&gt; is the &lt;i&gt;Dishwasher&lt;/i&gt; &amp; co! 💩"
