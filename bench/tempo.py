"""Tempo: how many of a game's turns ask a person for a decision, and how many play themselves.

    python bench/tempo.py                  # a table: every preset, 2 and 4 seats, 100 games each
    python bench/tempo.py --games 300 --seats 2 3 4 5 --json

Every seat plays ``normal`` (the heuristic), as the bot's players are modelled. For each turn of
the play phase (the swap phase is always the player's: one Ready each) it asks
:func:`engine.forced.forced_move` whether the seat to act has one legal move, and who could tell:

- *public*: everybody can see it was forced (a pickup when nothing fits, a face-up or last
  face-down card, the last card in hand, the named first play) — the bot makes it by default;
- *private*: the one fitting card of a hand of several — the bot makes it only for a player who
  chose ``/settings autoplay all`` (the others then learn that nothing else in that hand fits).

Per preset and seat count it prints moves per game and human decisions per game with autoplay
``off``, ``public`` (the default) and ``all``, and the share of turns of each forced kind.
Figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import PRESETS, new_game
from engine.ai import make_player
from engine.forced import Forced, forced_move

LIMIT = 5000  # moves; a game that goes round in circles ends by the engine's own rule long before


def one_game(rules: object, seats: int, seed: int) -> Counter[str]:
    """One game of ``normal`` players; counts its moves and its play-phase turns by kind."""
    state = new_game("shithead", rules, seats, seed)  # type: ignore[arg-type]
    players = [make_player("normal", seed * 31 + seat) for seat in range(seats)]
    count: Counter[str] = Counter()
    for _ in range(LIMIT):
        if state.is_over:
            break
        seat = state.seats_to_act()[0]
        view = state.view(seat)
        if state.to_act is not None:  # the play phase: one turn (a move) of one seat
            found = forced_move(view)
            count["turn"] += 1
            count[str(found[1]) if found else "choice"] += 1
        else:
            count["swap"] += 1
        state.apply(seat, players[seat].choose(view))
        count["move"] += 1
    return count


def measure(preset: str, seats: int, games: int) -> dict[str, object]:
    total: Counter[str] = Counter()
    for seed in range(games):
        total += one_game(PRESETS[preset], seats, seed)
    turns = total["turn"] or 1
    public, private = total[str(Forced.PUBLIC)], total[str(Forced.PRIVATE)]
    per_game = {key: round(total[key] / games, 1) for key in ("move", "turn")}
    return {
        "preset": preset,
        "seats": seats,
        "games": games,
        "moves": per_game["move"],
        "turns": per_game["turn"],
        "decisions_off": round((total["turn"] + total["swap"]) / games, 1),
        "decisions_public": round((total["turn"] + total["swap"] - public) / games, 1),
        "decisions_all": round((total["turn"] + total["swap"] - public - private) / games, 1),
        "forced_public": round(100 * public / turns, 1),
        "forced_private": round(100 * private / turns, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100, help="games per preset and seat count")
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--presets", nargs="+", default=list(PRESETS))
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    args = parser.parse_args()
    if not args.json:
        print(f"{'preset':9} {'seats':>5} {'moves':>7} {'turns':>7}   human decisions per game   forced turns")
        autoplay = f"{'off':>7} {'public':>7} {'all':>7}"
        print(f"{'':9} {'':>5} {'/game':>7} {'/game':>7}   {autoplay}   {'public':>7} {'private':>7}")
    for preset in args.presets:
        for seats in args.seats:
            row = measure(preset, seats, args.games)
            if args.json:
                print(json.dumps(row), flush=True)
                continue
            print(
                f"{preset:9} {seats:>5} {row['moves']:>7} {row['turns']:>7}   {row['decisions_off']:>7} "
                f"{row['decisions_public']:>7} {row['decisions_all']:>7}   {row['forced_public']:>6}% "
                f"{row['forced_private']:>6}%",
                flush=True,
            )


if __name__ == "__main__":
    main()
