"""A press reads its game once: the use case loads (and locks) it, and the first delivery plan is
made from the snapshot the use case committed, not from a second read of the same rows a few
milliseconds later. When something else touched the game in between, the plan reads it again."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from tests.service.helpers import user
from tests.telegram.inbot import InBot

READS_GAME = re.compile(r"^\s*SELECT\b.*\b(FROM|JOIN)\s+\"?game\"?\b", re.IGNORECASE | re.DOTALL)


@contextmanager
def game_reads(sessions: async_sessionmaker[AsyncSession]) -> Iterator[list[str]]:
    """The SELECTs on the ``game`` table sent while the block runs."""
    engine = sessions.kw["bind"].sync_engine
    found: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if READS_GAME.match(statement):
            found.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        yield found
    finally:
        event.remove(engine, "before_cursor_execute", seen)


def ready_label(bot: InBot, player: int) -> tuple[Any, str]:
    message = next(m for m in reversed(bot.private(player)) if m.buttons)
    return message, next(b.text for b in message.buttons if "Ready" in b.text)


async def test_a_press_reads_its_game_once(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        await bot.start(humans=2)
        player = user(0).id
        message, label = ready_label(bot, player)
        press = await bot.press(player, message, label)
        with game_reads(sessions) as reads:
            await bot.handle()
        assert press.answered.is_set()
        assert len(reads) == 1, reads
        labels = [b.text for b in bot.private(player)[-1].buttons]
        assert not [label for label in labels if "Ready" in label], labels  # the press's own notices went out


async def test_a_game_changed_before_its_delivery_is_read_again(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    """Two presses, then one delivery: the plan holds both presses' notices, so the snapshot of
    the first use case is stale and the plan reads the game (the second press's table is shown)."""
    async with InBot(sessions, clock, fake) as bot:
        await bot.start(humans=2)
        for n in range(2):
            game = await bot.service.game_view(bot.game_id)
            seat = game.seat_of(user(n).id)
            assert seat is not None
            await bot.service.play(bot.game_id, user(n).id, "r", seat.keyboard_version)
        with game_reads(sessions) as reads:
            await bot.ctx.deliver(bot.game_id)
        assert len(reads) == 1, reads  # the delivery read the game itself
        for n in range(2):  # both are ready: the play began, no message offers Ready any more
            labels = [b.text for m in bot.private(user(n).id) for b in m.buttons]
            assert not [label for label in labels if "Ready" in label], labels


async def test_a_press_made_while_a_delivery_of_its_game_is_pending_hands_nothing_over(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    """That delivery's report may record the message ids it sent after the press read the seats:
    a plan from the press's snapshot would then retire and edit the wrong messages (a loaded chaos
    run met a turn's keyboard live beside its new copy). Its delivery reads the game instead."""
    async with InBot(sessions, clock, fake) as bot:
        await bot.start(humans=2)
        core = bot.service.core
        for n in range(2):
            game = await bot.service.game_view(bot.game_id)
            seat = game.seat_of(user(n).id)
            assert seat is not None
            await bot.service.play(bot.game_id, user(n).id, "r", seat.keyboard_version)
            handed = core.take_handed(bot.game_id)
            if n == 0:  # nothing was pending: the first press hands its snapshot over
                assert handed is not None
            else:  # the first press's notices still wait
                assert handed is None
