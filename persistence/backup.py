"""A copy of the database while the bot runs: SQLite's online backup API (a consistent copy even
with writers at work), or, for PostgreSQL, the ``pg_dump`` line that makes one."""

from __future__ import annotations

import shlex
import sqlite3
from pathlib import Path

from sqlalchemy.engine import URL, make_url

from persistence.db import is_sqlite
from persistence.migrate import missing_sqlite_file


class BackupError(RuntimeError):
    """The backup cannot be made (said in one line)."""


def backup_sqlite(url: str, target: Path) -> Path:
    """Copy the SQLite database at ``url`` to ``target`` page by page; returns the source file."""
    database = make_url(url).database
    if not database or database == ":memory:" or missing_sqlite_file(url):
        raise BackupError(f"no SQLite file at {database or url}")
    if target.exists():
        raise BackupError(f"{target} exists already; give a new file")
    source = Path(database)
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    return source


def pg_dump_line(url: str, target: Path) -> str:
    """The command that backs a PostgreSQL database up to ``target`` (the password left out)."""
    given = make_url(url)
    plain = URL.create("postgresql", given.username, None, given.host, given.port, given.database, given.query)
    address = plain.render_as_string(hide_password=False)
    prefix = "PGPASSWORD=… " if given.password else ""
    return f"{prefix}pg_dump --format=custom --file={shlex.quote(str(target))} {shlex.quote(address)}"


def backup(url: str, target: Path) -> str:
    """Back up (SQLite) or say how to (PostgreSQL); the line to print."""
    if is_sqlite(url):
        return f"backed up {backup_sqlite(url, target)} to {target}"
    return pg_dump_line(url, target)
