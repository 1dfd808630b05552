"""Alembic migrations create exactly the models' schema, on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

from persistence.db import make_engine
from persistence.migrate import (
    SchemaOutOfDateError,
    current_revision,
    head_revision,
    newest_revision,
    pending,
    require_current,
    upgrade,
)


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, SQLModel.metadata))


async def schema_diff(url: str) -> list[object]:
    engine = make_engine(url)
    async with engine.connect() as connection:
        diff = await connection.run_sync(_diff)
    await engine.dispose()
    return diff


def test_migrations_match_the_models(db_url: str) -> None:
    assert asyncio.run(schema_diff(db_url)) == []
    assert current_revision(db_url) == head_revision()


def test_indexes_exist(db_url: str) -> None:
    async def names() -> set[str]:
        engine = make_engine(db_url)
        async with engine.connect() as connection:
            found = await connection.run_sync(
                lambda c: {i["name"] for t in ("game", "seat", "outbox") for i in inspect(c).get_indexes(t)}
            )
        await engine.dispose()
        return found

    assert {"uq_game_open_per_chat", "ix_game_due", "ix_outbox_undelivered", "ix_seat_player_id"} <= asyncio.run(
        names()
    )


def test_an_empty_sqlite_file_is_migrated_from_nothing(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
    assert pending(url)
    with pytest.raises(SchemaOutOfDateError, match="shithead-bot migrate"):
        require_current(url)
    upgrade(url)
    assert not pending(url)
    require_current(url)
    upgrade(url)  # a second run changes nothing
    assert asyncio.run(schema_diff(url)) == []


def test_the_newest_revision_read_from_the_scripts_is_alembics_head() -> None:
    assert newest_revision() == head_revision()


def test_a_database_at_the_newest_revision_starts_without_alembic(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every start after a release's first finds its database current by one query: Alembic and its
    scripts are not loaded (most of a start's work before); a database behind still gets them."""
    import alembic.command

    def refuse(*args: object) -> None:
        raise AssertionError("Alembic was asked")

    monkeypatch.setattr(alembic.command, "upgrade", refuse)
    upgrade(db_url)
    require_current(db_url)
    assert not pending(db_url)
    behind = f"sqlite+aiosqlite:///{tmp_path / 'behind.db'}"
    with pytest.raises(AssertionError, match="Alembic was asked"):
        upgrade(behind)


def test_upgrading_a_database_with_games_in_it(tmp_path: Path) -> None:
    """Each revision applies to a database that already holds data (not only to an empty one)."""
    from sqlalchemy import text

    from persistence.migrate import upgrade as up

    path = f"sqlite+aiosqlite:///{tmp_path / 'stepwise.db'}"

    async def add_game() -> None:
        engine = make_engine(path)
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO chat (id, kind, title, game_kind, preset, house_rules, max_timeouts, "
                    "deadlines_skip_quiet, bot_present, created_at, updated_at) VALUES (-1, 'group', "
                    "'t', 'shithead', 'standard', '{}', 3, 0, 1, '2026-01-01', '2026-01-01')"
                )
            )
            await conn.execute(
                text(
                    "INSERT INTO game (chat_id, kind, status, rules, seed, dealer, version, move_count, "
                    "created_at, updated_at, reminders_sent) VALUES (-1, 'shithead', 'lobby', '{}', 0, "
                    "0, 1, 0, '2026-01-01', '2026-01-01', 0)"
                )
            )
        await engine.dispose()

    async def votes() -> list[object]:
        engine = make_engine(path)
        async with engine.connect() as conn:
            rows = (await conn.execute(text("SELECT pause_votes FROM game"))).all()
        await engine.dispose()
        return [r[0] for r in rows]

    up(path, "0001")
    asyncio.run(add_game())
    up(path)
    assert asyncio.run(votes()) == ["[]"]
