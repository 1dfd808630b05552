"""What the bot's Bot API clients cost beyond the requests themselves."""

from __future__ import annotations

import asyncio
import importlib.abc
import importlib.machinery
import ssl
import sys
from collections.abc import Sequence
from types import ModuleType

import httpx._transports.default
import pytest
from httpcore._synchronization import current_async_library  # what httpcore asks on every request

from shithead_bot.config import Settings
from shithead_bot.telegram.app import build_application


class Recorder(importlib.abc.MetaPathFinder):
    """Notes every module the import system is asked to find (a module already imported is not)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        self.asked.append(fullname)
        return None


def test_a_request_learns_the_async_library_without_searching_the_path() -> None:
    """httpcore imports sniffio on each request to learn the async library; anyio 4 no longer brings
    it, and a failed import searched every folder of the path each time (56 µs, several times a
    request). It is a dependency of the bot's now."""
    recorder = Recorder()

    async def ask() -> str:
        return current_async_library()

    sys.meta_path.insert(0, recorder)
    try:
        assert asyncio.run(ask()) == "asyncio"
    finally:
        sys.meta_path.remove(recorder)
    assert recorder.asked == []


def test_building_a_bot_loads_no_ca_bundle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each httpx client made its own TLS context (the CA bundle read and parsed: 30 ms of CPU), and
    a bot has three: its clients share one now, made once a process."""
    made: list[object] = []
    make = httpx._transports.default.create_ssl_context

    def counted(verify: object = True, cert: object = None, trust_env: bool = True) -> ssl.SSLContext:
        if not isinstance(verify, ssl.SSLContext):
            made.append(verify)
        return make(verify=verify, cert=cert, trust_env=trust_env)  # type: ignore[arg-type]

    monkeypatch.setattr(httpx._transports.default, "create_ssl_context", counted)
    for webhook in ("", "https://bot.example.com/hook"):
        build_application(Settings(webhook_url=webhook), "123:TOKEN")
    assert made == []
