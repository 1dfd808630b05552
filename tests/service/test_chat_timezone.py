"""A chat's time zone (the table picture's clock): saved on the chat, UTC until one is chosen."""

from __future__ import annotations

import pytest

from shithead_bot.service import GameService
from tests.service.helpers import GROUP, lobby_with


async def test_a_chat_keeps_its_time_zone(service: GameService) -> None:
    game_id = await lobby_with(service, humans=2)
    chat = await service.ensure_chat(GROUP, "group", "Friends")
    assert (chat.timezone, chat.zone) == (None, "UTC")
    chat = await service.update_chat(GROUP, timezone="Europe/Paris")
    assert (chat.timezone, chat.zone) == ("Europe/Paris", "Europe/Paris")
    assert (await service.game_view(game_id)).chat.zone == "Europe/Paris"
    assert (await service.update_chat(GROUP, timezone=None)).zone == "UTC"


async def test_a_time_zone_that_is_not_one_is_never_saved(service: GameService) -> None:
    await lobby_with(service, humans=2)
    with pytest.raises(ValueError, match="time zone"):
        await service.update_chat(GROUP, timezone="../../etc/passwd")
    assert (await service.ensure_chat(GROUP, "group", "Friends")).timezone is None
