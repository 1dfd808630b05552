"""Engine benchmark: random self-play speed, copy speed, and the heuristic's strength.

    python bench/engine.py                 # a table
    python bench/engine.py --json          # one JSON object per line
    python bench/engine.py --lengths       # game-length distribution of random play
    python bench/engine.py --compare       # compiled engine vs plain Python, same load, standard 4 seats

Per preset and for 2 and 4 seats: complete random self-play games per second and moves per second
on one core (every move through the public ``legal_moves``/``apply``), state copies per second,
sampled worlds per second (hidden cards dealt again from a view, as the ``hard`` level does), and
the heuristic's win rate (first place) and loser rate against random players over 1,000 games
with its seat rotated (``--strength-games 0`` skips it). Figures, not pass/fail: timings on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import PRESETS, NeighborRules, new_game
from engine.ai import make_player
from engine.ai.worlds import hidden_cards, sample_world
from engine.common import GameState
from engine.native import PURE_ENV, compiled_modules


def random_game(rules: object, kind: str, seats: int, seed: int) -> int:
    """One complete game of uniformly random legal moves; returns the number of moves."""
    state: GameState = new_game(kind, rules, seats, seed)  # type: ignore[arg-type]
    rnd = random.Random(seed).random
    legal, apply = state.legal_moves, state.apply
    moves = 0
    while state.phase == "swap":  # every seat swaps at random until it picks "ready"
        for seat in state.seats_to_act():
            choices = legal(seat)
            apply(seat, choices[int(rnd() * len(choices))])
            moves += 1
    seat = state.to_act
    while seat is not None:
        choices = legal(seat)
        apply(seat, choices[int(rnd() * len(choices))])
        moves += 1
        seat = state.to_act
    return moves


def speed(rules: object, kind: str, seats: int, games: int) -> dict[str, float]:
    start = time.perf_counter()
    total = sum(random_game(rules, kind, seats, seed) for seed in range(games))
    elapsed = time.perf_counter() - start
    return {
        "games_per_s": round(games / elapsed, 1),
        "moves_per_s": round(total / elapsed),
        "avg_moves": round(total / games, 1),
        "us_per_move": round(elapsed / total * 1e6, 2),
    }


def copies_per_s(rules: object, kind: str, seats: int) -> float:
    state = new_game(kind, rules, seats, 1)  # type: ignore[arg-type]
    rng = random.Random(1)
    for _ in range(60):  # a position from the middle of a game
        if state.is_over:
            break
        seat = rng.choice(state.seats_to_act())
        state.apply(seat, rng.choice(state.legal_moves(seat)))
    n = 20_000
    start = time.perf_counter()
    for _ in range(n):
        state.copy()
    return round(n / (time.perf_counter() - start))


def worlds_per_s(rules: object, kind: str, seats: int) -> float | None:
    """Worlds sampled per second from a mid-game view, the way the hard level samples them."""
    if kind != "shithead":
        return None
    state = new_game(kind, rules, seats, 1)  # type: ignore[arg-type]
    rng = random.Random(1)
    for _ in range(200):  # into the play phase, where the search samples
        if state.is_over or (state.phase == "play" and state.moves_applied > 40):
            break
        seat = rng.choice(state.seats_to_act())
        state.apply(seat, rng.choice(state.legal_moves(seat)))
    if state.to_act is None:
        return None
    view = state.view(state.to_act)
    pool = hidden_cards(view)
    n = 20_000
    start = time.perf_counter()
    for _ in range(n):
        sample_world(view, rng, pool)
    return round(n / (time.perf_counter() - start))


def strength(rules: object, kind: str, seats: int, games: int) -> dict[str, float]:
    """The heuristic in one seat (rotated) against random players."""
    wins = losses = 0
    for game in range(games):
        hero = game % seats
        state = new_game(kind, rules, seats, 10_000 + game)  # type: ignore[arg-type]
        players = {s: make_player("heuristic" if s == hero else "random", game * 17 + s) for s in range(seats)}
        while not state.is_over:
            seat = state.seats_to_act()[0]
            state.apply(seat, players[seat].choose(state.view(seat)))
        outcome = state.outcome
        assert outcome is not None
        wins += outcome.places[hero] == 1
        losses += outcome.places[hero] == max(outcome.places)
    return {
        "heuristic_win_rate": round(wins / games, 3),
        "heuristic_loser_rate": round(losses / games, 3),
        "chance_win_rate": round(1 / seats, 3),
    }


def lengths(games: int) -> None:
    for name, base in PRESETS.items():
        for decks, seat_counts in ((1, (2, 3, 4, 5)), (2, (6, 8, 10))):
            rules = base.with_rule("decks", decks)
            counts = sorted(random_game(rules, "shithead", s, seed) for s in seat_counts for seed in range(games))
            print(
                f"{name:9} decks={decks} seats={seat_counts}: mean {statistics.mean(counts):.0f} "
                f"p99 {counts[int(len(counts) * 0.99)]} max {counts[-1]} moves"
            )


def compare(games: int, rounds: int = 3) -> None:
    """Standard 4 seats, this process (compiled if installed so) and plain Python in turn."""
    if not compiled_modules():
        print("the engine is not compiled here (pip install -e . without SHITHEAD_PURE): nothing to compare")
        return
    rules = PRESETS["standard"]
    command = [sys.executable, __file__, "--speed-only", "--games", str(games)]
    ratios = []
    for n in range(rounds):
        fast = speed(rules, "shithead", 4, games)["games_per_s"]
        done = subprocess.run(command, env={**os.environ, PURE_ENV: "1"}, capture_output=True, text=True, check=True)
        slow = json.loads(done.stdout)["games_per_s"]
        ratios.append(fast / slow)
        print(f"round {n + 1}: compiled {fast} games/s, plain Python {slow} games/s: x{fast / slow:.2f}", flush=True)
    print(f"standard 4 seats, compiled / plain Python: median x{statistics.median(ratios):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--games", type=int, default=400, help="random games per configuration")
    parser.add_argument("--strength-games", type=int, default=1000, help="heuristic-vs-random games")
    parser.add_argument("--lengths", action="store_true", help="print the length distribution and stop")
    parser.add_argument("--compare", action="store_true", help="compiled vs plain Python, standard 4 seats")
    parser.add_argument("--speed-only", action="store_true", help=argparse.SUPPRESS)  # for --compare
    args = parser.parse_args()
    if args.lengths:
        lengths(args.games)
        return
    if args.compare:
        compare(args.games)
        return
    if args.speed_only:
        print(json.dumps(speed(PRESETS["standard"], "shithead", 4, args.games)))
        return
    if not args.json:
        print("engine: " + ("compiled by mypyc" if compiled_modules() else "plain Python"))
    configs: list[tuple[str, str, object]] = [(name, "shithead", rules) for name, rules in PRESETS.items()]
    configs.append(("neighbor", "neighbor", NeighborRules()))
    for name, kind, rules in configs:
        for seats in (2, 4):
            row: dict[str, object] = {"preset": name, "seats": seats}
            row |= speed(rules, kind, seats, args.games)
            row["copies_per_s"] = copies_per_s(rules, kind, seats)
            row["worlds_per_s"] = worlds_per_s(rules, kind, seats)
            if args.strength_games:
                row |= strength(rules, kind, seats, args.strength_games)
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                print(
                    f"{name:9} {seats} seats: {row['games_per_s']:>8} games/s {row['moves_per_s']:>8} moves/s "
                    f"({row['avg_moves']} moves/game, {row['us_per_move']} µs/move), "
                    f"{row['copies_per_s']} copies/s, {row['worlds_per_s'] or '-'} worlds/s"
                    + (
                        f"; heuristic wins {row['heuristic_win_rate']:.1%} (chance {row['chance_win_rate']:.0%}), "
                        f"is loser {row['heuristic_loser_rate']:.1%}"
                        if args.strength_games
                        else ""
                    ),
                    flush=True,
                )


if __name__ == "__main__":
    main()
