"""``shithead-bot restore FILE`` puts a backup back: SQLite in place (the database it replaces kept
beside it), PostgreSQL by the ``pg_restore`` line it prints — run here, with the ``pg_dump`` line
``backup`` prints, against a real server. The first test runs ``backup`` and ``restore`` in processes
of their own; the others call ``main`` in the test's process (tests/test_cli_data.py ``cli_here``)."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import text

from persistence.db import make_engine, make_sessionmaker, transaction
from persistence.migrate import head_revision, upgrade
from persistence.models import Chat
from tests.test_cli_data import _two_games, cli, cli_here

GAMES = "SELECT id, seed, status FROM game ORDER BY id"
CHATS = "SELECT id FROM chat ORDER BY id"


def rows(path: Path, query: str = GAMES) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(query).fetchall()


def test_restore_puts_a_sqlite_backup_back_and_keeps_what_it_replaces(tmp_path: Path) -> None:
    path = tmp_path / "shithead.db"
    url = f"sqlite+aiosqlite:///{path}"
    upgrade(url)
    asyncio.run(_two_games(url))
    backup = tmp_path / "backup.db"
    assert cli("backup", str(backup), env={"DATABASE_URL": url}).returncode == 0
    saved = rows(path)
    asyncio.run(add_chat(url, -500))  # a chat the bot met after the backup
    later = rows(path, CHATS)
    assert (-500,) in later
    done = cli("restore", str(backup), env={"DATABASE_URL": url}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert rows(path) == saved
    assert (-500,) not in rows(path, CHATS)
    (kept,) = tmp_path.glob("shithead.db.before-restore-*")
    assert rows(kept, CHATS) == later
    assert done.stdout.strip().splitlines() == [
        f"restored {backup} into {path} (schema at {head_revision()}); the database it replaced is now {kept}"
    ]


def test_restore_into_a_new_place(tmp_path: Path) -> None:
    source = tmp_path / "source.db"
    upgrade(f"sqlite+aiosqlite:///{source}")
    asyncio.run(_two_games(f"sqlite+aiosqlite:///{source}"))
    target = tmp_path / "new" / "shithead.db"
    target.parent.mkdir()
    done = cli_here("restore", str(source), "--database-url", f"sqlite:///{target}")
    assert done.returncode == 0, done.stderr
    assert rows(target) == rows(source)
    assert done.stdout.strip() == f"restored {source} into {target} (schema at {head_revision()})"


@pytest.mark.parametrize("content", [b"not a database", b""])
def test_restore_refuses_a_file_that_is_not_a_backup_and_changes_nothing(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "shithead.db"
    url = f"sqlite+aiosqlite:///{path}"
    upgrade(url)
    before = path.read_bytes()
    bogus = tmp_path / "bogus.db"
    bogus.write_bytes(content)
    done = cli_here("restore", str(bogus), env={"DATABASE_URL": url})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"shithead-bot: {bogus} is not a backup of this bot's database"]
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("*.before-restore-*"))


def test_restore_of_a_missing_file_is_one_line(tmp_path: Path) -> None:
    done = cli_here("restore", str(tmp_path / "none.db"), env={"DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}"})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"shithead-bot: no file {tmp_path / 'none.db'}"]


async def count_chats(url: str) -> int:
    engine = make_engine(url)
    try:
        async with engine.connect() as connection:
            return int((await connection.execute(text("SELECT count(*) FROM chat"))).scalar_one())
    finally:
        await engine.dispose()


async def add_chat(url: str, chat_id: int) -> None:
    engine = make_engine(url)
    try:
        async with transaction(make_sessionmaker(engine)) as session:
            session.add(Chat(id=chat_id))
    finally:
        await engine.dispose()


@pytest.mark.skipif(not (shutil.which("pg_dump") and shutil.which("pg_restore")), reason="no pg_dump/pg_restore")
def test_postgresql_backup_and_restore_lines_round_trip(pg_db_url: str, tmp_path: Path) -> None:
    asyncio.run(add_chat(pg_db_url, -1))
    dump = tmp_path / "bot.dump"
    backup_line = cli_here("backup", str(dump), env={"DATABASE_URL": pg_db_url}).stdout.strip()
    subprocess.run(backup_line, shell=True, check=True)
    asyncio.run(add_chat(pg_db_url, -2))
    assert asyncio.run(count_chats(pg_db_url)) == 2
    done = cli_here("restore", str(dump), env={"DATABASE_URL": pg_db_url})
    assert done.returncode == 0, done.stderr
    (restore_line,) = done.stdout.strip().splitlines()
    assert restore_line.startswith("pg_restore ")
    subprocess.run(restore_line, shell=True, check=True, capture_output=True)
    assert asyncio.run(count_chats(pg_db_url)) == 1
