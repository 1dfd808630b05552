"""/away and its buttons through the bot's handlers, on the fake Bot API: the documented range is
accepted however the clock moves between the handler and its use case, a refusal says the range,
and what follows a done use case (an edit, a reply) cannot turn it into a failure."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlmodel import col

from persistence import repo
from persistence.models import Game
from shithead_bot.i18n import translations
from shithead_bot.service import StaleVersionError
from shithead_bot.service.away import AwayTooLongError
from shithead_bot.telegram.render.replies import refusal
from testkit.fakebot import FakeTelegram
from tests.service.helpers import user
from tests.telegram.inbot import InBot, TickingClock

LIST_GAMES = repo.games_of_player


@pytest.mark.parametrize("duration", ["10m", "60d"])
async def test_away_for_the_shortest_and_longest_documented_time_is_accepted(
    sessions: async_sessionmaker[AsyncSession], fake: FakeTelegram, duration: str
) -> None:
    clock = TickingClock()  # later in the use case than in the handler, as a real clock is
    async with InBot(sessions, clock, fake) as bot:
        await bot.start()
        await bot.say(user(1).id, f"/away {duration}")
        assert bot.last_private(user(1).id).startswith("🌴 You are away until"), bot.last_private(user(1).id)
        assert await bot.service.away_until(user(1).id) is not None


def test_a_refused_away_time_says_the_range_in_the_readers_language() -> None:
    refused = AwayTooLongError("away until …")
    english, french = refusal(refused, translations("en")), refusal(refused, translations("fr"))
    assert "10 minutes" in english
    assert "60 days" in english
    assert "10 minutes" in french
    assert "60 jours" in french


async def test_a_press_of_i_am_back_then_a_block_is_no_error(
    sessions: async_sessionmaker[AsyncSession], fake: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    async with InBot(sessions, TickingClock(), fake) as bot:
        await bot.start()
        away = user(1).id
        await bot.say(away, "/away 3d")
        await bot.say(away, "/away")  # the durations, and "I am back"
        press = await bot.press(away, bot.private(away)[-1], "👋 I am back")
        fake.block_bot(away)  # within a second: the edit of the pressed message meets 403 Forbidden
        with caplog.at_level(logging.INFO):
            await bot.handle()
        assert await bot.service.away_until(away) is None  # back: that worked
        answer = await press.answer()
        assert answer is not None
        assert answer.text == "👋 Welcome back: your turns are yours again."
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


async def test_away_then_a_block_before_the_answer_is_no_error(
    sessions: async_sessionmaker[AsyncSession], fake: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    async with InBot(sessions, TickingClock(), fake) as bot:
        await bot.start()
        away = user(1).id
        await fake.send_text(away, away, "/away 30m")
        fake.block_bot(away)  # the answer, in private, meets 403 Forbidden
        with caplog.at_level(logging.INFO):
            await bot.handle()
        assert await bot.service.away_until(away) is not None
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


async def changed_meanwhile(session: AsyncSession, player_id: int) -> list[repo.PlayerGame]:
    """The player's games, listed; then each changes, as another worker's commit (a timer fired, a
    delivery report) changes it before the use case locks it. (The change is made in the listing's
    own transaction, since SQLite lets no other writer in; PostgreSQL's locking read sees another
    transaction's commit just the same.)"""
    found = await LIST_GAMES(session=session, player_id=player_id)
    for game in found:
        change = update(Game).where(col(Game.id) == game.game.id).values(version=Game.version + 1)
        await session.execute(change.execution_options(synchronize_session=False))
    return found


async def test_away_while_a_game_changes_under_it_is_done(
    sessions: async_sessionmaker[AsyncSession], fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with InBot(sessions, TickingClock(), fake) as bot:
        await bot.start()
        monkeypatch.setattr(repo, "games_of_player", changed_meanwhile)
        await bot.say(user(1).id, "/away 30m")
        assert bot.last_private(user(1).id).startswith("🌴 You are away until"), bot.last_private(user(1).id)
        await bot.say(user(1).id, "/back")
        assert bot.last_private(user(1).id) == "👋 Welcome back: your turns are yours again."


async def test_a_command_is_never_answered_with_a_buttons_words(
    sessions: async_sessionmaker[AsyncSession], fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def lost_a_race(*_: object, **__: object) -> None:
        raise StaleVersionError("the game changed under this transaction")

    async with InBot(sessions, TickingClock(), fake) as bot:
        await bot.start()
        for command, use_case in (("/away 30m", "go_away"), ("/back", "come_back")):
            monkeypatch.setattr(bot.service, use_case, lost_a_race)
            await bot.say(user(1).id, command)
            said = bot.last_private(user(1).id)
            assert "button" not in said
            assert said == "The game changed just then; please send the command again."
