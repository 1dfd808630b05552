"""The inbox (📥 Your games) and digest mode, end to end through the handlers and the fake Bot API:
one message a player, kept current by edits that never notify, its games longest wait first with
buttons that bring each game's live message back; /games retires the previous one; in digest mode
turns come silently and the inbox notifies at most once an interval, never in quiet hours."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from engine.ai import make_player
from persistence import repo
from shithead_bot.service import Autoplay, Notify
from shithead_bot.service.inbox import parse_digest
from shithead_bot.service.schedule import QuietHours, SettingError
from shithead_bot.timers.sweeper import Sweeper
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from testkit.fakebot.model import SeenMessage
from tests.service.helpers import user
from tests.telegram.inbot import InBot

GROUPS = {-1001: "Alpha", -1002: "Beta", -1003: "Gamma"}
CARD = re.compile(r"[♠♥♦♣🂠]")
ME = user(0).id


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        for n in range(3):
            server.add_user(user(n).id, user(n).first_name)
            server.start_bot(user(n).id)
        for chat_id, title in GROUPS.items():
            server.add_group(chat_id, title, [user(n).id for n in range(3)])
        server.queue.pending.clear()
        yield server


async def three_games(bot: InBot, clock: FakeClock, *, notify: Notify | None = None) -> list[int]:
    """User 0 in a game in each group (with user 1, or 2), dealt a minute apart: all wait on them (the swap)."""
    for n in range(3):
        await bot.service.see_user(user(n), can_message=True)
        await bot.service.set_autoplay(user(n), Autoplay.OFF)
    if notify is not None:
        await bot.service.set_notify(user(0), notify)
    games = []
    for i, (chat_id, title) in enumerate(GROUPS.items()):
        lobby = await bot.service.open_lobby(chat_id, user(0), chat_title=title)
        await bot.service.join(lobby.game_id, user(1 + i % 2))
        await bot.service.start(lobby.game_id, user(0).id)
        await bot.ctx.deliver(lobby.game_id)
        games.append(lobby.game_id)
        clock.advance(minutes=1)
    return games


def inboxes(bot: InBot) -> list[SeenMessage]:
    return [m for m in bot.private(ME) if m.text.startswith("📥")]


async def ready(bot: InBot, game_id: int, player_id: int) -> None:
    view = await bot.service.game_view(game_id)
    seat = next(s for s in view.seats if s.player_id == player_id)
    await bot.service.play(game_id, player_id, "r", seat.keyboard_version)
    await bot.ctx.deliver(game_id)


async def test_the_inbox_lists_the_games_longest_wait_first_and_is_edited_as_turns_move(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        alpha, beta, gamma = await three_games(bot, clock)
        assert not inboxes(bot)  # none until they ask
        await bot.say(ME, "/games")
        [box] = inboxes(bot)
        mine = box.text.split("Waiting on others")[0]
        assert mine.index("Alpha") < mine.index("Beta") < mine.index("Gamma")  # the longest wait first
        assert box.date_times()  # the deadlines, in each reader's own time zone
        assert not CARD.search(box.text)  # no card, ever
        before = len(bot.private(ME))

        await ready(bot, alpha, ME)  # their turn in Alpha is over: Alpha waits on user 1 now
        [edited] = inboxes(bot)
        assert edited.message_id == box.message_id
        assert edited.edited
        mine, others = edited.text.split("Waiting on others")
        assert "Alpha" not in mine
        assert "Alpha" in others
        assert "User1" in others
        assert "Beta" in mine
        assert "Gamma" in mine
        versions = [m for m in fake.history(ME) if m.message_id == box.message_id]
        assert all(not m.silent or m.version == 0 for m in versions)  # an edit never notifies anyway
        new = [m for m in bot.private(ME)[before:] if m.text.startswith("📥")]
        assert not new  # no new inbox message

        await ready(bot, alpha, user(1).id)  # the play begins in Alpha: someone's turn
        await ready(bot, gamma, user(1).id)  # nothing changes for user 0 in Gamma's line
        assert len(inboxes(bot)) == 1

        await bot.press(ME, inboxes(bot)[0], f"👉 #{beta} Beta")
        await bot.handle()
        copy = bot.private(ME)[-1]
        assert not copy.text.startswith("📥")
        assert copy.buttons
        assert gamma


async def test_games_sends_the_inbox_anew_and_retires_the_previous_one(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        await three_games(bot, clock)
        await bot.say(ME, "/games")
        [first] = inboxes(bot)
        await bot.say(ME, "/games", chat_id=-1002)  # from a group: it comes in private all the same
        [second] = inboxes(bot)
        assert second.message_id != first.message_id  # the old one is gone: one live inbox
        assert not any(m.text.startswith("📥") for m in fake.messages(-1002, as_user=ME))


async def test_a_deleted_inbox_is_forgotten_not_sent_again(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        alpha, _, _ = await three_games(bot, clock)
        await bot.say(ME, "/games")
        [box] = inboxes(bot)
        found = fake.world.message(ME, box.message_id)
        assert found is not None
        found.deleted = True  # the player deleted it
        await ready(bot, alpha, ME)
        assert not inboxes(bot)
        async with sessions() as session:
            player = await repo.get_player(session=session, player_id=ME)
            assert player is not None
            assert player.inbox_message_id is None


def notifying_inboxes(fake: FakeTelegram) -> list[SeenMessage]:
    return [m for m in fake.history(ME) if m.text.startswith("📥") and m.version == 0 and not m.silent]


async def sweep_hours(bot: InBot, clock: FakeClock, fake: FakeTelegram, hours: int) -> list[float]:
    """The timer sweep every 15 minutes for ``hours``: when a notifying inbox came (hours from now)."""
    sweeper, start, sent = Sweeper(bot.service, bot.ctx.deliver), clock(), []
    for _ in range(4 * hours):
        before = len(notifying_inboxes(fake))
        await sweeper.sweep()
        if len(notifying_inboxes(fake)) > before:
            sent.append((clock() - start).total_seconds() / 3600)
        clock.advance(minutes=15)
    return sent


async def their_turn_in(bot: InBot, game_id: int) -> None:
    """Both press Ready; user 1 plays until it is user 0's turn."""
    await ready(bot, game_id, ME)
    await ready(bot, game_id, user(1).id)
    for _ in range(20):
        view = await bot.service.game_view(game_id)
        assert view.state is not None
        number = view.state.to_act
        assert number is not None
        if view.seat(number).player_id == ME:
            return
        move = make_player("normal", 1).choose(view.state.view(number))
        await bot.service.play(game_id, user(1).id, move, view.seat(number).keyboard_version)
        await bot.ctx.deliver(game_id)
    raise AssertionError("never user 0's turn")


