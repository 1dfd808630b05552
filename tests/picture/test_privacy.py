"""Privacy of the table picture, position by position through random games: every card face drawn is
one a spectator may see (the pile, face-up cards; in Neighbor the last reveal and blocking Kings),
never a hand card, a face-down card or the stock — checked against the full state, not the view."""

from __future__ import annotations

import pytest

from engine import PRESETS, NeighborRules, NeighborState, ShitheadState, card_of, new_game
from shithead_bot.picture import Picture, TableInfo, canvas, render_ranking, render_table
from tests.picture.helpers import names, walk


@pytest.fixture(autouse=True)
def no_png(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pixel comes from a draw call the layout records; skip the encoding to test more moments."""
    monkeypatch.setattr(canvas, "encode", lambda image: b"")


def hidden_texts(secret: set[int], public: set[int]) -> set[str]:
    """Card texts that would give away a secret card (two decks: unless a public twin shares it)."""
    return {str(card_of(c)) for c in secret} - {str(card_of(c)) for c in public}


def check_texts(picture: Picture, secret_texts: set[str]) -> None:
    for item in picture.layout:
        if item.kind != "card":
            assert not any(text in item.what for text in secret_texts), item


def shithead_case(state: ShitheadState) -> None:
    picture = render_table(state.view(None), TableInfo(names(state.seats), title="#1"))
    pile = {int(c) for c in state.pile}
    face_up = {s: {int(c) for c in state.face_up[s]} for s in range(state.seats)}
    hands = {int(c) for s in range(state.seats) for c in state.hand_of(s)}
    face_down = {int(c) for fd in state.face_down for c in fd if c is not None}
    secret = hands | face_down | {int(c) for c in state.stock}
    public = pile | set().union(*face_up.values())
    for item in picture.items("card"):
        assert item.card is not None
        assert item.card not in secret, item
        if item.role == "pile":
            assert item.card in pile
            assert item.seat is None
        else:
            assert item.role == "face_up"
            assert item.seat is not None
            assert item.card in face_up[item.seat], item
        assert item.what == str(card_of(item.card))
    for item in picture.items("back"):
        assert item.what == ""  # a back names nothing
    check_texts(picture, hidden_texts(secret, public))
    if state.is_over:
        check_texts(render_ranking(state.view(None), TableInfo(names(state.seats))), hidden_texts(secret, public))


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("seats", [2, 4, 7])
def test_shithead_pictures_show_only_what_a_spectator_may_see(preset: str, seats: int) -> None:
    rules = PRESETS[preset].with_rule("decks", 2) if seats > 5 else PRESETS[preset]
    for seed in range(2):
        state = new_game("shithead", rules, seats, seed)
        assert isinstance(state, ShitheadState)
        for moment in walk(state, seed, every=9, limit=500):
            assert isinstance(moment, ShitheadState)
            shithead_case(moment)


def test_neighbor_pictures_show_only_what_a_spectator_may_see() -> None:
    for seed in range(4):
        state = new_game("neighbor", NeighborRules(), 5, seed)
        assert isinstance(state, NeighborState)
        for moment in walk(state, seed, every=2, limit=200):
            assert isinstance(moment, NeighborState)
            picture = render_table(moment.view(None), TableInfo(names(5)))
            blocked = {(seat, int(card)) for seat, card in moment.blocked}
            for item in picture.items("card"):
                if item.role == "reveal":
                    assert item.seat is not None
                    assert item.card == moment.last_reveal[item.seat]
                else:
                    assert item.role == "blocked"
                    assert (item.seat, item.card) in blocked, item
            current = {int(c) for c in moment.cards if c is not None} - {card for _, card in blocked}
            shown = {int(c) for c in moment.last_reveal if c is not None} | {card for _, card in blocked}
            check_texts(picture, hidden_texts(current, shown))
