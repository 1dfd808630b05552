"""A phone buzzes when a decision waits and its player is not already looking (issue: attention is
the scarce thing): a swap tap edits the swap message in place; a turn that follows a press in the
private chat a few seconds before comes silently, and one nudge follows it if it is not taken."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot

from engine import Swap
from shithead_bot.service import Autoplay
from tests.conftest import FakeClock
from tests.service.helpers import user
from tests.support.fakebot import FakeTelegram
from tests.telegram.fakegame import FakeGame, bot, fake

__all__ = ["bot", "fake"]  # fixtures


async def test_a_swap_tap_edits_the_swap_message_in_place(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = await FakeGame(sessions, clock, fake, bot).start(autoplay=Autoplay.OFF)
    first = game.private(user(0).id)[-1]
    assert not first.silent  # the swap phase's first message notifies
    view = await game.service.game_view(game.game_id)
    assert view.state is not None
    swap = next(m for m in view.state.legal_moves(0) if isinstance(m, Swap))
    await game.service.play(game.game_id, user(0).id, swap, view.seat(0).keyboard_version)
    await game.deliver()
    newest = game.private(user(0).id)[-1]
    assert newest.message_id == first.message_id  # edited, not a new (notifying) message
    assert newest.edited
    assert game.live(user(0).id) == [newest]
