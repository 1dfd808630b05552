"""The operator's commands through the real CLI: ``backup``, ``export``, ``replay``, ``ratings``,
``config`` and ``health`` — each in a process of its own at least once (:func:`cli`), the other
checks through ``main`` in the test's process (:func:`cli_here`)."""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import io
import json
import logging
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from persistence.db import make_engine, make_sessionmaker
from persistence.migrate import upgrade
from testkit.clock import FakeClock
from tests.service.helpers import lobby_with, make_service, play_humans_to_end, user

TOKEN = "123456:AAE-very-secret-token"
ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shithead_bot.cli", *args],
        cwd=cwd or Path(__file__).resolve().parents[1],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def cli_here(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """What :func:`cli` answers, without a new process: ``main(args)`` runs in this one, with only
    ``PATH`` and ``env`` in the environment, in ``cwd``, its stdout and stderr captured. A new
    process costs a second of imports; this is for a test whose point is a command's output, not
    the process (each CLI keeps tests through :func:`cli`). The root logger's handlers are set aside
    meanwhile, so that ``run`` logs to the captured stderr as it does in a process of its own; an
    exception nobody caught goes to ``sys.excepthook`` (the bot's own, once ``run`` installed it) and
    exit code 1, as on the way out of a process. Not for an async test: ``main`` runs its own loop."""
    from shithead_bot.cli import main
    from shithead_bot.runner import QUIET_LIBRARIES

    saved_env, saved_cwd, saved_hook = dict(os.environ), os.getcwd(), sys.excepthook
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    saved_levels = {name: logging.getLogger(name).level for name in QUIET_LIBRARIES}
    out, err = io.StringIO(), io.StringIO()
    os.environ.clear()
    os.environ.update({"PATH": saved_env.get("PATH", "/usr/bin:/bin"), **(env or {})})
    os.chdir(cwd or ROOT)
    root.handlers = []
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse refusing the arguments
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
            except Exception:
                sys.excepthook(*sys.exc_info())
                code = 1
    finally:
        root.handlers = saved_handlers
        root.setLevel(saved_level)
        for name, level in saved_levels.items():
            logging.getLogger(name).setLevel(level)
        logging.captureWarnings(False)
        sys.excepthook = saved_hook
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["shithead-bot", *args], code, out.getvalue(), err.getvalue())


async def _two_games(url: str) -> tuple[int, int]:
    """A finished game and one still in play, in chat -77."""
    engine = make_engine(url)
    try:
        service = make_service(make_sessionmaker(engine), FakeClock())
        done = await lobby_with(service, humans=2, computers=1, chat_id=-77)
        await service.start(done, user(0).id)
        await play_humans_to_end(service, done)
        playing = await lobby_with(service, humans=2, chat_id=-78)
        await service.start(playing, user(0).id)
        return done, playing
    finally:
        await engine.dispose()


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, int, int]:
    path = tmp_path_factory.mktemp("cli") / "games.db"
    url = f"sqlite+aiosqlite:///{path}"
    upgrade(url)
    done, playing = asyncio.run(_two_games(url))
    return url, path, done, playing


def exported(url: str, game_id: int) -> dict[str, Any]:
    done = cli_here("export", str(game_id), env={"DATABASE_URL": url})
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def test_backup_copies_a_sqlite_database_online(stored: tuple[str, Path, int, int], tmp_path: Path) -> None:
    url, path, _, _ = stored
    target = tmp_path / "copy.db"
    done = cli("backup", str(target), env={"DATABASE_URL": url})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"backed up {path} to {target}"
    with sqlite3.connect(target) as copy, sqlite3.connect(path) as original:
        query = "SELECT id, seed, status FROM game ORDER BY id"
        assert copy.execute(query).fetchall() == original.execute(query).fetchall()


def test_backup_of_postgresql_prints_the_pg_dump_line(tmp_path: Path) -> None:
    url = "postgresql+asyncpg://shithead:hunter2@db:5432/shithead"
    done = cli_here("backup", str(tmp_path / "x.dump"), env={"DATABASE_URL": url})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines() == [
        f"PGPASSWORD=… pg_dump --format=custom --file={tmp_path / 'x.dump'} postgresql://shithead@db:5432/shithead"
    ]
    assert not (tmp_path / "x.dump").exists()


def test_export_has_the_seed_only_when_the_game_is_over(stored: tuple[str, Path, int, int]) -> None:
    url, path, done, playing = stored
    with sqlite3.connect(path) as db:
        seeds = dict(db.execute("SELECT id, seed FROM game").fetchall())
    over = exported(url, done)
    assert over["seed"] == seeds[done]
    assert over["status"] == "finished"
    assert [p["name"] for p in over["players"]][:2] == ["User0", "User1"]
    assert over["players"][2]["computer"]
    assert len(over["moves"]) > 10
    assert {"seq", "seat", "move", "actor"} <= set(over["moves"][0])
    assert over["rules"]["name"]
    live = exported(url, playing)
    assert live["seed"] is None
    assert str(seeds[playing]) not in json.dumps(live)


