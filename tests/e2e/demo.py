"""Watch the whole Telegram flow locally, without a token: ``python -m tests.e2e.demo``.

Starts the fake Bot API server and the real ``shithead-bot run`` against it, then three people play
a game in a group by pressing the buttons they see. Every message and every edit is printed in the
order it happened, as its reader sees it, with the keyboard in its rows.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile

from testkit.fakebot import FakeTelegram, SeenMessage
from tests.e2e.harness import GROUP, BotProcess, Player, play_until_over, start_game

PEOPLE = [(1001, "Alice"), (1002, "Bob"), (1003, "Cleo")]


class Transcript:
    """The conversation as its readers saw it: every message and every edit, in the order they
    happened, with the keyboards in their rows."""

    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake
        self.seen: set[tuple[int, int, int]] = set()
        self.texts: dict[tuple[int, int], str] = {}

    def new(self) -> list[str]:
        """The versions not told yet, one block each."""
        blocks = []
        for message in self.fake.timeline():
            key = (message.chat_id, message.message_id, message.version)
            if key in self.seen:
                continue
            self.seen.add(key)
            blocks.append(self.block(message))
        return blocks

    def block(self, message: SeenMessage) -> str:
        where = "group" if message.chat_id == GROUP else f"{dict(PEOPLE)[message.chat_id]}'s private chat"
        if not message.from_bot:
            where += f" · {dict(PEOPLE).get(message.sender_id, message.sender_id)} writes"
        before = self.texts.get((message.chat_id, message.message_id))
        self.texts[(message.chat_id, message.message_id)] = message.text
        if message.version:
            where += " (edited)" if message.text != before else " (buttons changed)"
        rows = [" ".join(f"[{b.text}{' ↗' if b.url else ''}]" for b in row) for row in message.keyboard]
        return "\n".join([f"── {where} ──", message.text, *rows])


async def demo(preset: str) -> None:
    async with FakeTelegram() as fake:
        for user_id, name in PEOPLE:
            fake.add_user(user_id, name)
        fake.add_group(GROUP, "Friends", [u for u, _ in PEOPLE])
        bot = BotProcess(fake, f"sqlite+aiosqlite:///{tempfile.mkdtemp()}/demo.db", extra_env={"LOG_LEVEL": "WARNING"})
        await bot.start()
        transcript = Transcript(fake)
        try:
            players = [Player(fake, user_id, name) for user_id, name in PEOPLE]
            for player in players:
                fake.start_bot(player.user_id)
            await fake.wait_for(lambda: all(len(p.private()) >= 2 for p in players), timeout=60)
            await start_game(fake, players, args=preset)
            task = asyncio.create_task(play_until_over(fake, players))
            while not task.done():
                show(transcript)
                await asyncio.sleep(0.3)
            await task
            await asyncio.sleep(4)
            show(transcript)
        finally:
            await bot.stop()


def show(transcript: Transcript) -> None:
    for block in transcript.new():
        print(f"\n{block}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--preset", default="standard", help="smelly, classic, free, standard or neighbor")
    asyncio.run(demo(parser.parse_args().preset))


if __name__ == "__main__":
    main()
