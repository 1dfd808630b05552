"""``shithead-bot replay FILE``: deal an exported game again from its seed, apply every move of its
log through the engine, and tell the game in words (the table's public events, as the group saw
them). A move the engine refuses means the export does not match this code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine
from engine import EngineError, GameKind, rules_from_dict
from shithead_bot.narrate import Narrator

GAME_TITLES: dict[str, str] = {GameKind.SHITHEAD: "Shithead", GameKind.NEIGHBOR: "Shit On Your Neighbor"}


class ReplayError(Exception):
    """The file cannot be replayed (said in one line)."""


def load_export(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror}") from exc
    except ValueError as exc:
        raise ReplayError(f"{path} is not a game export (not JSON)") from exc
    if not isinstance(data, dict) or data.get("format") != "shithead-bot game":
        raise ReplayError(f'{path} is not a game export (no "format": "shithead-bot game")')
    if data.get("seed") is None:
        raise ReplayError(f"{path} has no seed: game {data.get('game')} was not over when it was exported")
    return data


def replay_lines(data: dict[str, Any]) -> list[str]:
    """The game told move by move, from a heading to the result."""
    kind = str(data["kind"])
    rules = rules_from_dict(kind, data["rules"])
    names = [str(p["name"]) for p in data["players"]]
    state = engine.new_game(kind, rules, len(names), int(data["seed"]), int(data.get("dealer", 0)))
    narrator = Narrator(names, rules)
    title = GAME_TITLES.get(kind, kind)
    lines = [f"Game {data['game']}: {title}, {len(names)} players: {', '.join(names)}"]
    for move in data["moves"]:
        try:
            events = state.apply(int(move["seat"]), str(move["move"]))
        except EngineError as exc:
            who = names[int(move["seat"])]
            raise ReplayError(f"move {move['seq']} ({who}: {move['move']!r}) does not replay: {exc}") from exc
        lines.extend(narrator.lines(events))
    return lines
