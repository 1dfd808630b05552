"""Faults around the handlers, through the bot's handlers on the fake Bot API: what follows a done
use case cannot turn it into a failure, each refusal fits what the person did (a command is never
answered with a button's words), and the error handler logs a passing fault in one line and never
fails itself."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut

from shithead_bot.config import Settings
from shithead_bot.telegram.app import build_application
from shithead_bot.telegram.handlers.updates import passing
from shithead_bot.telegram.serve import start_polling
from testkit.fakebot import FakeTelegram
from tests.service.helpers import GROUP, lobby_with, user
from tests.telegram.inbot import InBot, TickingClock


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_confirmed_forfeit_then_a_block_is_no_error(
    sessions: async_sessionmaker[AsyncSession], fake: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    async with InBot(sessions, TickingClock(), fake) as bot:
        game_id = await bot.start(humans=3)
        leaving = user(2).id
        await bot.say(leaving, "/forfeit")
        press = await bot.press(leaving, bot.private(leaving)[-1], "🏳 Yes, leave")
        fake.block_bot(leaving)  # the confirmation's edit meets 403 Forbidden
        with caplog.at_level(logging.INFO):
            await bot.handle()
        game = await bot.service.game_view(game_id)
        assert game.seat_of(leaving) is not None
        assert game.seat_of(leaving).forfeited  # type: ignore[union-attr]
        answer = await press.answer()
        assert answer is None or "wrong" not in (answer.text or "")
        assert errors(caplog) == []


async def test_a_join_link_or_button_after_the_start_says_the_game_has_started(
    sessions: async_sessionmaker[AsyncSession], fake: FakeTelegram
) -> None:
    async with InBot(sessions, TickingClock(), fake) as bot:
        game_id = await lobby_with(bot.service, humans=2)
        await bot.ctx.deliver(game_id)  # the lobby, with its Join button
        lobby = next(m for m in fake.messages(GROUP, as_user=user(0).id) if m.buttons)
        await bot.service.start(game_id, user(0).id)  # its table not sent yet: Join still shows
        late = user(2).id
        press = await bot.press(late, lobby, "✋ Join")
        fake.open_deep_link(late, bot.ctx.deep_link("join", game_id))  # a few seconds after Start
        await bot.handle()
        said = f"Game #{game_id} has already started: it is too late to join it."
        answer = await press.answer()
        assert answer is not None
        assert answer.text == said
        assert bot.last_private(late) == said
        assert (await bot.service.game_view(game_id)).seat_of(late) is None


def failures(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What the error handler logged about failed updates."""
    return [r for r in caplog.records if r.name == "shithead_bot" and " failed: " in r.getMessage()]


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.exc_info and r.levelno >= logging.INFO]


async def test_a_press_during_a_bot_api_outage_is_one_warning_and_the_error_handler_does_not_fail(
    sessions: async_sessionmaker[AsyncSession], fake: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    async with InBot(sessions, TickingClock(), fake) as bot:
        await bot.start()
        await bot.say(user(1).id, "/away")
        press = await bot.press(user(1).id, bot.private(user(1).id)[-1], "1d")
        fake.start_outage()  # 502 Bad Gateway to every call: the press's edit and its answer too
        with caplog.at_level(logging.INFO):
            await bot.handle()
        fake.end_outage()
        assert errors(caplog) == []
        assert tracebacks(caplog) == []
        [failed] = failures(caplog)
        assert failed.levelno == logging.WARNING
        assert "Bad Gateway" in failed.getMessage()
        assert not press.answered.is_set()  # it could not be answered: no matter
        assert await bot.service.away_until(user(1).id) is not None  # the use case was done


async def test_a_command_while_the_database_is_down_is_one_warning_and_answered(
    sessions: async_sessionmaker[AsyncSession],
    fake: FakeTelegram,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def unreachable(*_: object, **__: object) -> None:
        raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")

    async with InBot(sessions, TickingClock(), fake) as bot:
        await bot.start()
        monkeypatch.setattr(bot.service, "away_until", unreachable)
        with caplog.at_level(logging.INFO):
            await bot.say(user(1).id, "/away")
        assert errors(caplog) == []
        assert tracebacks(caplog) == []
        [failed] = failures(caplog)
        assert failed.levelno == logging.WARNING
        assert "ConnectionRefusedError" in failed.getMessage()
        assert bot.last_private(user(1).id) == "Something went wrong; please try again."


async def test_polling_through_a_bot_api_outage_logs_one_warning_line_per_failure(
    fake: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    app = build_application(Settings(telegram_api_url=fake.base_url), fake.token)
    async with app:
        fake.start_outage(from_method="getUpdates")  # 502 Bad Gateway from the first poll on
        with caplog.at_level(logging.INFO):
            await start_polling(app)
            await fake.wait_for(lambda: len([c for c in fake.calls_of("getUpdates") if not c.ok]) >= 2)
            fake.end_outage()  # (PTB's last getUpdates on stopping would fail and say so: not our line)
            await app.updater.stop()  # type: ignore[union-attr]
    assert tracebacks(caplog) == []
    assert errors(caplog) == []
    polls = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(polls) >= 2
    assert {r.levelno for r in polls} == {logging.WARNING}
    assert all("Bad Gateway" in r.getMessage() for r in polls)


@pytest.mark.parametrize(
    ("error", "passes"),
    [
        (NetworkError("Bad Gateway"), True),
        (TimedOut(), True),
        (RetryAfter(timedelta(seconds=3)), True),
        (ConnectionRefusedError(111, "Connect call failed"), True),
        (OperationalError("SELECT 1", {}, Exception("server closed the connection unexpectedly")), True),
        (OperationalError("SELECT 1", {}, Exception("database is locked")), True),
        (BadRequest("Can't parse entities"), False),
        (Forbidden("bot was blocked by the user"), False),
        (OperationalError("SELECT 1", {}, Exception("no such table: game")), False),
        (IntegrityError("UPDATE game", {}, Exception("injected fault")), False),
        (ValueError("a bug"), False),
    ],
)
def test_which_faults_pass_by_themselves(error: BaseException, passes: bool) -> None:
    assert passing(error) is passes
