"""Run as a separate OS process by test_races: make one move at an agreed moment, print the result."""

from __future__ import annotations

import asyncio
import sys
import time

from persistence.db import make_engine, make_sessionmaker
from shithead_bot.service import GameService, StaleVersionError


async def main(url: str, game_id: int, user_id: int, version: int, start_at: float) -> str:
    engine = make_engine(url)
    service = GameService(make_sessionmaker(engine))
    async with engine.connect():  # open the connection before the start signal
        pass
    await asyncio.sleep(max(0.0, start_at - time.time()))
    try:
        await service.play(game_id, user_id, "r", version)
        outcome = "won"
    except StaleVersionError:
        outcome = "stale"
    finally:
        await engine.dispose()
    return outcome


if __name__ == "__main__":
    url, game, user, version, start = sys.argv[1:6]
    print(asyncio.run(main(url, int(game), int(user), int(version), float(start))))
