"""What each Bot API request costs the bot beyond the request itself."""

from __future__ import annotations

import asyncio
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

from httpcore._synchronization import current_async_library  # what httpcore asks on every request


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
