"""Computer levels benchmark: how strong each level is, and how long it thinks.

    python bench/ai.py                     # every measure, at least the issue's game counts
    python bench/ai.py --games 40          # short: 40 games per measure
    python bench/ai.py --only hard-normal --presets standard,smelly
    python bench/ai.py --json
    python bench/ai.py --only hard-3normal --uncapped --jobs 2   # results fixed by the seeds alone

Each measure plays a fixed list of deals with the hero's seat rotated over every seat of each deal
(so a measure of G games at S seats plays G/S deals S times), and prints the hero's rate with a
95% Wilson interval. ``baseline`` is a frozen copy of the heuristic as it was before issue 11
(bench/baseline_heuristic.py). Decision times are per call of ``choose`` for the hero, forced and
swap-phase moves included; the budget is the default one. Figures, not pass/fail: on a shared
machine compare ratios measured in the same run. ``hard``'s 0.1 s cap makes its play depend on how
busy the machine is; ``--uncapped`` lifts it, so that a run's games depend only on the seeds (its
times are then the full budget's), and ``--jobs`` spreads the deals over processes.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.baseline_heuristic import HeuristicPlayer as BaselinePlayer
from engine import PRESETS, Keep, NeighborRules, NeighborView, ShitheadView, Trade, new_game
from engine.ai import Player, SearchPlayer, make_player
from engine.moves import Move
from engine.neighbor import neighbor_value

Factory = Callable[[int], Player]
MAX_MOVES = 5000  # a game still going after this many moves is a loop between two policies


class ThresholdPlayer:
    """Neighbor: keep a card worth 6 or more (Ace 1 … King 13), trade anything lower."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: ShitheadView | NeighborView) -> Move:
        assert isinstance(view, NeighborView)
        if view.card is None or neighbor_value(view.card) >= 6 or Trade() not in view.legal_moves:
            return Keep() if Keep() in view.legal_moves else view.legal_moves[0]
        return Trade()


def level(name: str, uncapped: bool = False) -> Factory:
    if name == "baseline":
        return BaselinePlayer
    if name == "threshold6":
        return ThresholdPlayer
    if name == "hard" and uncapped:
        return lambda seed: SearchPlayer(seed, time_limit=None)
    return lambda seed: make_player(name, seed)


@dataclass
class Tally:
    games: int = 0
    first: int = 0
    not_loser: int = 0
    places: list[int] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    endless: int = 0


def play(kind: str, rules: object, seats: int, deal: int, hero_seat: int, hero: Factory, other: Factory) -> Tally:
    state = new_game(kind, rules, seats, 90_000 + deal)  # type: ignore[arg-type]
    players = {s: (hero if s == hero_seat else other)(deal * 101 + s) for s in range(seats)}
    tally = Tally(games=1)
    for _ in range(MAX_MOVES):
        if state.is_over:
            break
        seat = state.seats_to_act()[0]
        view = state.view(seat)
        start = time.perf_counter()
        move = players[seat].choose(view)
        if seat == hero_seat:
            tally.times.append(time.perf_counter() - start)
        state.apply(seat, move)
    outcome = state.outcome
    if outcome is None:  # two fixed habits caught in a loop: counted as neither first nor safe
        return Tally(games=1, places=[seats], times=tally.times, endless=1)
    place = outcome.places[hero_seat]
    tally.first = int(place == 1)
    tally.not_loser = int(place != max(outcome.places) or len(set(outcome.places)) == 1)
    tally.places = [place]
    return tally