def test_export_of_an_unknown_game_is_one_line(stored: tuple[str, Path, int, int]) -> None:
    done = cli("export", "999", env={"DATABASE_URL": stored[0]})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["shithead-bot: no game 999"]


def test_replay_tells_the_game_in_words(stored: tuple[str, Path, int, int], tmp_path: Path) -> None:
    url, _, done, playing = stored
    file = tmp_path / "game.json"
    file.write_text(json.dumps(exported(url, done)))
    shown = cli_here("replay", str(file))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.strip().splitlines()
    assert lines[0].startswith(f"Game {done}: Shithead, 3 players: User0, User1, ")
    assert any(" played " in line for line in lines)
    assert lines[-1].endswith("! 💩") or "wins" in lines[-1]
    file.write_text(json.dumps(exported(url, playing)))
    refused = cli_here("replay", str(file))
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        f"shithead-bot: {file} has no seed: game {playing} was not over when it was exported"
    ]


def test_replay_of_a_file_that_is_not_an_export_is_one_line(tmp_path: Path) -> None:
    file = tmp_path / "x.json"
    file.write_text("{not json")
    done = cli("replay", str(file))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"shithead-bot: {file} is not a game export (not JSON)"]


def test_ratings_rebuild_and_the_overall_leaderboard(stored: tuple[str, Path, int, int]) -> None:
    url = stored[0]
    rebuilt = cli_here("ratings", "--rebuild", env={"DATABASE_URL": url})
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert rebuilt.stdout.strip() == "rated 1 game"
    board = cli_here("ratings", env={"DATABASE_URL": url})
    assert board.returncode == 0, board.stderr
    lines = board.stdout.strip().splitlines()
    assert lines[0] == "Overall ratings (best first):"
    assert len(lines) == 4
    assert all(" games" in line or " game" in line for line in lines[1:])
    assert any("User0" in line for line in lines)


def test_ratings_on_an_empty_database_refuse_in_one_line(tmp_path: Path) -> None:
    done = cli("ratings", env={"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'none.db'}"})
    assert done.returncode == 2
    assert "run `shithead-bot migrate` first" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "none.db").exists()


def test_config_shows_every_setting_its_source_and_masks_secrets(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("PORT=9000\nSECRET_TOKEN=hook-secret-value\n")
    env = {
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "LOG_LEVEL": "DEBUG",
        "DATABASE_URL": "postgresql+asyncpg://shithead:hunter2@db/shithead",
    }
    done = cli_here("config", env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert "LOG_LEVEL=DEBUG  (env)" in lines
    assert "PORT=9000  (.env)" in lines
    assert "SWEEP_SECONDS=5.0  (default)" in lines
    assert "TELEGRAM_BOT_TOKEN=********  (env)" in lines
    assert "SECRET_TOKEN=********  (.env)" in lines
    assert "DATABASE_URL=postgresql+asyncpg://shithead:***@db/shithead  (env)" in lines
    assert "WEBHOOK_URL=  (default)" in lines
    from shithead_bot.config import Settings

    assert len(lines) == len(Settings.model_fields)
    assert TOKEN not in done.stdout
    assert "hunter2" not in done.stdout
    assert "hook-secret-value" not in done.stdout


def test_health_without_an_endpoint_is_one_line() -> None:
    done = cli("health", env={})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "shithead-bot: no health endpoint: polling mode serves /healthz only on METRICS_PORT"
    ]


@pytest.mark.parametrize(("status", "code"), [(200, 0), (503, 1)])
def test_health_asks_the_bot_s_own_endpoint(status: int, code: int) -> None:
    body = json.dumps({"status": "ok" if status == 200 else "failing", "checks": {"database": {"ok": status == 200}}})

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            payload = body.encode() if self.path == "/healthz" else b""
            self.send_response(status if self.path == "/healthz" else 404)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        done = cli_here("health", env={"METRICS_PORT": str(port)})
    finally:
        server.shutdown()
    assert done.returncode == code, done.stderr
    expected = "ok" if status == 200 else "failing: database"
    assert done.stdout.strip() == f"http://127.0.0.1:{port}/healthz: {expected}"


def test_run_takes_the_metrics_port_the_readme_names() -> None:
    from shithead_bot.cli import _settings, parser

    args = parser().parse_args(["run", "--metrics-port", "9090"])
    assert _settings(args).metrics_port == 9090


@pytest.mark.parametrize(
    ("env", "address"),
    [
        ({}, "127.0.0.1"),  # polling: /healthz and /metrics for this machine only
        ({"WEBHOOK_URL": "https://bot.example.org/telegram"}, "0.0.0.0"),  # Telegram must reach it
        ({"LISTEN": "0.0.0.0"}, "0.0.0.0"),
        ({"LISTEN": "10.0.0.5", "WEBHOOK_URL": "https://bot.example.org/telegram"}, "10.0.0.5"),
    ],
)
def test_the_listen_address_by_mode(env: dict[str, str], address: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from shithead_bot.config import Settings

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert Settings(_env_file=None).listen == address  # type: ignore[call-arg]
