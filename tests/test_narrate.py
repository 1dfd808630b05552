"""Moves told in words: second person to the reader about their own moves, third person about the
others; articles, plurals and ordinals in English and in French."""

from __future__ import annotations

import pytest

from engine import PRESETS, NeighborRules, card_of
from engine import events as ev
from shithead_bot.narrate import Narrator, a_rank, ordinal

FOUR_DIAMONDS = card_of(2 + 13)  # 4♦
NAMES = ["Ann", "Bob", "Cleo"]


def told(event: ev.Event, me: int | None, language: str = "en", neighbor: bool = False) -> str | None:
    rules = NeighborRules() if neighbor else PRESETS["standard"]
    return Narrator(NAMES, rules, language, me=me).line(event)


@pytest.mark.parametrize(
    ("event", "english", "french"),
    [
        (ev.Played(0, "h", (FOUR_DIAMONDS,)), "You played 4♦", "Tu as joué 4♦"),
        (ev.Played(0, "u", (FOUR_DIAMONDS,)), "You played 4♦ from face-up", "Tu as joué 4♦ de tes cartes visibles"),
        (
            ev.Played(0, "d", (FOUR_DIAMONDS,)),
            "You turned over a face-down card: 4♦",
            "Tu as retourné une carte cachée : 4♦",
        ),
        (ev.PickedUp(0, 6, None), "You picked up the pile (6 cards)", "Tu as ramassé la pile (6 cartes)"),
        (ev.PickedUp(0, 1, None), "You picked up the pile (1 card)", "Tu as ramassé la pile (1 carte)"),
        (ev.Readied(0), "You are ready", "Tu as fini tes échanges"),
        (ev.PlayStarted(0, 8), "You start with an 8", "Tu commences avec un 8"),
        (ev.WentOut(0, 2), "You are out — 2nd place!", "Tu as fini — 2e place !"),
        (ev.Forfeited(0, 3), "You left the game", "Tu as quitté la partie"),
        (ev.Skipped((0,)), "You are skipped", "Ton tour est sauté"),
    ],
)
def test_my_own_moves_are_told_in_the_second_person(event: ev.Event, english: str, french: str) -> None:
    assert told(event, me=0) == english
    assert told(event, me=0, language="fr") == french


def test_the_others_moves_stay_in_the_third_person() -> None:
    assert told(ev.Played(1, "h", (FOUR_DIAMONDS,)), me=0) == "Bob played 4♦"
    assert told(ev.PickedUp(1, 6, None), me=0) == "Bob picked up the pile (6 cards)"
    assert told(ev.Played(0, "h", (FOUR_DIAMONDS,)), me=None) == "Ann played 4♦"


def test_neighbor_moves_speak_to_the_reader() -> None:
    king = card_of(11)  # K♣
    assert told(ev.Kept(0), me=0, neighbor=True) == "You keep"
    assert told(ev.Traded(0, None), me=0, neighbor=True) == "You trade with the deck"
    assert told(ev.Traded(0, 1), me=0, neighbor=True) == "You swap with Bob"
    assert told(ev.Traded(1, 0), me=0, neighbor=True) == "Bob swaps with you"
    assert told(ev.Blocked(1, 0, king), me=0, neighbor=True) == f"You block Bob with {king}!"
    assert told(ev.Blocked(0, 1, king), me=0, neighbor=True) == f"Bob blocks you with {king}!"
    assert told(ev.LifeLost(0, 1), me=0, neighbor=True) == "You lose a life (1 left)"
    assert told(ev.LifeLost(0, 2), me=0, neighbor=True, language="fr") == "Tu perds une vie (2 restantes)"
    assert told(ev.Eliminated(0, 3), me=0, neighbor=True) == "You are out of lives"
    assert told(ev.Skipped((1, 0)), me=0) == "Bob and you are skipped"
    assert told(ev.HandDealt(2, 0), me=0, neighbor=True) == "Hand 2: you deal"
    assert told(ev.HandDealt(2, 0), me=0, neighbor=True, language="fr") == "Manche 2 : c'est toi qui distribues"


def test_the_end_speaks_to_the_loser() -> None:
    assert told(ev.GameOver((1, 2, 3), (0,), 2), me=2) == "You are the Shithead! 💩"
    assert told(ev.GameOver((1, 2, 3), (0,), 2), me=0) == "Cleo is the Shithead! 💩"
    assert told(ev.GameOver((1, 2, 2), (0,), None), me=0, neighbor=True) == "You win!"


@pytest.mark.parametrize(
    ("rank", "english", "french"),
    [(8, "an 8", "un 8"), (14, "an A", "un A"), (3, "a 3", "un 3"), (11, "a J", "un J"), (10, "a 10", "un 10")],
)
def test_a_rank_takes_the_right_article(rank: int, english: str, french: str) -> None:
    assert a_rank(rank, "en") == english
    assert a_rank(rank, "fr") == french


def test_a_third_person_start_takes_the_right_article() -> None:
    assert told(ev.PlayStarted(1, 8), me=0) == "Bob starts with an 8"
    assert told(ev.PlayStarted(1, 14), me=0) == "Bob starts with an A"


@pytest.mark.parametrize(
    ("place", "english", "french"),
    [(1, "1st", "1er"), (2, "2nd", "2e"), (3, "3rd", "3e"), (11, "11th", "11e"), (22, "22nd", "22e")],
)
def test_ordinals(place: int, english: str, french: str) -> None:
    assert ordinal(place, "en") == english
    assert ordinal(place, "fr") == french
