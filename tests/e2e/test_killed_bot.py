"""A bot killed with SIGKILL (the OOM killer, ``kill -9``, a supervisor out of patience) leaves no
process behind: the ``hard`` computers' forkserver, worker and resource tracker go by themselves,
so restarts under a supervisor do not pile them up."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import FLOW_LIMITS, start_all
from tests.e2e.harness import BotProcess, Player
from tests.service.test_pool import LEFTOVER_WAIT, descendants, process_state

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")]


def thinking_processes(pid: int) -> set[int] | None:
    """The bot's children once its pool is up: the forkserver, its worker and the resource tracker."""
    found = descendants(pid)
    return found if len(found) >= 3 else None


async def test_a_killed_bot_leaves_no_thinking_process(
    fake: FakeTelegram, database_url: str, players: list[Player]
) -> None:
    bot = BotProcess(fake, database_url, extra_env=FLOW_LIMITS, fresh=True)  # as a supervisor starts it
    await bot.start()
    assert bot.process is not None
    pid = bot.process.pid
    alice = players[0]
    await start_all(fake, [alice])
    await alice.command("/newgame hard 3", chat_id=alice.user_id)  # hard swaps are searched in the worker
    left = await fake.wait_for(lambda: thinking_processes(pid), timeout=60)
    os.kill(pid, signal.SIGKILL)  # not bot.stop(): it waits for its output pipe, which orphans would hold
    with contextlib.suppress(AssertionError):
        await fake.wait_for(lambda: not any(process_state(child) for child in left), timeout=LEFTOVER_WAIT)
    still = [child for child in left if process_state(child)]
    for child in still:  # not to leave them to the next test run
        os.kill(child, signal.SIGKILL)
    await bot.stop()
    assert still == []
