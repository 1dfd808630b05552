"""Telegram has a bad half minute, in real time: the fake Bot API answers 502 to every call of the
real ``shithead-bot run`` mid-game. The bot says so on /healthz, gives nothing up, and when
Telegram answers again the game carries on from where it was and ends normally.

Half a minute already spans three of the outbox's growing pauses (5, 10, 20 s). Outages of minutes,
up to the longest pause, are tests/telegram/test_outage.py's, on the fake clock: waiting them out
in real time cost CI three minutes. ``OUTAGE_SECONDS=120`` runs the old two minutes by hand."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import urllib.request

import pytest

from testkit.fakebot import FakeTelegram
from tests.e2e.conftest import FLOW_LIMITS, start_all
from tests.e2e.harness import Player, free_port, play_until_over, running_bot, start_game

pytestmark = pytest.mark.slow
OUTAGE_SECONDS = int(os.environ.get("OUTAGE_SECONDS", "30"))


def health(port: int) -> dict[str, object]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
            body: dict[str, object] = json.loads(answer.read())
    except urllib.error.HTTPError as failing:
        body = json.loads(failing.read())
    return body


async def test_an_outage_mid_game_loses_nothing(
    fake: FakeTelegram, database_url: str, players: list[Player]
) -> None:
    duo = players[:2]
    port = free_port()
    async with running_bot(fake, database_url, extra_env={**FLOW_LIMITS, "METRICS_PORT": str(port)}) as bot:
        await start_all(fake, duo)
        await start_game(fake, duo)
        for _ in range(3):
            for player in duo:
                await fake.wait_for(lambda: any(p.live_message() for p in duo), timeout=60)
                await player.play_turn()
        mover = await fake.wait_for(lambda: next((p for p in duo if p.live_message()), None), timeout=60)
        message = mover.live_message()
        assert message is not None
        fake.start_outage(from_method="answerCallbackQuery")  # the press is taken, then Telegram goes
        data = fake.button_data(message.chat_id, message.message_id, mover.choose(message))
        await fake.press(mover.user_id, message.chat_id, message.message_id, data)
        await fake.wait_for(lambda: fake.calls_of("answerCallbackQuery")[-1].result == 502, timeout=60)
        await asyncio.sleep(OUTAGE_SECONDS / 2)
        during = await asyncio.to_thread(health, port)
        assert during["status"] == "failing"
        assert during["checks"]["bot_api"]["ok"] is False  # type: ignore[index]
        await asyncio.sleep(OUTAGE_SECONDS / 2)
        fake.end_outage()

        def moved_on() -> bool:  # the pressed message shows the move (or made way for the mover's
            # next turn, when the other's move was forced), and someone has a keyboard
            now = next((m for m in mover.private() if m.message_id == message.message_id), None)
            return (now is None or now.text != message.text) and any(p.live_message() for p in duo)

        try:
            await fake.wait_for(moved_on, timeout=90)
        except AssertionError:
            print(bot.log_text)
            raise
        for _ in range(900):  # a loaded machine may take a while to sweep again: up to 3 minutes
            after = await asyncio.to_thread(health, port)
            if after["status"] == "ok":
                break
            await asyncio.sleep(0.2)
        assert after["status"] == "ok", after
        await play_until_over(fake, duo)
    with sqlite3.connect(bot.database_url.split(":///", 1)[1]) as db:
        assert db.execute("select count(*) from outbox where last_error like 'gave up%'").fetchone() == (0,)
        assert db.execute("select count(*) from outbox where delivered_at is null").fetchone() == (0,)
        assert db.execute("select status from game").fetchall() == [("finished",)]