async def test_digest_mode_turns_are_silent_and_the_inbox_notifies_at_most_once_an_interval(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        alpha, _, _ = await three_games(bot, clock, notify=Notify.DIGEST)
        turns = [m for m in fake.history(ME) if m.from_bot and m.version == 0 and not m.text.startswith("📥")]
        assert turns
        assert all(m.silent for m in turns)  # the swap messages came silently
        assert await sweep_hours(bot, clock, fake, 1) == [0.0]  # one digest tells all three games
        await their_turn_in(bot, alpha)  # a new turn an hour later: news, but the interval is 4 h
        later = await sweep_hours(bot, clock, fake, 10)
        assert later == [3.0], later  # at 4 h from the first, and once: nothing new since
        assert len(inboxes(bot)) == 1  # each digest retired the one before
        newest = [m for m in fake.history(ME) if m.version == 0 and not m.text.startswith("📥")][-1]
        assert newest.silent  # the new turn too


async def test_digest_mode_sends_nothing_in_quiet_hours(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        await bot.service.see_user(user(0), can_message=True)
        await bot.service.set_quiet_hours(ME, QuietHours.parse("11:00-15:00 UTC"))  # 12:00 now
        await three_games(bot, clock, notify=Notify.DIGEST)
        sweeper = Sweeper(bot.service, bot.ctx.deliver)
        for _ in range(4 * 5):
            await sweeper.sweep()
            if clock().hour < 15:
                assert not notifying_inboxes(fake), clock()
            clock.advance(minutes=15)
        assert len(notifying_inboxes(fake)) == 1  # when the quiet hours ended


def test_the_digest_interval_is_read_or_refused() -> None:
    assert parse_digest("30m") == 1800
    assert parse_digest("2h") == 7200
    assert parse_digest("1d") == 86400
    for nonsense in ("soon", "5m", "8d", "-1h", "4"):
        with pytest.raises(SettingError):
            parse_digest(nonsense)


async def test_settings_digest_and_notify_digest_answer_in_one_place(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        await bot.say(ME, "/settings notify digest")
        assert "(digest)" in bot.last_private(ME)
        assert "4 h" in bot.last_private(ME)
        await bot.say(ME, "/settings digest 2h")
        assert "2 h" in bot.last_private(ME)
        assert await bot.service.digest_of(ME) == (Notify.DIGEST, 7200)
        await bot.say(ME, "/settings digest often")
        refusal = bot.last_private(ME)
        assert "\n" not in refusal
        assert "often" in refusal
        assert await bot.service.digest_of(ME) == (Notify.DIGEST, 7200)


async def test_a_command_in_the_private_chat_counts_as_looking(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram
) -> None:
    async with InBot(sessions, clock, fake) as bot:
        await bot.service.see_user(user(0), can_message=True)
        clock.advance(minutes=3)
        await bot.say(ME, "/help")
        async with sessions() as session:
            player = await repo.get_player(session=session, player_id=ME)
            assert player is not None
            assert player.last_active_at is not None
            assert abs(player.last_active_at - clock()) < timedelta(seconds=5)
