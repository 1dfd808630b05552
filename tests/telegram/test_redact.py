"""The bot token never reaches the log, at any level: the runner's filter rewrites every record
that holds it (message, arguments, traceback) — PTB's own "Set Bot API URL" line included."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest
from telegram import Bot

from shithead_bot.redact import MASK, install_redaction
from shithead_bot.runner import secrets_of

TOKEN = "123456:AAE-secret_part-of-the-token"


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    """A handler on the root logger at DEBUG, as ``configure_logging`` makes it; removed afterwards."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    telegram = logging.getLogger("telegram")
    old_telegram = telegram.level
    telegram.setLevel(logging.DEBUG)
    yield stream
    root.removeHandler(handler)
    root.setLevel(old_level)
    telegram.setLevel(old_telegram)


def test_the_token_is_redacted_in_messages_args_and_tracebacks(log_stream: io.StringIO) -> None:
    install_redaction(*secrets_of(TOKEN))
    log = logging.getLogger("shithead_bot.test")
    Bot(TOKEN, base_url="http://127.0.0.1:1/bot")  # logs "Set Bot API URL: …/bot<token>" at DEBUG
    log.debug("url %s", f"https://api.telegram.org/bot{TOKEN}/getMe")
    log.info(f"inline {TOKEN}")
    log.warning("the secret half alone: %s", TOKEN.partition(":")[2])
    try:
        raise RuntimeError(f"failed calling /bot{TOKEN}/sendMessage")
    except RuntimeError:
        log.exception("a failure")
    text = log_stream.getvalue()
    assert "Set Bot API URL: http://127.0.0.1:1/bot" in text
    assert TOKEN not in text
    assert TOKEN.partition(":")[2] not in text
    assert text.count(MASK) >= 6
    assert "a failure" in text
    assert "RuntimeError: failed calling /bot<redacted>/sendMessage" in text


def test_a_short_secret_half_is_not_masked_everywhere() -> None:
    assert secrets_of("1:x") == ("1:x",)
    assert secrets_of(TOKEN) == (TOKEN, TOKEN.partition(":")[2])