def measure(
    kind: str, preset: str, seats: int, games: int, hero: str, other: str, uncapped: bool = False, jobs: int = 1
) -> Tally:
    """Every deal of the measure, the hero in each seat in turn; ``jobs`` processes share the deals."""
    deals = range(max(1, games // seats))
    chunks = [(kind, preset, seats, list(deals[j::jobs]), hero, other, uncapped) for j in range(jobs)]
    if jobs == 1:
        return _measure_deals(*chunks[0])
    with ProcessPoolExecutor(jobs) as pool:
        parts = list(pool.map(_measure_deals, *zip(*chunks, strict=True)))
    total = Tally()
    for part in parts:
        _add(total, part)
    return total


def _measure_deals(
    kind: str, preset: str, seats: int, deals: list[int], hero: str, other: str, uncapped: bool
) -> Tally:
    rules = PRESETS[preset] if kind == "shithead" else NeighborRules()
    total = Tally()
    hero_f, other_f = level(hero, uncapped), level(other, uncapped)
    for deal in deals:
        for hero_seat in range(seats):
            _add(total, play(kind, rules, seats, deal, hero_seat, hero_f, other_f))
    return total


def _add(total: Tally, t: Tally) -> None:
    total.games += t.games
    total.first += t.first
    total.not_loser += t.not_loser
    total.places += t.places
    total.times += t.times
    total.endless += t.endless


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate k/n."""
    if n == 0:
        return (0.0, 1.0)
    z, p = 1.96, k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def rate(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{k / n:6.1%} [{lo:.1%}, {hi:.1%}]"


def ms(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return (statistics.mean(ordered) * 1e3, ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1e3)


# name: (kind, seats, hero, opponents, default games, what the issue asks). The heuristic-only
# measures play 2,000 games (the issue asks for at least 400): they cost seconds, and 400 games of
# one fixed list of deals left an interval ten points wide.
MEASURES: dict[str, tuple[str, int, str, str, int, str]] = {
    "hard-normal": ("shithead", 2, "hard", "normal", 400, "first >= 70%"),
    "hard-3normal": ("shithead", 4, "hard", "normal", 300, "not loser >= 88%, first >= 35%"),
    "normal-baseline": ("shithead", 2, "normal", "baseline", 2000, "first >= 60%"),
    "hard-baseline": ("shithead", 2, "hard", "baseline", 400, "(for reference)"),
    "normal-easy": ("shithead", 2, "normal", "easy", 2000, "first >= 93% (standard, before)"),
    "baseline-easy": ("shithead", 2, "baseline", "easy", 2000, "(the heuristic before)"),
    "easy-threshold6": ("neighbor", 4, "easy", "threshold6", 400, "(Neighbor, chance 25%)"),
    "normal-threshold6": ("neighbor", 4, "normal", "threshold6", 400, "(Neighbor, chance 25%)"),
    "hard-threshold6": ("neighbor", 4, "hard", "threshold6", 400, "(Neighbor, chance 25%)"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--games", type=int, default=None, help="games per measure (default: at least the issue's counts)"
    )
    parser.add_argument("--presets", default="standard", help="comma-separated Shithead presets, or 'all'")
    parser.add_argument("--only", default="", help="comma-separated measure names: " + ", ".join(MEASURES))
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--uncapped", action="store_true", help="no time cap for hard: results depend on seeds only")
    parser.add_argument("--jobs", type=int, default=1, help="processes to share the deals (default 1)")
    args = parser.parse_args()
    presets = list(PRESETS) if args.presets == "all" else args.presets.split(",")
    names = args.only.split(",") if args.only else list(MEASURES)
    for name in names:
        kind, seats, hero, other, default_games, target = MEASURES[name]
        games = args.games or default_games
        for preset in presets if kind == "shithead" else ["neighbor"]:
            start = time.perf_counter()
            t = measure(kind, preset, seats, games, hero, other, args.uncapped, max(1, args.jobs))
            mean, p99 = ms(t.times)
            row = {
                "measure": name,
                "preset": preset,
                "seats": seats,
                "games": t.games,
                "first": round(t.first / t.games, 3),
                "first_ci": [round(x, 3) for x in wilson(t.first, t.games)],
                "not_loser": round(t.not_loser / t.games, 3),
                "not_loser_ci": [round(x, 3) for x in wilson(t.not_loser, t.games)],
                "mean_place": round(statistics.mean(t.places), 2),
                "ms_per_decision_mean": round(mean, 3),
                "ms_per_decision_p99": round(p99, 2),
                "endless": t.endless,
                "seconds": round(time.perf_counter() - start, 1),
            }
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                print(
                    f"{name:18} {preset:9} {seats} seats {t.games:4} games: first {rate(t.first, t.games)}, "
                    f"not loser {rate(t.not_loser, t.games)}; {hero} thinks {mean:.3f} ms mean, "
                    f"{p99:.2f} ms p99; {t.endless} endless   target: {target}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
