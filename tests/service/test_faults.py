"""Database faults under a use case: a connection that dies mid-transaction is retried, on a
fresh connection, and the move is neither lost nor applied twice."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event, select

from persistence.db import make_engine, make_sessionmaker
from persistence.models import Move
from testkit.clock import FakeClock
from tests.service.helpers import lobby_with, make_service, user


def kill_own_connection_on(engine: Any, marker: str, times: int = 1) -> list[str]:
    """Before the next ``times`` statements that contain ``marker``, the connection terminates its
    own PostgreSQL backend: the statement then fails as on a server restart."""
    killed: list[str] = []

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def kill(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if marker in statement and len(killed) < times:
            killed.append(statement.split()[0])
            cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")

    return killed


@pytest.mark.parametrize("marker", ["UPDATE game", "INSERT INTO move", "INSERT INTO outbox"])
async def test_a_connection_killed_mid_move_is_retried(pg_db_url: str, clock: FakeClock, marker: str) -> None:
    engine = make_engine(pg_db_url)
    sessions = make_sessionmaker(engine)
    service = make_service(sessions, clock)
    game_id = await lobby_with(service, humans=2)
    await service.start(game_id, user(0).id)
    version = (await service.game_view(game_id)).seat(0).keyboard_version
    killed = kill_own_connection_on(engine, marker)
    result = await service.play(game_id, user(0).id, "r", version)
    assert killed, "the fault was injected"
    assert result.version == version + 1
    async with sessions() as session:
        ready = (await session.execute(select(Move).where(Move.game_id == game_id, Move.move == "r"))).all()
    assert len(ready) == 1
    await engine.dispose()


async def test_a_second_fault_in_a_row_is_retried_too(pg_db_url: str, clock: FakeClock) -> None:
    """A failover or a killer of idle backends can drop the retry's connection as well."""
    engine = make_engine(pg_db_url)
    service = make_service(make_sessionmaker(engine), clock)
    game_id = await lobby_with(service, humans=2)
    killed = kill_own_connection_on(engine, "UPDATE game", times=2)
    await service.start(game_id, user(0).id)
    assert len(killed) == 2
    assert (await service.game_view(game_id)).game.status == "swapping"
    await engine.dispose()


async def test_faults_on_more_attempts_in_a_row_are_retried_within_the_time_budget(
    pg_db_url: str, clock: FakeClock
) -> None:
    """More faults in a row than the three attempts of old (a loaded machine meets more of a
    backend killer's rounds per use case): retried while the time budget lasts."""
    from shithead_bot.service.faults import MIN_ATTEMPTS

    engine = make_engine(pg_db_url)
    service = make_service(make_sessionmaker(engine), clock)
    game_id = await lobby_with(service, humans=2)
    killed = kill_own_connection_on(engine, "UPDATE game", times=MIN_ATTEMPTS + 3)
    await service.start(game_id, user(0).id)
    assert len(killed) == MIN_ATTEMPTS + 3
    assert (await service.game_view(game_id)).game.status == "swapping"
    await engine.dispose()


async def test_a_fault_on_every_attempt_is_reported(
    pg_db_url: str, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sqlalchemy.exc import DBAPIError

    from shithead_bot.service import faults

    monkeypatch.setattr(faults, "RETRY_SECONDS", 0.0)  # the time budget spent: the fewest attempts
    engine = make_engine(pg_db_url)
    service = make_service(make_sessionmaker(engine), clock)
    game_id = await lobby_with(service, humans=2)
    killed = kill_own_connection_on(engine, "UPDATE game", times=100)
    with pytest.raises(DBAPIError):
        await service.start(game_id, user(0).id)
    assert len(killed) == faults.MIN_ATTEMPTS
    killed.extend(["done"] * 100)  # no more faults
    assert (await service.game_view(game_id)).game.status == "lobby"  # and the pool works again
    await engine.dispose()


def transient() -> Exception:
    from sqlalchemy.exc import DBAPIError

    return DBAPIError("UPDATE game", {}, ConnectionError("connection was closed"), connection_invalidated=True)


async def test_the_retry_lasts_its_time_budget_then_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    """No database needed, and a clock of our own: a use case that always meets a transient fault
    is tried again, after pauses growing to the most, until the next pause would pass the budget;
    one that meets another error is not tried again."""
    from sqlalchemy.exc import DBAPIError

    from shithead_bot.service import faults

    now = [100.0]
    pauses: list[float] = []

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)
        now[0] += seconds

    monkeypatch.setattr(faults, "_now", lambda: now[0])
    monkeypatch.setattr(faults, "_sleep", sleep)
    calls: list[float] = []

    @faults.retry_transient
    async def always_failing() -> None:
        calls.append(now[0])
        raise transient()

    with pytest.raises(DBAPIError):
        await always_failing()
    assert pauses[:4] == [faults.FIRST_PAUSE * 2**n for n in range(4)]
    assert max(pauses) == faults.MAX_PAUSE
    assert sum(pauses) <= faults.RETRY_SECONDS < sum(pauses) + faults.MAX_PAUSE  # the whole budget, no more
    assert len(calls) == len(pauses) + 1

    other: list[int] = []

    @faults.retry_transient
    async def broken() -> None:
        other.append(1)
        raise DBAPIError("SELECT 1", {}, ValueError("syntax error"))

    with pytest.raises(DBAPIError):
        await broken()
    assert other == [1]


def test_a_driver_protocol_error_after_a_dropped_connection_is_transient() -> None:
    """asyncpg reports a connection its server dropped mid-message as an InternalClientError (its
    protocol was left in an unexpected state): a fresh connection does not meet it again, so the use
    case is tried again rather than the press answered "Something went wrong" (a CI run under load
    had three such presses in test_db_faults)."""
    import asyncpg
    from sqlalchemy.exc import DBAPIError

    from shithead_bot.service.faults import is_transient

    class AdaptedError(Exception):  # how SQLAlchemy's asyncpg adapter wraps the driver's error
        pass

    orig = AdaptedError("<class 'asyncpg.exceptions._base.InternalClientError'>: unknown error in protocol")
    orig.__cause__ = asyncpg.exceptions.InternalClientError("unknown error in protocol implementation")
    assert is_transient(DBAPIError("SELECT 1", {}, orig))
    assert not is_transient(DBAPIError("SELECT 1", {}, AdaptedError("syntax error at or near")))
