"""Bot processes forked from one that has imported the bot already.

A ``shithead-bot run`` spends about a second of CPU importing SQLAlchemy, pydantic and
python-telegram-bot before it does anything; the end-to-end tests start a hundred of them. Each
test worker keeps one multiprocessing forkserver that has made those imports, and each bot is a
fork of it: a process of its own, with the test's environment, working folder and argument list,
its output on a pipe, signals and exit code as a subprocess's — it runs the same ``main`` the
console script runs. (``BotProcess(fresh=True)`` still starts the real command: the tests of
starting, stopping and the first migration use it.)
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import importlib
import multiprocessing
import os
import signal
import sys
from multiprocessing import forkserver, resource_tracker
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext
from pathlib import Path

# What a bot imports on its way to its first getUpdates (python -X importtime).
PRELOAD = [
    "shithead_bot.cli",
    "shithead_bot.runner",
    "shithead_bot.telegram.app",
    "persistence.migrate",
    "aiosqlite",
    "asyncpg",
    "sqlalchemy.dialects.sqlite.aiosqlite",
    "sqlalchemy.dialects.postgresql.asyncpg",
    "httpx",
    "httpcore",
    "anyio",
]

@functools.cache
def _forkserver() -> ForkServerContext:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def _bot_main(argv: list[str], env: dict[str, str], cwd: str, output: Connection) -> None:
    """In the forked process: become ``python -m shithead_bot.cli <argv>`` and run it."""
    _forget_the_test_process()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(output.fileno(), 1)
    os.dup2(output.fileno(), 2)
    output.close()
    _read_pythonpath(env)
    from shithead_bot.cli import main

    sys.argv = [str(Path(cwd) / "shithead_bot" / "cli.py"), *argv]
    try:
        code = main(argv)
    finally:
        atexit._run_exitfuncs()  # as the interpreter would at its exit (multiprocessing skips them)
    sys.exit(code)


def _read_pythonpath(env: dict[str, str]) -> None:
    """What a new interpreter does with PYTHONPATH: its folders on the path after the working folder,
    and a ``sitecustomize`` in one of them run (tests/support/standin is one: without this, a forked
    bot's ``hard`` computers were the real ones, not the stand-in its test asked for)."""
    folders = [folder for folder in env.get("PYTHONPATH", "").split(os.pathsep) if folder]
    sys.path[1:1] = folders
    if any((Path(folder) / "sitecustomize.py").is_file() for folder in folders):
        sys.modules.pop("sitecustomize", None)
        importlib.import_module("sitecustomize")


def _forget_the_test_process() -> None:
    """A fork of the forkserver holds the test worker's resource tracker and forkserver liveness
    pipe; a bot starts its own, as a new interpreter would (its ``hard`` computers use them)."""
    tracker = resource_tracker._resource_tracker
    for fd in (tracker._fd, forkserver._forkserver._forkserver_alive_fd):
        if fd is not None:
            os.close(fd)
    tracker._fd = tracker._pid = None
    forkserver._forkserver._forkserver_alive_fd = None
    forkserver._forkserver._inherited_fds = None


class ForkedBot:
    """The part of :class:`asyncio.subprocess.Process` the harness uses, for a forked bot."""

    def __init__(self, process: multiprocessing.process.BaseProcess, stdout: asyncio.StreamReader) -> None:
        self._process = process
        self.stdout = stdout
        self.pid = int(process.pid or 0)
        self._exited: asyncio.Future[None] | None = None

    @property
    def returncode(self) -> int | None:
        return self._process.exitcode

    def send_signal(self, number: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, number)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    async def wait(self) -> int:
        if self.returncode is None:
            loop = asyncio.get_running_loop()
            if self._exited is None or self._exited.get_loop() is not loop:
                self._exited = loop.create_future()
                loop.add_reader(self._process.sentinel, self._ended, self._exited)
            try:
                await asyncio.shield(self._exited)
            finally:
                if self._exited.done():
                    loop.remove_reader(self._process.sentinel)
        code = self.returncode
        assert code is not None
        return code

    @staticmethod
    def _ended(exited: asyncio.Future[None]) -> None:
        if not exited.done():
            exited.set_result(None)


async def fork_bot(argv: list[str], env: dict[str, str], cwd: Path) -> ForkedBot:
    """Start a bot with these arguments, environment and working folder; its output (stdout and
    stderr together) on the returned process's ``stdout``."""
    read_end, write_end = os.pipe()
    output = Connection(write_end, readable=False)
    process = _forkserver().Process(target=_bot_main, args=(argv, env, str(cwd), output), name="shithead-bot")
    try:
        await asyncio.to_thread(process.start)  # the first start waits for the forkserver's imports
    finally:
        output.close()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_end, "rb", 0))
    return ForkedBot(process, reader)
