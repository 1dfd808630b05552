"""The bot token appears in no output of the bot, whatever ``TELEGRAM_API_URL`` is: a URL without
``/bot`` is completed, one that cannot be a Bot API base URL is refused in one line that does not
repeat it, and every failure line, log line and ``config`` line is free of the token."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from shithead_bot.config import TELEGRAM_API_URL, Settings
from tests.test_cli_data import cli, cli_here

TOKEN = "123456:AAE-very-secret-token"
SECRET = TOKEN.partition(":")[2]
ROOT = Path(__file__).resolve().parents[1]


# Nothing listens on the discard port here. A fixed number, not a free port found at import: the
# test ids must be the same in every xdist worker, or the run stops at collection.
PORT = 9
URLS = [
    f"http://127.0.0.1:{PORT}",
    f"http://127.0.0.1:{PORT}/",
    f"http://127.0.0.1:{PORT}/bot/",
    f"http://127.0.0.1:{PORT}/telegram",
    "https://api.telegram.org:notaport",
    f"127.0.0.1:{PORT}",
    f"ftp://127.0.0.1:{PORT}/bot",
    "http://[::1",
    "http://",
    f"http://127.0.0.1:{PORT}/bot?x=1",
    f"http://127.0.0.1:{PORT}/bot#top",
    f"http://127.0.0.1:{PORT}/bot{TOKEN}",
    f"http://127.0.0.1:{PORT}/bot{TOKEN}/",
    "   ",
]


def run_with(url: str, tmp_path: Path, cli: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    env = {
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_API_URL": url,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}",
        "LOG_LEVEL": "DEBUG",
    }
    done = cli("run", env=env, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("shithead-bot: ")


@pytest.mark.parametrize("url", URLS)
def test_run_never_shows_the_token_whatever_the_api_url(url: str, tmp_path: Path) -> None:
    """Each URL through ``main`` in this process (its log and stderr captured)…"""
    run_with(url, tmp_path, cli_here)


@pytest.mark.parametrize("url", [f"http://127.0.0.1:{PORT}", f"http://127.0.0.1:{PORT}/bot{TOKEN}/"])
def test_a_bot_process_never_shows_the_token(url: str, tmp_path: Path) -> None:
    """…and, for one the bot tries to reach and one quoting the token, in a process of its own: what
    only a process shows (a warning at exit, a line a library prints itself) is free of it too."""
    run_with(url, tmp_path, cli)


@pytest.mark.parametrize("url", URLS)
def test_config_never_shows_the_token_whatever_the_api_url(url: str, tmp_path: Path) -> None:
    done = cli_here("config", env={"TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_API_URL": url}, cwd=tmp_path)
    assert SECRET not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_a_refused_url_is_one_line_naming_the_setting(tmp_path: Path) -> None:
    done = cli("run", env={"TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_API_URL": "ftp://example.org"}, cwd=tmp_path)
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("shithead-bot: TELEGRAM_API_URL: ")


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("https://api.telegram.org", TELEGRAM_API_URL),
        ("https://api.telegram.org/", TELEGRAM_API_URL),
        ("https://api.telegram.org/bot/", TELEGRAM_API_URL),
        (" https://api.telegram.org/bot ", TELEGRAM_API_URL),
        ("", TELEGRAM_API_URL),
        ("http://127.0.0.1:8081", "http://127.0.0.1:8081/bot"),
        ("http://proxy.example/telegram/", "http://proxy.example/telegram/bot"),
    ],
)
def test_a_url_without_bot_is_completed(given: str, used: str) -> None:
    assert Settings(telegram_api_url=given).telegram_api_url == used


def test_a_failure_line_that_quotes_the_token_is_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whatever a library puts in its error text, the line on stderr hides the token."""
    import logging

    from shithead_bot import runner

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # run() installs its own: undo it after
    monkeypatch.setattr(logging, "captureWarnings", lambda capture: None)
    from shithead_bot.telegram import app

    monkeypatch.setattr(app, "run_bot", lambda settings, token, *_: f"cannot reach it: bad URL …/bot{token}/getMe")
    database = f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}"
    settings = Settings(telegram_bot_token=TOKEN, database_url=database)  # type: ignore[arg-type]
    assert runner.run(settings) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == "shithead-bot: cannot reach it: bad URL …/bot<redacted>/getMe"


def test_an_uncaught_exception_quoting_the_token_is_redacted(tmp_path: Path) -> None:
    """A traceback on stderr (a bug, not a failure the bot foresaw) hides the token too."""
    script = (
        "from shithead_bot.telegram import app\n"
        "def boom(settings, token, *_):\n"
        "    raise RuntimeError(f'GET /bot{token}/getMe failed')\n"
        "app.run_bot = boom\n"
        "from shithead_bot.cli import main\n"
        "main(['run'])\n"
    )
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}",
    }
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, cwd=ROOT, env=env, timeout=120
    )
    assert done.returncode == 1
    assert "RuntimeError: GET /bot<redacted>/getMe failed" in done.stderr
    assert SECRET not in done.stderr


def test_config_hides_the_token_wherever_it_is_pasted(tmp_path: Path) -> None:
    env = {"TELEGRAM_BOT_TOKEN": TOKEN, "WEBHOOK_URL": f"https://bot.example.org/{TOKEN}"}
    done = cli("config", env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "WEBHOOK_URL=https://bot.example.org/<redacted>  (env)" in done.stdout.splitlines()
    assert SECRET not in done.stdout
