"""The ``shithead-bot`` command: ``play`` in the terminal, ``migrate`` the database, ``run`` the bot."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence

from engine import GAME_KINDS, PRESETS, AnyRules, EngineError, NeighborRules, preset
from engine.ai import LEVELS
from engine.rules import DEFAULT_PRESET


def build_rules(game: str, preset_name: str | None, rules: Sequence[str]) -> AnyRules:
    """The rules a command line asks for: a preset (or Neighbor) plus ``KEY=VALUE`` house rules."""
    base: AnyRules = NeighborRules() if game == "neighbor" else preset(preset_name or DEFAULT_PRESET)
    changes: dict[str, str] = {}
    for item in rules:
        key, sep, value = item.partition("=")
        if not sep:
            raise EngineError(f"--rule {item!r}: expected KEY=VALUE, e.g. four_burns=off or 8=skip")
        changes[key.strip()] = value.strip()
    return base.with_rules(changes)


def _play_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("play", help="play a game in the terminal against computer players (no token needed)")
    p.add_argument("--game", choices=GAME_KINDS, default="shithead")
    p.add_argument("--preset", choices=sorted(PRESETS), default=None, help=f"default {DEFAULT_PRESET}")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE", help="a house rule, repeatable")
    p.add_argument("--seats", type=int, default=3, help="players including you (default 3)")
    p.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    p.add_argument("--level", choices=LEVELS, default="heuristic", help="computer players' level")
    p.add_argument("--auto", action="store_true", help="computer players in every seat; print the whole game")
    p.add_argument("--name", default="Player", help="your name at the table")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="shithead-bot", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    _play_parser(sub)
    return p


def _play(args: argparse.Namespace) -> int:
    from shithead_bot.terminal import play

    if args.game == "neighbor" and args.preset:
        raise EngineError("--preset is for Shithead; Neighbor takes --rule lives=4")
    rules = build_rules(args.game, args.preset, args.rule)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    return play(args.game, rules, args.seats, seed, args.level, args.auto, args.name)


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.command == "play":
            return _play(args)
    except EngineError as exc:
        print(f"shithead-bot: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
