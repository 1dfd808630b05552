"""A stop that overruns ends the process all the same (SIGTERM to exit in at most
``STOP_LIMIT_SECONDS``, inside systemd's and compose's 30 s): on a machine too busy to finish the
updates in hand, a worker once took more than 30 s. Nothing is lost by it — what is unfinished is in
the database for the next worker — so it exits 0, with one warning line."""

from __future__ import annotations

import logging
import threading

import pytest

from shithead_bot.telegram import serve


def test_a_stop_that_overruns_exits_0_with_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    left = threading.Event()
    codes: list[int] = []

    def leave(code: int) -> None:
        codes.append(code)
        left.set()

    with caplog.at_level(logging.WARNING, logger="shithead_bot"):
        serve.exit_after(0.05, leave)
        assert left.wait(5)
    assert codes == [0]
    assert [r.getMessage() for r in caplog.records] == [
        "stopping took more than 0 s: exiting now, what is left is the next worker's"
    ]


def test_a_stop_that_ends_in_time_is_not_cut_short() -> None:
    codes: list[int] = []
    timer = serve.exit_after(0.2, codes.append)
    timer.cancel()
    timer.join(1)
    assert codes == []


def test_the_limit_leaves_the_flush_its_time_and_fits_the_deployments_30_s() -> None:
    assert serve.FLUSH_SECONDS < serve.STOP_LIMIT_SECONDS < 30
