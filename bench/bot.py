"""Bot benchmark: N concurrent two-player games through the fake Bot API and the real bot process.

    python bench/bot.py                   # 1 and 20 concurrent games
    python bench/bot.py --games 50 --json

Prints updates handled per second, the time from a button press to the next player's notification
(the Bot API call that carries the next buttons; p50/p99), and Bot API calls per move (press
answer included). Figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.e2e.harness import BotProcess, Player, open_lobby
from tests.support.fakebot import Call, FakeTelegram

SETUP_CALLS = ("getUpdates", "getMe", "setMyCommands", "deleteWebhook")
BUTTON = re.compile(r'"callback_data": ?"m:(\d+):(\d+):')


class Watcher:
    """Wakes a waiting game when the Bot API call carrying its next buttons arrives."""

    def __init__(self, fake: FakeTelegram) -> None:
        self.waiting: dict[int, tuple[int, asyncio.Future[float]]] = {}
        original = fake._record

        def record(call: Call) -> None:
            original(call)
            markup = call.params.get("reply_markup")
            if call.method in ("sendMessage", "editMessageText") and markup:
                for game, version in BUTTON.findall(json.dumps(markup)):
                    self.arrived(int(game), int(version), call.time)

        fake._record = record  # type: ignore[method-assign]

    def arrived(self, game: int, version: int, at: float) -> None:
        waiting = self.waiting.get(game)
        if waiting and version > waiting[0] and not waiting[1].done():
            waiting[1].set_result(at)

    def expect(self, game: int, version: int) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[game] = (version, future)
        return future


async def setup_game(fake: FakeTelegram, n: int) -> list[Player]:
    group = -5000 - n
    ids = [10_000 + 2 * n, 10_001 + 2 * n]
    for user_id in ids:
        fake.add_user(user_id, f"P{user_id}")
    fake.add_group(group, f"Bench {n}", ids)
    players = [Player(fake, user_id, f"P{user_id}", group=group) for user_id in ids]
    for player in players:
        fake.start_bot(player.user_id)
    await fake.wait_for(lambda: all(len(p.private()) >= 2 for p in players), timeout=60)
    lobby = await open_lobby(fake, players[0])
    await players[1].press(lobby, "✋ Join")
    await players[0].press(lobby, "▶️ Start")
    await fake.wait_for(lambda: all(p.live_message() for p in players), timeout=60)
    for player in players:  # the swap phase is not measured: everybody is ready at once
        message = player.live_message()
        assert message is not None
        await player.press(message, "✅ Ready")
    await fake.wait_for(lambda: any(m and "Pile" in m.text for m in (p.live_message() for p in players)), timeout=60)
    return players


async def play_game(
    players: list[Player], watcher: Watcher, latencies: list[float], moves: int, think: float
) -> tuple[int, int]:
    """Press until ``moves`` moves were made or the game ends; returns (moves made, refused presses)."""
    made = refused = 0
    while made < moves:
        message = next((m for p in players if (m := p.live_message()) is not None), None)
        if message is None:
            await asyncio.sleep(0.005)
            continue
        if think:
            await asyncio.sleep(think)  # a person reads the message before pressing
            message = next((m for p in players if (m := p.live_message()) is not None), None)
            if message is None:
                continue
        player = next(p for p in players if p.user_id == message.chat_id)
        data = player.fake.button_data(message.chat_id, message.message_id, player.choose(message))
        _, game, version = data.split(":")[:3]
        arrival = watcher.expect(int(game), int(version))
        pressed_at = time.time()
        toast = await player.press_data(message, data)
        if toast:  # refused: this message was about to lose its buttons (the answer came first)
            refused += 1
            await asyncio.sleep(0.01)
            continue
        made += 1
        try:
            latencies.append(await asyncio.wait_for(arrival, 10) - pressed_at)
        except TimeoutError:
            break  # the game is over (no next buttons)
    return made, refused


async def run(games: int, moves: int, think: float) -> dict[str, Any]:
    async with FakeTelegram() as fake:
        database = f"sqlite+aiosqlite:///{tempfile.mkdtemp()}/bench.db"
        bot = BotProcess(fake, database, extra_env={"LOG_LEVEL": "WARNING"})
        await bot.start()
        try:
            tables = [await setup_game(fake, n) for n in range(games)]
            watcher = Watcher(fake)
            fake.reset_calls()
            latencies: list[float] = []
            start = time.perf_counter()
            results = await asyncio.gather(*(play_game(t, watcher, latencies, moves, think) for t in tables))
            elapsed = time.perf_counter() - start
            presses = sum(made for made, _ in results)
            refused = sum(r for _, r in results)
            await asyncio.sleep(4)  # let the last throttled table edits land
            counts = Counter(call.method for call in fake.calls if call.method not in SETUP_CALLS)
        finally:
            await bot.stop()
    latencies.sort()
    return {
        "concurrent_games": games,
        "think_s": think,
        "moves": presses,
        "refused_presses": refused,
        "updates_per_s": round((presses + refused) / elapsed, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 1),
        "p99_ms": round(latencies[max(0, int(len(latencies) * 0.99) - 1)] * 1000, 1),
        "api_calls_per_move": round((sum(counts.values()) - refused) / presses, 2),
        "calls": dict(counts),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, nargs="+", default=[1, 20])
    parser.add_argument("--moves", type=int, default=60, help="moves per game at most")
    parser.add_argument("--think", type=float, nargs="+", default=[0.0, 0.5], help="seconds before each press")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    for games in args.games:
        for think in args.think:
            row = asyncio.run(run(games, args.moves, think))
            print(json.dumps(row) if args.json else "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
