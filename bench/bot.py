"""Bot benchmark: N concurrent games through the fake Bot API and the real bot process.

    python bench/bot.py                   # 1 and 20 concurrent two-player games
    python bench/bot.py --games 50 --json
    python bench/bot.py --computers hard --games 1 --think 0          # one human, three hard computers
    python bench/bot.py --computers hard --decision-ms 100 --games 1  # ... each decision taking 100 ms

Prints updates handled per second, the time from a button press to its answer (the toast, or the
spinner stopping: ``answer_p50_ms``/``answer_p99_ms``), the time from a button press to the next
player's notification (the Bot API call that carries the next buttons; p50/p95/p99), and Bot API
calls per move (press answer included). Figures, not pass/fail.

``--computers LEVEL``: each game is one human against three computers of that level, in a group
(``--private``: in the private chat, ``/newgame LEVEL 3``), so every press waits for the computers
to answer. Telegram allows about one send a second into a private chat, which a bench pressing at
once meets: ``--unlimited`` lifts it in the bot to show what the service and the computers cost. ``--decision-ms``
replaces, in the bot process only, the ``hard`` level by a stand-in that burns that much CPU (pure
Python, holding the GIL as a search does) before playing like ``normal``: the figures a real
search of that budget would give. ``--thread`` has ``hard`` decide in the thinking thread, as before
it had its worker process: with ``--alongside N`` (two-player games played meanwhile), the other
games' press-to-notification while ``hard`` thinks, thread against process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testkit.fakebot import Call, FakeTelegram
from tests.e2e.harness import BotProcess, Player, game_over, open_lobby, start_game
from tests.support.standin import standin_env

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


async def setup_game(fake: FakeTelegram, n: int, seats: int = 2) -> list[Player]:
    group = -5000 - n
    ids = [10_000 + 10 * n + i for i in range(seats)]
    for user_id in ids:
        fake.add_user(user_id, f"P{user_id}")
    fake.add_group(group, f"Bench {n}", ids)
    players = [Player(fake, user_id, f"P{user_id}", group=group) for user_id in ids]
    for player in players:
        fake.start_bot(player.user_id)
    await fake.wait_for(lambda: all(len(p.private()) >= 2 for p in players), timeout=60)
    lobby = await open_lobby(fake, players[0])
    for joiner in players[1:]:
        await joiner.press(lobby, "✋ Join")
    await players[0].press(lobby, "▶️ Start")
    await fake.wait_for(lambda: all(p.live_message() for p in players), timeout=60)
    for player in players:  # the swap phase is not measured: everybody is ready at once
        message = player.live_message()
        assert message is not None
        await player.press(message, "✅ Ready")
    await fake.wait_for(lambda: any(m and "Pile" in m.text for m in (p.live_message() for p in players)), timeout=60)
    return players


async def setup_computer_game(fake: FakeTelegram, n: int, level: str, private: bool) -> list[Player]:
    """One human against three computers of ``level`` — in a group (Add computer ×3), or in the
    private chat (``/newgame LEVEL 3``) — past the swap phase."""
    user_id, group = 20_000 + n, -8000 - n
    fake.add_user(user_id, f"H{user_id}")
    fake.add_group(group, f"Bench {n}", [user_id])
    player = Player(fake, user_id, f"H{user_id}", group=user_id if private else group)
    fake.start_bot(user_id)
    await fake.wait_for(lambda: len(player.private()) >= 2, timeout=60)
    if private:
        await player.command(f"/newgame {level} 3", chat_id=user_id)
    else:
        await start_game(fake, [player], computers=3, level=level)
    await fake.wait_for(lambda: player.live_message() is not None, timeout=60)
    message = player.live_message()
    assert message is not None
    await player.press(message, "✅ Ready")
    await fake.wait_for(lambda: (m := player.live_message()) is not None and "Pile" in m.text, timeout=60)
    return [player]


def bot_env(args: argparse.Namespace) -> dict[str, str]:
    env = {"LOG_LEVEL": os.environ.get("BENCH_LOG_LEVEL", "WARNING")}
    if args.unlimited:  # no per-chat send rate: what the service and the computers cost, alone
        env |= {"PRIVATE_SENDS_PER_SECOND": "1000", "GROUP_SENDS_PER_MINUTE": "60000"}
    if args.decision_ms or args.inline or args.thread:
        env |= standin_env(args.decision_ms, inline=args.inline, thread=args.thread)
    return env


def decided_where(args: argparse.Namespace) -> str:
    if args.inline:
        return "inline"
    return "thinking thread" if args.thread else "hard in a worker process, the rest in the thinking thread"


async def arrived_or_over(player: Player, arrival: asyncio.Future[float], within: float = 10) -> bool:
    """Wait for the next buttons (True), or until the game is over (False)."""

    over = player.fake.wait_for(lambda: game_over(player.fake, player.group, player.user_id), within, 0.05)
    ended = asyncio.ensure_future(over)
    await asyncio.wait({arrival, ended}, timeout=within, return_when=asyncio.FIRST_COMPLETED)
    ended.cancel()
    with contextlib.suppress(BaseException):
        await ended
    return arrival.done()


async def play_game(
    players: list[Player],
    watcher: Watcher,
    latencies: list[float],
    moves: int,
    think: float,
    stop: asyncio.Event | None = None,
    answers: list[float] | None = None,
) -> tuple[int, int]:
    """Press until ``moves`` moves were made, the game ends or ``stop`` is set; returns (moves
    made, refused presses)."""
    made = refused = 0
    while made < moves and not (stop and stop.is_set()):
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
        if answers is not None:
            answers.append(time.time() - pressed_at)
        if toast and "thinking" not in toast.lower():  # refused: the message was about to lose its buttons
            refused += 1
            await asyncio.sleep(0.01)
            continue
        made += 1
        if not await arrived_or_over(player, arrival):
            break  # the game is over (no next buttons)
        latencies.append(arrival.result() - pressed_at)
    return made, refused


async def run(games: int, moves: int, think: float, args: argparse.Namespace) -> dict[str, Any]:
    computers = args.computers
    async with FakeTelegram() as fake:
        database = f"sqlite+aiosqlite:///{tempfile.mkdtemp()}/bench.db"
        bot = BotProcess(fake, database, extra_env=bot_env(args))
        await bot.start()
        try:
            watcher = Watcher(fake)
            latencies: list[float] = []
            answers: list[float] = []
            beside: list[float] = []  # the two-player games played alongside (--alongside)
            results: list[tuple[int, int]] = []
            elapsed = 0.0
            for round_ in range(args.rounds):  # games one after another (a computers' game is short)
                first = round_ * games
                if computers:
                    tables = [await setup_computer_game(fake, first + n, computers, args.private) for n in range(games)]
                else:
                    tables = [await setup_game(fake, first + n, args.players) for n in range(games)]
                others = [await setup_game(fake, 500 + round_ * args.alongside + n) for n in range(args.alongside)]
                if round_ == 0:
                    fake.reset_calls()
                start, stop = time.perf_counter(), asyncio.Event()
                side = [asyncio.create_task(play_game(t, watcher, beside, moves, think, stop)) for t in others]
                mine = (play_game(t, watcher, latencies, moves, think, answers=answers) for t in tables)
                results += await asyncio.gather(*mine)
                stop.set()
                await asyncio.gather(*side)
                elapsed += time.perf_counter() - start
            presses = sum(made for made, _ in results)
            refused = sum(r for _, r in results)
            await asyncio.sleep(4)  # let the last throttled table edits land
            counts = Counter(call.method for call in fake.calls if call.method not in SETUP_CALLS)
        finally:
            await bot.stop()
            if args.log:
                print("\n".join(line for line in bot.logs if args.log in line))
    latencies.sort()
    answers.sort()
    beside.sort()
    alongside = (
        {
            "alongside_games": args.alongside,
            "alongside_p50_ms": round(statistics.median(beside) * 1000, 1),
            "alongside_p95_ms": round(percentile(beside, 0.95) * 1000, 1),
            "alongside_p99_ms": round(percentile(beside, 0.99) * 1000, 1),
        }
        if beside
        else {}
    )
    return {
        "concurrent_games": games,
        "computers": opponents(computers, args.decision_ms, args.private),
        "send_rate": "unlimited" if args.unlimited else "telegram's",
        "decided": decided_where(args),
        "think_s": think,
        "moves": presses,
        "refused_presses": refused,
        "updates_per_s": round((presses + refused) / elapsed, 1),
        "answer_p50_ms": round(statistics.median(answers) * 1000, 1),
        "answer_p99_ms": round(percentile(answers, 0.99) * 1000, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 1),
        "p95_ms": round(percentile(latencies, 0.95) * 1000, 1),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
        "slowest_ms": [round(x * 1000) for x in latencies[-3:]],
        "api_calls_per_move": round((sum(counts.values()) - refused) / presses, 2),
        **alongside,
        "calls": dict(counts),
    }


def opponents(level: str | None, decision_ms: float, private: bool) -> str:
    if not level:
        return "none"
    return f"3x{level}" + (f"@{decision_ms:g}ms" if decision_ms and level == "hard" else "") + ("/private" * private)


def percentile(ordered: list[float], share: float) -> float:
    return ordered[max(0, int(len(ordered) * share + 0.5) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, nargs="+", default=[1, 20])
    parser.add_argument("--moves", type=int, default=60, help="moves per game at most")
    parser.add_argument("--think", type=float, nargs="+", default=[0.0, 0.5], help="seconds before each press")
    parser.add_argument("--computers", metavar="LEVEL", help="one human against three computers of LEVEL")
    parser.add_argument("--decision-ms", type=float, default=0, help="the hard level's stand-in: ms of CPU a decision")
    parser.add_argument("--alongside", type=int, default=0, help="two-player games played meanwhile (p50/p95/p99)")
    parser.add_argument("--inline", action="store_true", help="decide on the event loop (for comparison)")
    parser.add_argument("--thread", action="store_true", help="hard decides in the thinking thread, not a process")
    parser.add_argument("--rounds", type=int, default=1, help="sets of games played one after another")
    parser.add_argument("--private", action="store_true", help="with --computers: a private game (/newgame)")
    parser.add_argument("--unlimited", action="store_true", help="lift Telegram's per-chat send rate in the bot")
    parser.add_argument("--log", metavar="TEXT", help="print the bot's log lines holding TEXT (with LOG_LEVEL=INFO)")
    parser.add_argument("--players", type=int, default=2, help="humans a game (3: people go out before the end)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    for games in args.games:
        for think in args.think:
            row = asyncio.run(run(games, args.moves, think, args))
            print(json.dumps(row) if args.json else "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
