"""``shithead-bot run`` and ``migrate`` refuse cleanly, in one line, before touching Telegram."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from persistence.migrate import alembic_config, current_revision, head_revision, upgrade

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shithead_bot.cli", *args],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_no_migrate_refuses_an_out_of_date_schema(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    done = run("run", "--no-migrate", env={"TELEGRAM_BOT_TOKEN": "1:x", "DATABASE_URL": url})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"shithead-bot: database schema is at nothing, this code needs {head_revision()}: "
        "run `shithead-bot migrate` first"
    ]


def test_migrate_brings_an_empty_file_to_the_head(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'new.db'}"
    done = run("migrate", "--database-url", url, env={})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"database upgraded from nothing to {head_revision()}"
    assert current_revision(url) == head_revision()
    again = run("migrate", "--database-url", url, env={})
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == f"database already at {head_revision()}, the newest revision: nothing to do"


def test_migrate_says_from_which_revision_it_upgraded(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    older = ScriptDirectory.from_config(alembic_config(url)).get_revision(head_revision()).down_revision
    assert isinstance(older, str)
    upgrade(url, older)
    done = run("migrate", env={"DATABASE_URL": url})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"database upgraded from {older} to {head_revision()}"


def test_a_missing_token_is_one_line(tmp_path: Path) -> None:
    done = run("run", env={"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'x.db'}"})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "shithead-bot: no bot token: set TELEGRAM_BOT_TOKEN or pass --token (get one from @BotFather)"
    ]


def test_run_logs_which_engine_it_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The start-up log says whether the engine is the compiled one (how an operator checks an image)."""
    import logging
    import sys

    from engine.native import COMPILED, compiled_modules
    from shithead_bot import runner
    from shithead_bot.config import Settings
    from shithead_bot.telegram import app

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(logging, "captureWarnings", lambda capture: None)
    told: list[str] = []
    monkeypatch.setattr(app, "run_bot", lambda settings, token, engine: told.append(engine))
    caplog.set_level("INFO")
    database = f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}"
    assert runner.run(Settings(telegram_bot_token="123456:AAE-test-token", database_url=database)) == 0  # type: ignore[arg-type]
    found = len(compiled_modules())
    expected = f"compiled by mypyc ({found} of {len(COMPILED)} modules)" if found else "plain Python"
    assert told == [expected]  # logged as "engine: …" once the token is known good (a start-up failure says one line)
