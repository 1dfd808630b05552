"""The table picture's content, read from its layout: what is drawn, where, and for whom."""

from __future__ import annotations

import dataclasses
from itertools import combinations

import pytest

from engine import PRESETS, NeighborRules, ShitheadState, card_of, new_game
from engine.views import ShitheadView
from shithead_bot.picture import Labels, Picture, TableInfo, render_table
from shithead_bot.picture.canvas import H, W
from tests.engine.helpers import position
from tests.picture.helpers import decoded, inside, names, overlap, play


def shithead(seats: int, steps: int, preset: str = "standard", seed: int = 3) -> ShitheadState:
    rules = PRESETS[preset].with_rule("decks", 2) if seats > 5 else PRESETS[preset]
    state = play(new_game("shithead", rules, seats, seed), steps, seed)
    assert isinstance(state, ShitheadState)
    return state


def picture_of(state: ShitheadState, **info: object) -> Picture:
    return render_table(state.view(None), TableInfo(names(state.seats), **info))  # type: ignore[arg-type]


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6, 7, 8, 9, 10])
def test_every_seat_is_drawn_inside_the_picture_and_no_two_overlap(seats: int) -> None:
    picture = picture_of(shithead(seats, 10 * seats))
    assert decoded(picture).size == (W, H) == picture.size
    panels = picture.items("seat")
    assert sorted(item.seat for item in panels) == list(range(seats))  # type: ignore[type-var]
    for item in panels:
        assert inside(item.box, (0, 0, W, H))
    for a, b in combinations(panels, 2):
        assert not overlap(a.box, b.box), (a, b)
    boxes = {item.seat: item.box for item in panels}
    for item in picture.layout:
        if item.seat is not None and item.kind != "seat":
            assert inside(item.box, boxes[item.seat]), item  # a seat's things stay in its panel


@pytest.mark.parametrize("seats", [2, 4, 10])
def test_face_up_cards_are_cards_face_down_cards_are_backs_and_hand_cards_a_number(seats: int) -> None:
    state = shithead(seats, 12 * seats)
    view = state.view(None)
    picture = render_table(view, TableInfo(names(seats)))
    for info in view.seats:
        s = info.seat
        drawn = [item.card for item in picture.items("card", seat=s, role="face_up")]
        assert drawn == [int(c) for c in info.face_up]
        assert [item.what for item in picture.items("card", seat=s)] == [str(c) for c in info.face_up]
        assert len(picture.items("back", seat=s, role="face_down")) == info.face_down_count
        counts = [item.what for item in picture.items("hand_count", seat=s)]
        assert counts == ([str(info.hand_count)] if info.hand_count else [])


def test_the_pile_top_the_count_and_what_it_needs_are_drawn() -> None:
    state = position(PRESETS["standard"], [["4"], ["5"]], face_up=[["9"], ["K"]], pile=["6", "9", "Q"], stock=["3"] * 4)
    picture = picture_of(state)
    pile = picture.items("card", role="pile")
    assert [item.what[:-1] for item in pile] == ["6", "9", "Q"]
    assert pile[-1].card == int(state.pile[-1])
    assert [item.what for item in picture.items("pile_count")] == ["Pile 3"]
    assert [item.what for item in picture.items(role="need")] == ["beat Q"]
    assert [item.what for item in picture.items("stock_count")] == ["Stock 4"]
    assert picture.items("burned_count")[0].what.startswith("Burned ")
    assert picture.items("to_beat") == []  # nothing invisible on top: no mark


def test_only_the_top_cards_are_fanned() -> None:
    ranks = ["4", "5", "6", "7", "8", "9", "J", "Q", "K"]
    state = position(PRESETS["standard"], [["4"], ["5"]], pile=ranks)
    picture = picture_of(state)
    assert [item.what[:-1] for item in picture.items("card", role="pile")] == ranks[-6:]
    assert picture.items("pile_count")[0].what == "Pile 9"


def test_the_card_to_beat_is_marked_when_invisible_cards_lie_on_it() -> None:
    state = position(PRESETS["smelly"], [["4"], ["5"]], pile=["9", "J", "3", "3"])
    picture = picture_of(state)
    (mark,) = picture.items("to_beat")
    beaten = next(item for item in picture.items("card", role="pile") if item.what.startswith("J"))
    assert mark.what == beaten.what
    assert inside(beaten.box, mark.box)
    assert [item.what for item in picture.items(role="need")] == ["beat J"]
    assert "to beat" in [item.what for item in picture.items("text")]


def test_a_card_to_beat_deep_under_invisible_cards_is_still_drawn_and_marked() -> None:
    state = position(PRESETS["smelly"], [["4"], ["5"]], pile=["K", "J", *["3"] * 7])
    picture = picture_of(state)
    shown = [item.what[:-1] for item in picture.items("card", role="pile")]
    assert shown[0] == "J"
    assert shown[1:] == ["3"] * 5
    assert picture.items("to_beat")[0].what.startswith("J")


def test_an_empty_pile_says_so() -> None:
    state = position(PRESETS["standard"], [["4"], ["5"]])
    picture = picture_of(state)
    assert [item.what for item in picture.items("pile_count")] == ["Empty pile"]
    assert picture.items("card", role="pile") == []


def test_whose_turn_is_highlighted_with_the_deadline() -> None:
    state = shithead(4, 40)
    view = state.view(None)
    assert view.to_act is not None
    picture = render_table(view, TableInfo(names(4), deadline="until Tue 18:00 UTC"))
    (highlight,) = picture.items("highlight")
    assert highlight.seat == view.to_act
    assert highlight.box == picture.items("seat", seat=view.to_act)[0].box
    (turn,) = picture.items("status", role="turn")
    assert turn.seat == view.to_act
    assert turn.what == "▶ to play · until Tue 18:00 UTC"
    other = (view.to_act + 1) % 4
    moved = render_table(view, TableInfo(names(4), turn=other))
    assert [item.seat for item in moved.items("highlight")] == [other]


