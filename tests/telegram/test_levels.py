"""Computer levels in the bot: /newgame reads a level and a number of computers, the lobby offers
one button per level (keyed like before: two taps add one) and shows each computer's level, in
English and French, and /help tells how to choose."""

from __future__ import annotations

import pytest

from engine import PRESETS
from engine.ai import LEVELS
from persistence.models import Chat, Game, Seat
from shithead_bot import cli
from shithead_bot.i18n import translations
from shithead_bot.service.unit import GameTx
from shithead_bot.telegram.callback_data import Action, Codec, ComputerChoice
from shithead_bot.telegram.parsing import NewGame, parse_newgame
from shithead_bot.telegram.render.common import Page
from shithead_bot.telegram.render.info import help_text
from shithead_bot.telegram.render.levels import LEVEL_NAMES, level_text
from shithead_bot.telegram.render.lobby import lobby
from tests.telegram.test_render_privacy import NOW

CODEC = Codec(b"k")


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ([], NewGame()),
        (["hard"], NewGame(level="hard")),
        (["standard", "hard", "2"], NewGame(preset="standard", level="hard", computers=2)),
        (["3", "EASY", "smelly"], NewGame(preset="smelly", level="easy", computers=3)),
        (["heuristic"], NewGame(level="normal")),
        (["random", "1"], NewGame(level="easy", computers=1)),
        (["Difficile", "2"], NewGame(level="hard", computers=2)),
        (["facile"], NewGame(level="easy")),
        (["neighbor", "normal"], NewGame(kind="neighbor", level="normal")),
        (["hard", "four_burns=off"], NewGame(level="hard", house_rules={"four_burns": "off"})),
    ],
)
def test_newgame_reads_a_level_and_how_many(words: list[str], expected: NewGame) -> None:
    assert parse_newgame(words) == expected


@pytest.mark.parametrize("words", [["0"], ["10"], ["grandmaster"], ["-1"], ["２"], ["hard", "many"]])
def test_newgame_refuses_other_words(words: list[str]) -> None:
    assert parse_newgame(words) is None


def lobby_page(levels: list[str | None], language: str = "en") -> Page:
    game = Game(id=9, chat_id=-1, kind="shithead", status="lobby", rules=PRESETS["standard"].to_dict(), version=2)
    seats = [
        Seat(game_id=9, number=n, player_id=None if level else 100 + n, computer_level=level, name=f"🤖 C{n}")
        if level
        else Seat(game_id=9, number=n, player_id=100 + n, name=f"P{n}")
        for n, level in enumerate(levels)
    ]
    tx = GameTx(None, game, seats, Chat(id=-1, title="Friends"), NOW)  # type: ignore[arg-type]
    return Page(tx.snapshot(), CODEC, language)


def test_the_lobby_shows_each_computers_level() -> None:
    text = lobby(lobby_page([None, "hard", "easy", "heuristic"])).text
    assert "P0, 🤖 C1 (hard), 🤖 C2 (easy), 🤖 C3 (normal)" in text
    french = lobby(lobby_page([None, "hard", "easy", "normal"], "fr")).text
    assert "P0, 🤖 C1 (difficile), 🤖 C2 (facile), 🤖 C3 (normal)" in french


def test_the_lobby_offers_every_level_weakest_first_keyed_by_the_computers_shown() -> None:
    buttons = [b for row in lobby(lobby_page([None, "hard"])).buttons for b in row]
    adds = [(b.text, CODEC.decode(b.callback_data)) for b in buttons if isinstance(b.callback_data, str)]
    adds = [(text, button) for text, button in adds if button.action is Action.ADD_COMPUTER]
    assert [text for text, _ in adds] == ["🤖 Easy", "🤖 Normal", "🤖 Hard"]
    assert [ComputerChoice.parse(b.argument) for _, b in adds] == [ComputerChoice(lv, 1) for lv in LEVELS]
    french = lobby(lobby_page([None], "fr")).buttons
    assert [b.text for b in french[1]] == ["🤖 Facile", "🤖 Normal", "🤖 Difficile"]


def test_an_older_button_still_reads_its_level() -> None:
    assert ComputerChoice.parse("heuristic.0") == ComputerChoice("heuristic", 0)
    assert ComputerChoice.parse("heuristic") == ComputerChoice("heuristic", None)


def test_every_level_has_a_translated_name() -> None:
    french = translations("fr").gettext
    assert set(LEVEL_NAMES) == set(LEVELS)
    for level in LEVELS:
        assert level_text(str, level) == level
    assert [level_text(french, lv) for lv in LEVELS] == ["facile", "normal", "difficile"]
    assert level_text(french, "random") == "facile"
    assert level_text(french, "unknown") == "unknown"


@pytest.mark.parametrize("language", ["en", "fr"])
def test_help_tells_how_to_choose_a_level(language: str) -> None:
    text = help_text(translations(language))
    assert "/newgame hard 3" in text
    assert all(level in text for level in LEVELS)


@pytest.mark.parametrize(
    ("word", "level"), [("easy", "easy"), ("normal", "normal"), ("HARD", "hard"), ("heuristic", "normal")]
)
def test_the_terminal_takes_the_levels_and_their_older_names(word: str, level: str) -> None:
    assert cli.parser().parse_args(["play", "--level", word]).level == level


def test_the_terminal_help_lists_the_levels_weakest_first(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["play", "--help"])
    assert "--level {easy,normal,hard}" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["play", "--level", "grandmaster"])
    assert "choose from 'easy', 'normal', 'hard'" in capsys.readouterr().err
