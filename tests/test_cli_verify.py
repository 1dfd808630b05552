"""``shithead-bot verify FILE`` through the real CLI, on a file from ``shithead-bot export``: exit 0
when everything matches, 1 and a ❌ line for a changed move, seed or salt, 2 for a file it cannot
read or a game exported before its end."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from persistence.migrate import upgrade
from tests.test_cli_data import _two_games, cli, cli_here, exported


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any], int]:
    path = tmp_path_factory.mktemp("verify") / "games.db"
    url = f"sqlite+aiosqlite:///{path}"
    upgrade(url)
    done, playing = asyncio.run(_two_games(url))  # a finished game and one still in play
    return url, exported(url, done), playing


def verify(
    tmp_path: Path, data: dict[str, Any], run: Callable[..., subprocess.CompletedProcess[str]] = cli_here
) -> tuple[int, list[str]]:
    """``verify`` through ``main`` in this process, or (``run=cli``) in a process of its own."""
    file = tmp_path / "game.json"
    file.write_text(json.dumps(data), encoding="utf-8")
    done = run("verify", str(file))
    assert done.stderr == ""
    return done.returncode, done.stdout.strip().splitlines()


def test_a_real_finished_game_verifies(stored: tuple[str, dict[str, Any], int], tmp_path: Path) -> None:
    _, data, _ = stored
    code, lines = verify(tmp_path, data, cli)
    assert code == 0, lines
    assert lines[0] == f"Game {data['game']}: Shithead, 3 players: User0, User1, {data['players'][2]['name']}"
    assert lines[1] == (
        f"✅ Commitment: SHA-256 of game {data['game']}, seed {data['seed']} and salt {data['salt']} begins"
        f" {data['commitment']}, the fingerprint published at the start."
    )
    assert lines[2].startswith(f"✅ Deal: dealt again from seed {data['seed']} with the game's rules (standard, 3 ")
    assert lines[3] == f"✅ Moves: all {len(data['moves'])} moves are legal, and each gives the events recorded."
    assert lines[4].startswith("✅ Result: 1st ")
    assert lines[4].endswith("(loser), as recorded.")
    assert lines[5] == "✅ Everything matches: the deal was fixed before the first move, and every move was legal."


def test_a_changed_move_fails(stored: tuple[str, dict[str, Any], int], tmp_path: Path) -> None:
    _, data, _ = stored
    changed = json.loads(json.dumps(data))
    move = changed["moves"][12]
    move["seat"] = (move["seat"] + 1) % 3  # someone else's move, out of turn
    code, lines = verify(tmp_path, changed)
    assert code == 1
    assert lines[1].startswith("✅ Commitment:")
    assert lines[3].startswith("❌ Move 13 (")
    assert lines[3].endswith(f"The {len(data['moves']) - 13} moves after it were not checked.")
    assert lines[4] == "   The end of the game was not checked."
    assert lines[-1] == "❌ Something does not match: see the lines marked ❌."


def test_a_changed_seed_fails(stored: tuple[str, dict[str, Any], int], tmp_path: Path) -> None:
    _, data, _ = stored
    code, lines = verify(tmp_path, {**data, "seed": data["seed"] + 1})
    assert code == 1
    assert lines[1].startswith(f"❌ Commitment: SHA-256 of game {data['game']}, seed {data['seed'] + 1} and salt")
    assert lines[1].endswith(
        f"but the fingerprint published at the start was {data['commitment']}: this seed or salt is not the one"
        " committed to."
    )
    assert lines[2].startswith(f"❌ Deal: dealt again from seed {data['seed'] + 1} with the game's rules")
    assert lines[2].endswith("nothing shows this is the deal the players got.")
    assert lines[-1].startswith("❌")


def test_a_changed_salt_fails(stored: tuple[str, dict[str, Any], int], tmp_path: Path) -> None:
    _, data, _ = stored
    salt = data["salt"]
    changed = ("0" if salt[0] != "0" else "1") + salt[1:]  # "f" + salt[1:] was no change for one salt in 16
    code, lines = verify(tmp_path, {**data, "salt": changed})
    assert code == 1
    assert lines[1].startswith("❌ Commitment:")
    # seed or salt: which one changed cannot be told, so the deal is not shown to be the players'; the
    # moves are legal from it and end as recorded
    assert [line[0] for line in lines[2:5]] == ["❌", "✅", "✅"]
    assert lines[-1].startswith("❌")


def test_what_cannot_be_verified_is_one_line(stored: tuple[str, dict[str, Any], int], tmp_path: Path) -> None:
    url, _, playing = stored
    file = tmp_path / "live.json"
    file.write_text(json.dumps(exported(url, playing)))
    refused = cli_here("verify", str(file))
    assert (refused.returncode, refused.stderr.strip()) == (
        2,
        f"shithead-bot: {file} has no seed: game {playing} was not over when it was exported",
    )
    file.write_text("{not json")
    refused = cli_here("verify", str(file))
    assert (refused.returncode, refused.stderr.strip()) == (2, f"shithead-bot: {file} is not a game export (not JSON)")
    missing = cli("verify", str(tmp_path / "nothing.json"))
    assert missing.returncode == 2
