"""Table picture benchmark: milliseconds per table and bytes per PNG, for 2, 5 and 10 seats.

    python bench/render.py                  # a table of figures
    python bench/render.py --json           # one JSON object per line: seats, ms_per_table, bytes
    python bench/render.py --examples docs  # also write the example pictures the README shows

Each position comes from seeded random play (10 seats: two decks), mid-game, with names in several
scripts. Timings are of the whole ``render_table`` call (drawing and PNG encoding) after one warm-up
render (fonts, card sprites and the empty table are cached per process), pinned to one core where
the system allows it; the median of the repeats is reported. Figures, not pass/fail: timings on a
shared machine are noisy. Targets: at most 30 ms and 80 KB at 10 seats.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import PRESETS, NeighborRules, NeighborState, ShitheadState, new_game
from engine.common import GameState
from engine.events import Event
from engine.rules import Power
from shithead_bot.narrate import Narrator
from shithead_bot.picture import TableInfo, render_ranking, render_table

NAMES = [
    "Alice",
    "Жанна",
    "محمد",
    "李小龙",
    "Bob 🎸",
    "さくら",
    "김민준",
    "Zoë-Hélène",
    "Σοφία",
    "Oscar",
]


def names_for(seats: int) -> list[str]:
    return NAMES[:seats] if seats <= len(NAMES) else [f"Player {s + 1}" for s in range(seats)]


def advance(state: GameState, rng: random.Random, steps: int, log: list[Event]) -> None:
    """Random legal moves (every seat swaps at random first), at most ``steps`` of them."""
    for _ in range(steps):
        if state.is_over:
            return
        seat = rng.choice(state.seats_to_act())
        log += state.apply(seat, rng.choice(state.legal_moves(seat)))


def position(seats: int, seed: int = 3, steps: int = 0, preset: str = "standard") -> tuple[ShitheadState, list[Event]]:
    rules = PRESETS[preset].with_rule("decks", 2) if seats > 5 else PRESETS[preset]
    state = new_game("shithead", rules, seats, seed)
    assert isinstance(state, ShitheadState)
    log: list[Event] = []
    advance(state, random.Random(seed), steps or 12 * seats, log)
    return state, log


def info_for(state: GameState, log: list[Event], title: str) -> TableInfo:
    names = names_for(state.seats)
    narrator = Narrator(names, state.rules)  # type: ignore[attr-defined]
    return TableInfo(names, title=title, deadline="until Tue 18:00 UTC", actions=narrator.lines(log)[-3:])


def measure(seats: int, repeats: int) -> dict[str, object]:
    state, log = position(seats)
    view = state.view(None)
    info = info_for(state, log, f"Shithead (standard) · #{seats}")
    picture = render_table(view, info)  # warm-up: fonts, sprites, the empty table
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        picture = render_table(view, info)
        times.append(time.perf_counter() - start)
    return {
        "seats": seats,
        "ms_per_table": round(statistics.median(times) * 1000, 2),
        "bytes": len(picture.png),
        "ms_min": round(min(times) * 1000, 2),
        "size": list(picture.size),
    }


def smelly_invisible(seats: int = 4) -> tuple[ShitheadState, list[Event]]:
    """A smelly game in play where at least two invisible 3s lie on the card to beat."""
    invisible = next(r for r, p in PRESETS["smelly"].powers if p is Power.INVISIBLE)
    for seed in range(500):
        state = new_game("shithead", PRESETS["smelly"], seats, seed)
        assert isinstance(state, ShitheadState)
        rng = random.Random(seed)
        log: list[Event] = []
        for _ in range(300):
            if state.is_over:
                break
            advance(state, rng, 1, log)
            pile = state.view(None).pile
            on_top = len(pile) >= 4 and all(c.rank == invisible for c in pile[-2:]) and pile[-3].rank != invisible
            if state.phase == "play" and on_top:
                return state, log
    raise RuntimeError("no position with invisible cards on top found")


def finished(seats: int = 5, preset: str = "smelly") -> tuple[ShitheadState, list[Event]]:
    state = new_game("shithead", PRESETS[preset], seats, 11)
    assert isinstance(state, ShitheadState)
    log: list[Event] = []
    advance(state, random.Random(11), 5000, log)
    return state, log


def mid_game(seats: int, seed: int) -> tuple[ShitheadState, list[Event]]:
    """A position worth showing: in play, a few cards on the pile, someone already out (3+ seats)."""
    state, log = position(seats, seed, steps=1)
    rng = random.Random(seed)
    for _ in range(5000):
        view = state.view(None)
        out = sum(info.place is not None for info in view.seats)
        if state.phase == "play" and len(view.pile) >= 3 and (seats < 3 or out >= 1) and view.pile[-1].rank != 10:
            return state, log
        advance(state, rng, 1, log)
    raise RuntimeError("no position worth showing found")


def examples(folder: Path) -> list[Path]:
    """The README's example pictures."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for seats in (2, 4, 10):
        state, log = mid_game(seats, seed=5)
        decks = " · 2 decks" if state.rules.decks == 2 else ""
        info = info_for(state, log, f"Shithead (standard{decks}) · #{40 + seats}")
        written.append(folder / f"table-{seats}.png")
        written[-1].write_bytes(render_table(state.view(None), info).png)
    state, log = smelly_invisible()
    written.append(folder / "table-smelly-invisible.png")
    written[-1].write_bytes(render_table(state.view(None), info_for(state, log, "Shithead (smelly) · #12")).png)
    neighbor = new_game("neighbor", NeighborRules(), 6, 2)
    assert isinstance(neighbor, NeighborState)
    log = []
    advance(neighbor, random.Random(2), 9, log)
    written.append(folder / "table-neighbor.png")
    written[-1].write_bytes(
        render_table(neighbor.view(None), info_for(neighbor, log, "Shit On Your Neighbor · #7")).png
    )
    state, log = finished()
    written.append(folder / "ranking.png")
    names = names_for(state.seats)
    written[-1].write_bytes(render_ranking(state.view(None), TableInfo(names, title="Shithead (smelly) · #12")).png)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--repeats", type=int, default=60, help="renders per seat count (default 60)")
    parser.add_argument("--seats", type=int, nargs="*", default=[2, 5, 10])
    parser.add_argument("--examples", type=Path, metavar="DIR", help="write the example pictures there")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    if args.examples:
        for path in examples(args.examples):
            print(f"wrote {path}", file=sys.stderr)
    if not args.json:
        print(f"{'seats':>5}  {'ms/table':>8}  {'min ms':>7}  {'bytes':>7}")
    for seats in args.seats:
        row = measure(seats, args.repeats)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(f"{row['seats']:>5}  {row['ms_per_table']:>8}  {row['ms_min']:>7}  {row['bytes']:>7}", flush=True)


if __name__ == "__main__":
    main()
