"""The terminal game: what people type, whole games through the text interface, and the CLI."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from engine import PRESETS, CardNotOwnedError, PickUp, Play, PlayFaceDown, Ready, ShitheadState, Source, Swap, rank_text
from engine.ai import make_player
from shithead_bot.cli import build_rules, main
from shithead_bot.terminal import InputError, TerminalGame, describe_move, parse_input

H = Source.HAND


def position(hand: list[int], pile: list[int], face_up: list[int] | None = None, fd: int = 3) -> ShitheadState:
    """Seat 0 to act in a 2-seat standard game with the given hand ranks and pile ranks."""
    state = ShitheadState.new(PRESETS["standard"], 2, seed=1)
    data = state.to_dict()
    free = list(range(52))

    def take(rank: int) -> int:
        card = next(c for c in free if c % 13 + 2 == rank)
        free.remove(card)
        return card

    data["hands"] = [[take(r) for r in hand], [take(5)]]
    data["face_up"] = [[take(r) for r in (face_up or [])], []]
    data["face_down"] = [[take(14) if i < fd else None for i in range(3)], [None, None, None]]
    data["pile"] = [take(r) for r in pile]
    data["stock"] = []
    data["discard"] = free
    data.update(phase="play", turn=0, top=pile[-1] if pile else 0, ready=[True, True])
    return ShitheadState.from_dict(json.loads(json.dumps(data)))


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("q", Play(H, 12, 1)),
        ("Q", Play(H, 12, 1)),
        ("qq", Play(H, 12, 2)),
        ("2 q", Play(H, 12, 2)),
        ("2q", Play(H, 12, 2)),
        ("q x2", Play(H, 12, 2)),
        ("Q×2", Play(H, 12, 2)),
        ("10", Play(H, 10, 1)),
        ("1010", Play(H, 10, 1 * 2)),
        ("44", Play(H, 4, 2)),
        ("  k ", Play(H, 13, 1)),
    ],
)
def test_people_type_ranks_and_counts(text: str, move: Play) -> None:
    state = position(hand=[12, 12, 10, 10, 13, 4, 4], pile=[2])
    assert parse_input(text, state.view(0)) == move


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("j", "no J in hand"),
        ("3 q", "only 2 × Q"),
        ("4", "a 4 cannot go on a 9 now"),
        ("pickup", "you have a legal play"),
        ("hello", "not a move"),
        ("", "type a move"),
        ("gamble", "cannot play the stock"),
    ],
)
def test_a_wrong_input_gets_a_short_reason(text: str, reason: str) -> None:
    state = position(hand=[12, 12, 10, 13, 4], pile=[9])
    with pytest.raises(InputError, match=reason):
        parse_input(text, state.view(0))


def test_pickup_and_face_down_slots() -> None:
    stuck = position(hand=[4, 5], pile=[13])
    assert parse_input("pickup", stuck.view(0)) == PickUp()
    assert parse_input("pick up", stuck.view(0)) == PickUp()
    blind = position(hand=[], pile=[13], fd=2)
    assert parse_input("2", blind.view(0)) == PlayFaceDown(2)
    with pytest.raises(InputError, match="slot 3 is empty"):
        parse_input("3", blind.view(0))
    with pytest.raises(InputError, match="face-down"):
        parse_input("q", blind.view(0))


def test_face_up_pickup_names_the_card_taken_along() -> None:
    state = position(hand=[], pile=[13], face_up=[9, 6])
    data = state.to_dict()
    data["rules"] = PRESETS["smelly"].to_dict()
    smelly = ShitheadState.from_dict(data)
    with pytest.raises(InputError, match="pickup 6"):
        parse_input("pickup", smelly.view(0))
    assert parse_input("pickup 6", smelly.view(0)) == PickUp(6)


def test_swap_phase_inputs() -> None:
    state = ShitheadState.new(PRESETS["standard"], 2, seed=4)
    view = state.view(0)
    hand_rank = view.hand[0].rank
    up_rank = next(c.rank for c in view.seats[0].face_up if c.rank != hand_rank)
    assert parse_input(f"{rank_text(hand_rank)} {rank_text(up_rank)}", view) == Swap(hand_rank, up_rank)
    assert parse_input(f"swap {rank_text(hand_rank)} for {rank_text(up_rank)}", view) == Swap(hand_rank, up_rank)
    assert parse_input("ready", view) == Ready()
    with pytest.raises(InputError, match="swap with"):
        parse_input("q", view)


@pytest.mark.parametrize("game", ["smelly", "classic", "free", "standard", "neighbor"])
def test_a_whole_game_typed_through_the_text_interface(game: str) -> None:
    """A person who types what describe_move shows them can play a whole game to the ranking."""
    kind = "neighbor" if game == "neighbor" else "shithead"
    rules = build_rules(kind, None if kind == "neighbor" else game, [])
    out = io.StringIO()
    helper = make_player("heuristic", seed=9)
    holder: dict[str, TerminalGame] = {}

    def read(prompt: str) -> str:
        view = holder["game"].state.view(0)
        return describe_move(helper.choose(view))

    terminal = TerminalGame(kind, rules, 3, 21, "random", False, out, read)
    holder["game"] = terminal
    assert terminal.run() == 0
    text = out.getvalue()
    assert "Final ranking:" in text
    assert "is not a move" not in text


def test_auto_prints_the_whole_game_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--auto", "--seats", "4", "--seed", "3", "--preset", "smelly"]) == 0
    text = capsys.readouterr().out
    assert "Final ranking:" in text
    assert "ShitSmelly Head" in text


def test_cli_rejects_a_bad_house_rule_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--auto", "--rule", "four_burns=maybe"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("shithead-bot: four_burns='maybe'")
    assert err.count("\n") == 1


def test_house_rules_reach_the_game() -> None:
    rules = build_rules("shithead", "standard", ["7=lower", "four_burns=off", "decks=2"])
    assert rules.power(7) is not None
    assert not rules.four_burns
    assert rules.decks == 2
    assert rules.house_rules() == {"four_burns": "off", "decks": "2", "7": "lower"}
    with pytest.raises(CardNotOwnedError):
        position([4], [3]).apply(0, "p:h:Q:1")


def test_console_script_runs_neighbor_auto() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "shithead_bot.cli", "play", "--auto", "--game", "neighbor", "--seats", "5"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "wins!" in done.stdout or "share the win!" in done.stdout
