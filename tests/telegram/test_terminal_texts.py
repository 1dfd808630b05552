"""The terminal game's words: help without markup, Neighbor's own help, names that never clash,
the reader's own moves in the second person, and ``shithead-bot --help``."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from engine.ai import make_player
from shithead_bot.cli import build_rules, parser
from shithead_bot.terminal import InputError, Table, TerminalGame, describe_move, parse_input
from tests.telegram.test_terminal import position


def typed(kind: str, lines: list[str], name: str = "Player", seats: int = 3) -> tuple[TerminalGame, str]:
    """A terminal game where the person types ``lines`` and then quits."""
    out = io.StringIO()
    given: Iterator[str] = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(given)
        except StopIteration:
            raise EOFError from None

    rules = build_rules(kind, None, [])
    game = TerminalGame(kind, rules, seats, 21, "random", False, out, read, name)
    game.run()
    return game, out.getvalue()


def test_help_has_no_markup_and_tells_the_moves() -> None:
    _game, text = typed("shithead", ["help"])
    assert "``" not in text
    assert "q (one Queen), qq or 2 q (two Queens), 10 (a Ten)" in text
    assert "ready" in text


def test_neighbor_has_its_own_help() -> None:
    _game, text = typed("neighbor", ["help"])
    assert "``" not in text
    assert "keep: keep your card" in text
    assert "pickup" not in text
    assert "gamble" not in text


def test_the_neighbor_dealer_is_told_that_swap_trades_with_the_deck() -> None:
    out = io.StringIO()
    helper = make_player("random", seed=3)
    holder: dict[str, TerminalGame] = {}

    def read(prompt: str) -> str:
        return describe_move(helper.choose(holder["game"].state.view(0)))

    game = TerminalGame("neighbor", build_rules("neighbor", None, []), 3, 21, "random", False, out, read)
    holder["game"] = game
    game.run()
    text = out.getvalue()
    assert "You deal: 'swap' trades your card with the top of the deck." in text
    assert "Your moves: keep, swap (with the deck)" in text
    assert "'swap' swaps your card with " in text  # when someone else deals


@pytest.mark.parametrize(("name", "first"), [("Ann", "Ann"), ("", "Player"), ("   ", "Player"), ("  Zoë ", "Zoë")])
def test_names_are_never_empty_or_twice_at_the_table(name: str, first: str) -> None:
    game, _text = typed("shithead", [], name=name, seats=4)
    assert game.names[0] == first
    assert len({n.casefold() for n in game.names}) == 4
    assert all(n.strip() for n in game.names)


def test_auto_names_are_distinct_too() -> None:
    out = io.StringIO()
    game = TerminalGame("shithead", build_rules("shithead", None, []), 5, 1, "random", True, out, input)
    assert len(set(game.names)) == 5


def test_my_own_moves_are_told_to_me() -> None:
    _game, text = typed("shithead", ["ready", "pickup", "3", "4", "5"], name="Zoë")
    assert "You are ready" in text
    assert "Zoë is ready" not in text


def test_the_pile_counts_in_the_singular() -> None:
    state = position(hand=[12], pile=[9])
    line = Table(["Ann", "Ben"], str).shithead(state.view(0))[0]
    assert "(1 card, top 9)" in line


def test_a_refusal_takes_the_right_article() -> None:
    state = position(hand=[8, 12], pile=[9])
    with pytest.raises(InputError, match="an 8 cannot go on a 9"):
        parse_input("8", state.view(0))


def test_cli_help_has_no_markup() -> None:
    top = parser().format_help()
    assert "``" not in top
    assert "play" in top
    play = parser()._subparsers._group_actions[0].choices["play"].format_help()  # type: ignore[union-attr]
    assert "``" not in play
    assert "your name at the table (default: Player)" in " ".join(play.split())


def test_one_seat_is_said_in_the_singular(capsys: pytest.CaptureFixture[str]) -> None:
    from shithead_bot.cli import main

    assert main(["play", "--auto", "--seats", "1"]) == 2
    assert capsys.readouterr().err == "shithead-bot: 1 seat: this game takes 2-5 players (two decks allow up to 10)\n"
    assert main(["play", "--auto", "--game", "neighbor", "--seats", "1"]) == 2
    assert capsys.readouterr().err == "shithead-bot: 1 seat: this game takes 2-20 players\n"


def test_an_empty_pile_is_said_so() -> None:
    state = position(hand=[12], pile=[])
    assert Table(["Ann", "Ben"], str).shithead(state.view(0))[0] == "Pile: empty · Stock: 0 · Burned: 47"
