"""A copy of the database while the bot runs: SQLite's online backup API (a consistent copy even
with writers at work), or, for PostgreSQL, the ``pg_dump`` line that makes one; and the way back:
a SQLite backup copied into place (the database it replaces kept beside it), or the ``pg_restore``
line for a PostgreSQL dump."""

from __future__ import annotations

import shlex
import sqlite3
from datetime import UTC, datetime
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


def _libpq_address(url: str) -> tuple[str, str]:
    """The ``postgresql://`` address PostgreSQL's tools take (the password left out), and the
    ``PGPASSWORD=… `` prefix to put before the command when there is one to give."""
    given = make_url(url)
    query = {("sslmode" if k == "ssl" else k): v for k, v in given.query.items()}  # asyncpg's ssl is libpq's sslmode
    plain = URL.create("postgresql", given.username, None, given.host, given.port, given.database, query)
    return plain.render_as_string(hide_password=False), "PGPASSWORD=… " if given.password else ""


def pg_dump_line(url: str, target: Path) -> str:
    """The command that backs a PostgreSQL database up to ``target`` (the password left out)."""
    address, prefix = _libpq_address(url)
    return f"{prefix}pg_dump --format=custom --file={shlex.quote(str(target))} {shlex.quote(address)}"


def pg_restore_line(url: str, source: Path) -> str:
    """The command that puts a ``pg_dump`` file back: the bot's tables are dropped and recreated from
    it, in one transaction (all or nothing)."""
    address, prefix = _libpq_address(url)
    options = "--clean --if-exists --no-owner --single-transaction --exit-on-error"
    return f"{prefix}pg_restore {options} --dbname={shlex.quote(address)} {shlex.quote(str(source))}"


def backup_revision(source: Path) -> str:
    """The schema revision of a SQLite backup; BackupError when ``source`` is not one."""
    if not source.is_file():
        raise BackupError(f"no file {source}")
    try:
        with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as db:
            if db.execute("PRAGMA quick_check").fetchone() != ("ok",):
                raise sqlite3.DatabaseError("damaged")
            (revision,) = db.execute("SELECT version_num FROM alembic_version").fetchone()
    except (sqlite3.Error, TypeError):  # not SQLite, damaged, or without our schema
        raise BackupError(f"{source} is not a backup of this bot's database") from None
    return str(revision)


def restore_sqlite(url: str, source: Path, now: datetime | None = None) -> tuple[Path, str, Path | None]:
    """Copy the backup ``source`` into the SQLite database at ``url`` page by page (the bot must be
    stopped). The database it replaces is first copied to ``<file>.before-restore-<UTC time>``.
    Returns the database file, the backup's revision and where the old database went (if any)."""
    revision = backup_revision(source)
    database = make_url(url).database
    if not database or database == ":memory:":
        raise BackupError(f"no SQLite file to restore into in {url}")
    target = Path(database)
    kept = None
    if target.exists():
        stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
        kept = target.with_name(f"{target.name}.before-restore-{stamp}")
        backup_sqlite(url, kept)
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    return target, revision, kept


def restore(url: str, source: Path) -> str:
    """Restore (SQLite) or say how to (PostgreSQL); the line to print."""
    if not is_sqlite(url):
        if not source.is_file():
            raise BackupError(f"no file {source}")
        return pg_restore_line(url, source)
    target, revision, kept = restore_sqlite(url, source)
    done = f"restored {source} into {target} (schema at {revision})"
    return f"{done}; the database it replaced is now {kept}" if kept else done


def backup(url: str, target: Path) -> str:
    """Back up (SQLite) or say how to (PostgreSQL); the line to print."""
    if is_sqlite(url):
        return f"backed up {backup_sqlite(url, target)} to {target}"
    return pg_dump_line(url, target)
