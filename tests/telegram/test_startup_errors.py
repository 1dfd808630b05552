"""Mistakes an operator makes at the first start, each answered in one line with exit code 2,
through the real CLI: a broken DATABASE_URL for ``migrate``, a wrong TELEGRAM_API_URL, a token that
cannot be one (refused before any network call), and ``--no-migrate`` on a database that is not there.
The two met on the network at start run in a process of their own, the others through ``main`` here."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from testkit.fakebot import FakeTelegram
from tests.test_cli_data import cli_here

ROOT = Path(__file__).resolve().parents[2]


async def cli(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    """The command through ``main`` in this process (tests/test_cli_data.py ``cli_here``), on a thread
    of its own so that a fake server on the test's loop goes on answering."""
    done = await asyncio.to_thread(cli_here, *args, env=env, cwd=ROOT)
    return done.returncode, done.stdout, done.stderr


async def cli_process(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    """The command in a process of its own: for the failures met on the network at start."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "shithead_bot.cli",
        *args,
        cwd=ROOT,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


@pytest.fixture
async def empty_404() -> AsyncIterator[str]:
    """A web server that is not a Bot API: every path is a 404 with an empty body."""

    async def handle(request: web.Request) -> web.Response:
        return web.Response(status=404)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield f"http://127.0.0.1:{port}/wrong/bot"
    await runner.cleanup()


def sqlite(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}"


@pytest.mark.parametrize(
    ("url", "start"),
    [
        ("not a url", "shithead-bot: DATABASE_URL: not a database URL"),  # refused with the other settings
        ("nosuchdb+driver:///x", "shithead-bot: DATABASE_URL: nosuchdb is not supported"),
        ("postgresql+asyncpg://shithead:hunter2@127.0.0.1:1/shithead", "shithead-bot: cannot open the database: "),
    ],
)
async def test_migrate_with_a_bad_or_unreachable_database_is_one_line(url: str, start: str) -> None:
    code, _, err = await cli("migrate", env={"DATABASE_URL": url})
    assert code == 2
    (line,) = err.strip().splitlines()
    assert line.startswith(start), line
    assert "hunter2" not in line


async def test_a_wrong_api_url_is_named_not_the_token(empty_404: str, tmp_path: Path) -> None:
    env = {"TELEGRAM_BOT_TOKEN": "123456:TEST-TOKEN", "TELEGRAM_API_URL": empty_404, "DATABASE_URL": sqlite(tmp_path)}
    code, _, err = await cli_process("run", env=env)
    assert code == 2
    assert err.strip().splitlines() == [
        f"shithead-bot: the Bot API URL looks wrong: {empty_404} answered 404 Not Found "
        "(check TELEGRAM_API_URL; Telegram's is https://api.telegram.org/bot)"
    ]


async def test_a_rejected_token_is_still_called_so(tmp_path: Path) -> None:
    async with FakeTelegram() as fake:
        env = {"TELEGRAM_BOT_TOKEN": "123456:WRONG", "TELEGRAM_API_URL": fake.base_url}
        code, _, err = await cli_process("run", env={**env, "DATABASE_URL": sqlite(tmp_path)})
    assert code == 2
    assert err.strip().splitlines() == [
        "shithead-bot: the bot token was rejected by the Bot API (check TELEGRAM_BOT_TOKEN)"
    ]


@pytest.mark.parametrize("token", ["abc", "123456 :TEST-TOKEN", "123456:TEST TOKEN", ":TEST", "123456:"])
async def test_a_malformed_token_is_refused_before_any_network_call(token: str, tmp_path: Path) -> None:
    async with FakeTelegram() as fake:
        env = {"TELEGRAM_BOT_TOKEN": token, "TELEGRAM_API_URL": fake.base_url, "DATABASE_URL": sqlite(tmp_path)}
        code, _, err = await cli("run", env=env)
        assert fake.calls == []
    assert code == 2
    assert err.strip().splitlines() == [
        "shithead-bot: TELEGRAM_BOT_TOKEN: does not look like a bot token "
        "(digits, a colon, then letters, digits, - or _; get one from @BotFather)"
    ]
    assert not (tmp_path / "bot.db").exists()


async def test_no_migrate_on_a_missing_database_leaves_no_file(tmp_path: Path) -> None:
    env = {"TELEGRAM_BOT_TOKEN": "123456:TEST-TOKEN", "DATABASE_URL": sqlite(tmp_path)}
    code, _, err = await cli("run", "--no-migrate", env=env)
    assert code == 2
    assert "run `shithead-bot migrate` first" in err
    assert os.listdir(tmp_path) == []


async def test_a_setting_of_the_wrong_type_is_one_line() -> None:
    code, _, err = await cli("run", env={"PORT": "abc", "TELEGRAM_BOT_TOKEN": "123456:TEST-TOKEN"})
    assert code == 2
    assert err.strip().splitlines() == ["shithead-bot: PORT: must be a whole number from 1 to 65535 (got 'abc')"]
