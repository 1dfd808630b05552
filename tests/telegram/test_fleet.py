"""Several workers on one database behave as one, and a restarted worker forgets nothing: what the
sender decides for the fleet — "this player was called this turn", "this chat refuses pictures",
"this table was edited a moment ago" — is stored, read into the plan and written from the report,
never kept in one worker's memory."""

from __future__ import annotations

from collections import Counter

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot

from shithead_bot.service import Autoplay
from shithead_bot.service.outbox import Outbox
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.delivery import Delivery
from shithead_bot.timers.sweeper import Sweeper
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from tests.service.helpers import GROUP, user
from tests.telegram.fakegame import FakeGame

CALL = "cannot message you"


class Worker:
    """One bot process's sender and outbox, on the shared database."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], clock: FakeClock, bot: Bot) -> None:
        self.delivery = Delivery(bot, Codec(b"k"), "shithead_bot", table_seconds=0)
        self.outbox = Outbox(sessions, clock=clock)

    async def deliver(self) -> None:
        await self.outbox.deliver(self.delivery)


def calls(fake: FakeTelegram) -> int:
    return sum(CALL in m.text for m in fake.messages(GROUP, as_user=user(0).id))


async def test_two_workers_call_an_unreachable_player_once_a_turn(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    """Two workers take turns delivering one game's notices (its turns, reminders, timeouts): the
    group is asked to get a player the bot cannot reach once a turn, not once a worker."""
    fake.block_bot(user(1).id)
    game = await FakeGame(sessions, clock, fake, bot).start(autoplay=Autoplay.OFF)
    workers = [Worker(sessions, clock, bot), Worker(sessions, clock, bot)]
    sweeper = Sweeper(game.service)
    per_turn: Counter[int] = Counter()
    for n in range(400):  # User0 plays at once; User1 never can: reminders, then timeouts, then removal
        view = await game.service.game_view(game.game_id)
        if view.is_over or view.seat(1).forfeited:
            break
        before = calls(fake)
        if view.may_act(0):  # delivered by a third worker, the one FakeGame has
            await game.move()
        else:
            clock.advance(hours=1)
            await sweeper.sweep()
            await workers[n % 2].deliver()
        per_turn[(await game.service.game_view(game.game_id)).seat(1).keyboard_version] += calls(fake) - before
    assert sum(per_turn.values()) > 0
    assert all(count <= 1 for count in per_turn.values()), per_turn


async def test_a_restarted_worker_does_not_call_again_that_turn(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    """The call went out, then the bot restarted: the new process's sender does not call the same
    player again for the same turn (its reminder fails too, quietly)."""
    fake.block_bot(user(1).id)
    game = await FakeGame(sessions, clock, fake, bot).start(autoplay=Autoplay.OFF)
    sweeper = Sweeper(game.service)
    for _ in range(50):
        if calls(fake):
            break
        await game.move()
    assert calls(fake) == 1
    turn = (await game.service.game_view(game.game_id)).seat(1).keyboard_version
    restarted = Worker(sessions, clock, bot)
    for _ in range(6):  # the reminders of the same turn, by the new process
        clock.advance(hours=2)
        await sweeper.sweep()
        if (await game.service.game_view(game.game_id)).seat(1).keyboard_version != turn:
            break
        await restarted.deliver()
    assert calls(fake) == 1


async def test_a_chat_that_refused_pictures_gets_text_tables_from_every_worker(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    """A picture refused once is not tried again by another worker (or after a restart)."""
    fake.restrict_bot(GROUP, messages=True, photos=False)  # texts yes, pictures no
    game = await FakeGame(sessions, clock, fake, bot).start()
    await game.move()
    assert len(fake.calls_of("sendPhoto")) == 1  # refused once
    game.delivery = Worker(sessions, clock, bot).delivery  # another worker, or the same one restarted
    for _ in range(6):
        await game.move()
    assert len(fake.calls_of("sendPhoto")) == 1, "another worker tried the picture again"
    fake.restrict_bot(GROUP, messages=True, photos=True)  # the restriction lifted…
    await game.service.bot_added(GROUP, "group", "Friends")  # …as my_chat_member tells the bot
    await game.move()
    assert len(fake.calls_of("sendPhoto")) == 2  # pictures again, at once
    assert await game.given_up() == []


async def test_a_table_edited_by_one_worker_waits_its_throttle_at_another(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    """The table's throttle counts from its last edit as stored: a second worker does not edit a table
    the first edited a moment ago (two workers would each edit it as often as the setting allows)."""
    game = await FakeGame(sessions, clock, fake, bot).start()
    await game.move()  # the first worker edits the table
    other = Delivery(bot, Codec(b"k"), "shithead_bot", table_seconds=60)
    game.delivery = other
    edits = len(fake.calls_of("editMessageMedia"))
    await game.move()
    assert len(fake.calls_of("editMessageMedia")) == edits  # put off: edited a moment ago
    clock.advance(seconds=61)
    await game.deliver()
    assert len(fake.calls_of("editMessageMedia")) == edits + 1  # once its minute is over
