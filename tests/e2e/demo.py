"""Watch the whole Telegram flow locally, without a token: ``python -m tests.e2e.demo``.

Starts the fake Bot API server and the real ``shithead-bot run`` against it, then three people play
a game in a group by pressing the buttons they see; every message is printed as its reader sees it.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile

from tests.e2e.harness import GROUP, BotProcess, Player, play_until_over, start_game
from tests.support.fakebot import FakeTelegram

PEOPLE = [(1001, "Alice"), (1002, "Bob"), (1003, "Cleo")]


def show(fake: FakeTelegram, seen: set[tuple[int, int, int]]) -> None:
    for chat_id, reader in [(GROUP, 1001), *((uid, uid) for uid, _ in PEOPLE)]:
        for message in fake.messages(chat_id, as_user=reader):
            key = (chat_id, message.message_id, message.version)
            if key in seen or not message.from_bot:
                continue
            seen.add(key)
            where = "group" if chat_id == GROUP else f"{dict(PEOPLE)[chat_id]}'s private chat"
            buttons = " ".join(f"[{b.text}]" for b in message.buttons)
            print(f"\n── {where}{' (edited)' if message.edited else ''} ──\n{message.text}\n{buttons}".rstrip())


async def demo(preset: str) -> None:
    async with FakeTelegram() as fake:
        for user_id, name in PEOPLE:
            fake.add_user(user_id, name)
        fake.add_group(GROUP, "Friends", [u for u, _ in PEOPLE])
        bot = BotProcess(fake, f"sqlite+aiosqlite:///{tempfile.mkdtemp()}/demo.db", extra_env={"LOG_LEVEL": "WARNING"})
        await bot.start()
        seen: set[tuple[int, int, int]] = set()
        try:
            players = [Player(fake, user_id, name) for user_id, name in PEOPLE]
            for player in players:
                fake.start_bot(player.user_id)
            await fake.wait_for(lambda: all(len(p.private()) >= 2 for p in players), timeout=15)
            await start_game(fake, players, args=preset)
            task = asyncio.create_task(play_until_over(fake, players))
            while not task.done():
                show(fake, seen)
                await asyncio.sleep(0.3)
            await task
            await asyncio.sleep(4)
            show(fake, seen)
        finally:
            await bot.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--preset", default="standard", help="smelly, classic, free, standard or neighbor")
    asyncio.run(demo(parser.parse_args().preset))


if __name__ == "__main__":
    main()
