"""The final ranking picture: places in order, names, and the loser in the preset's words."""

from __future__ import annotations

import pytest

from engine import PRESETS, NeighborRules, ShitheadState, new_game
from shithead_bot.picture import Labels, TableInfo, render_ranking
from tests.engine.helpers import position
from tests.picture.helpers import decoded, names, play


def finished(preset: str, seats: int, seed: int = 11) -> ShitheadState:
    state = play(new_game("shithead", PRESETS[preset], seats, seed), 5000, seed)
    assert isinstance(state, ShitheadState)
    assert state.is_over
    return state


@pytest.mark.parametrize(("preset", "title"), [("smelly", "ShitSmelly Head"), ("standard", "Shithead")])
def test_the_ranking_lists_every_place_and_names_the_loser_in_the_presets_words(preset: str, title: str) -> None:
    state = finished(preset, 5)
    outcome = state.outcome
    assert outcome is not None
    assert outcome.loser is not None
    picture = render_ranking(state.view(None), TableInfo(names(5), title="Shithead · #12"))
    decoded(picture)
    assert [item.seat for item in picture.items("name")] == list(outcome.ranking)
    assert [item.what for item in picture.items("place")] == ["1st", "2nd", "3rd", "4th", "5th"]
    (verdict,) = picture.items(role="verdict")
    assert verdict.what == f"💩 {names(5)[outcome.loser]} is the {title}!"


def test_the_loser_title_and_every_word_can_be_translated() -> None:
    state = finished("smelly", 3)
    outcome = state.outcome
    assert outcome is not None
    assert outcome.loser is not None
    labels = Labels(game_over="Partie terminée", loser="{name} est le {title} !", ordinal=lambda n: f"{n}e")
    picture = render_ranking(state.view(None), TableInfo(names(3)), labels, loser_title="Pue-du-Cul")
    assert "Partie terminée" in [item.what for item in picture.items(role="title")]
    assert picture.items(role="verdict")[0].what == f"💩 {names(3)[outcome.loser]} est le Pue-du-Cul !"
    assert [item.what for item in picture.items("place")] == ["1e", "2e", "3e"]


def test_a_forfeit_is_shown_beside_the_name() -> None:
    state = position(PRESETS["standard"], [[], ["5"], ["6"], []], out=[0], forfeited=[3], to_act=1)
    state.apply(1, "f")  # seat 1 forfeits too: the game is over
    assert state.is_over
    assert state.outcome is not None
    picture = render_ranking(state.view(None), TableInfo(["Ann", "Bob", "Cy", "Di"]))
    left = [item.seat for item in picture.items("text") if item.what == "· left the game"]
    assert sorted(left) == [1, 3]  # type: ignore[type-var]


def test_neighbor_names_the_winners() -> None:
    state = play(new_game("neighbor", NeighborRules(), 4, 3), 2000, 3)
    assert state.is_over
    assert state.outcome is not None
    picture = render_ranking(state.view(None), TableInfo(names(4)))
    winners = ", ".join(names(4)[s] for s in state.outcome.winners)
    assert picture.items(role="verdict")[0].what == f"👑 {winners} won!"


def test_twenty_players_fit_in_two_columns() -> None:
    state = play(new_game("neighbor", NeighborRules(), 20, 1), 5000, 1)
    assert state.is_over
    picture = render_ranking(state.view(None), TableInfo(names(20)))
    rows = picture.items("seat")
    assert len(rows) == 20
    assert all(r.box[3] <= picture.size[1] - 90 for r in rows)


def test_a_game_not_over_has_no_ranking() -> None:
    state = play(new_game("shithead", PRESETS["standard"], 3, 1), 20)
    with pytest.raises(ValueError, match="not over"):
        render_ranking(state.view(None), TableInfo(names(3)))
    with pytest.raises(ValueError, match="spectator"):
        render_ranking(state.view(0), TableInfo(names(3)))