def test_swap_phase_shows_who_is_ready_the_deadline_and_no_highlight() -> None:
    state = new_game("shithead", PRESETS["standard"], 3, 1)
    state.apply(1, "r")
    picture = render_table(state.view(None), TableInfo(names(3), deadline="until Tue 18:00 UTC"))
    status = {item.seat: item.what for item in picture.items("status")}
    assert status == {0: "swapping", 1: "✓ ready", 2: "swapping"}
    assert picture.items("highlight") == []
    assert "Swap phase · until Tue 18:00 UTC" in [item.what for item in picture.items("text")]


def test_who_is_out_and_in_which_place() -> None:
    state = position(PRESETS["standard"], [[], ["5"], ["6"], []], pile=["4"], out=[0], forfeited=[3], to_act=1)
    picture = picture_of(state)
    places = {item.seat: item.what for item in picture.items("place")}
    assert places == {0: "out, 1st", 3: "left the game"}
    assert picture.items("card", seat=0) == []
    assert picture.items("back", seat=0) == []


def test_title_actions_and_status_are_drawn_in_the_callers_words() -> None:
    state = shithead(3, 60)
    assert state.to_act is not None
    labels = Labels(
        pile="Tas {n}",
        stock="Pioche {n}",
        burned="Brûlées {n}",
        need_beat="battre {rank}",
        to_play="à jouer",
        ordinal=lambda n: "1er" if n == 1 else f"{n}e",
    )
    info = TableInfo(
        names(3),
        title="Shithead · #12",
        actions=["a", "Bob a joué 7♣", "Alice a ramassé"],
        status="En pause",
        deadline="23 h",
    )
    picture = render_table(state.view(None), info, labels)
    texts = [item.what for item in picture.layout]
    assert "Shithead · #12" in texts
    assert "En pause" in texts
    assert [item.what for item in picture.items(role="action")] == ["Bob a joué 7♣", "Alice a ramassé"]
    assert picture.items("stock_count")[0].what.startswith("Pioche ")
    assert any(item.what.startswith("▶ à jouer") for item in picture.items("status"))


def test_a_long_name_is_cut_with_an_ellipsis_inside_its_panel() -> None:
    state = shithead(10, 50)
    long = "Maximilian-Alexander von Hohenzollern-Sigmaringen"
    picture = render_table(state.view(None), TableInfo([long, *names(9)]))
    (name,) = picture.items("name", seat=0)
    assert name.what.endswith("…")
    assert long.startswith(name.what[:-1])


def test_the_renderer_refuses_a_players_view_and_a_state() -> None:
    state = shithead(2, 10)
    with pytest.raises(ValueError, match="spectator"):
        render_table(state.view(0), TableInfo(names(2)))
    with pytest.raises(TypeError, match="not a ShitheadState"):
        render_table(state, TableInfo(names(2)))  # type: ignore[arg-type]


def test_a_view_with_a_hand_cannot_be_passed_even_built_by_hand() -> None:
    view = shithead(2, 10).view(None)
    forged = dataclasses.replace(view, seat=1, hand=(card_of(5),))
    with pytest.raises(ValueError, match="spectator"):
        render_table(forged, TableInfo(names(2)))
    assert isinstance(view, ShitheadView)
    assert view.hand == ()


# ----------------------------------------------------------------- Neighbor


def neighbor(seats: int, steps: int, seed: int = 2) -> Picture:
    state = play(new_game("neighbor", NeighborRules(), seats, seed), steps, seed)
    return render_table(state.view(None), TableInfo(names(seats), deadline="until Mon 17:00 UTC"))


def test_neighbor_shows_lives_as_hearts_the_dealer_and_a_back_per_player() -> None:
    state = play(new_game("neighbor", NeighborRules(), 5, 2), 3, 2)
    view = state.view(None)
    picture = render_table(view, TableInfo(names(5)))
    for info in view.seats:
        lives = [item.what for item in picture.items("lives", seat=info.seat)]
        assert lives == ["♥" * info.lives]
        if info.active:
            assert len(picture.items("back", seat=info.seat, role="hand")) == 1
    assert [item.seat for item in picture.items("dealer")] == [view.dealer]
    assert [item.seat for item in picture.items("highlight")] == [view.to_act]


def test_neighbor_shows_last_hands_cards_and_blocking_kings() -> None:
    for seed in range(40):
        state = play(new_game("neighbor", NeighborRules(), 4, seed), 30, seed)
        view = state.view(None)
        if view.blocked and any(view.last_reveal):
            break
    else:
        pytest.fail("no position with a blocked swap after a reveal")
    picture = render_table(view, TableInfo(names(4)))
    for seat, king in view.blocked:
        drawn = [item.card for item in picture.items("card", role="blocked") if item.seat == seat]
        assert drawn == [int(king)]
    shown = {item.seat: item.card for item in picture.items("card", role="reveal")}
    for seat, card in enumerate(view.last_reveal):
        if card is not None and seat in shown:
            assert shown[seat] == int(card)


@pytest.mark.parametrize("seats", [2, 6, 10, 14, 20])
def test_neighbor_tables_fit_up_to_twenty_players(seats: int) -> None:
    picture = neighbor(seats, 2 * seats)
    decoded(picture)
    panels = picture.items("seat")
    assert len(panels) == seats
    for a, b in combinations(panels, 2):
        assert not overlap(a.box, b.box)
    boxes = {item.seat: item.box for item in panels}
    for item in picture.layout:
        if item.seat is not None and item.kind != "seat":
            assert inside(item.box, boxes[item.seat]), item
