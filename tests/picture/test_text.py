"""Names in any script: each yields real glyphs from a shipped font, or the legible fallback."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

import pytest
from PIL import features

from engine import PRESETS
from shithead_bot.picture import TableInfo, render_table, text
from tests.engine.helpers import position

SCRIPTS = {
    "latin": "Zoë-Hélène Ngô",
    "cyrillic": "Жанна Ёлкина",
    "greek": "Σοφία",
    "hebrew": "נועה",
    "arabic": "محمد علي",
    "persian": "پریا",
    "chinese": "李小龙",
    "japanese": "さくら カタカナ 東京",
    "korean": "김민준",
    "emoji": "🎸🍕🚀🤖",
}


@pytest.fixture(params=[True, False], ids=["raqm", "basic"])
def layout(request: pytest.FixtureRequest) -> Iterator[bool]:
    """Run with libraqm (where Pillow has it) and with Pillow's basic layout and our own shaping."""
    if request.param and not features.check("raqm"):
        pytest.skip("Pillow finds no libraqm here")
    text.set_raqm(request.param)
    yield request.param
    text.set_raqm(None)


def notdef(face: str) -> bytes:
    return bytes(text.font(face, 40).getmask("\U0010fffd"))


@pytest.mark.parametrize("face", sorted(text.FACES))
def test_the_cmap_reader_agrees_with_what_freetype_draws(face: str) -> None:
    covered = sorted(text.coverage(face))
    assert len(covered) > 1000
    missing = notdef(face)
    step = max(1, len(covered) // 60)
    for code in covered[::step]:
        char = chr(code)
        if unicodedata.category(char)[0] in "LNS":
            assert bytes(text.font(face, 40).getmask(char)) != missing, (face, hex(code))
    for code in (0x1D518, 0x2A6A5, 0xE000):  # fraktur, a rare CJK character, private use: in no shipped font
        assert code not in text.coverage(face)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_script_is_drawn_with_real_glyphs(script: str, layout: bool) -> None:
    name = SCRIPTS[script]
    line = text.text_image(name, 28, True)
    assert line.legible, script
    assert line.missing == 0, script
    for char in name:
        if not char.isspace():
            assert text.face_for(char, True) is not None, (script, char)
    assert line.width > 10 * len(name.split())
    assert line.mask.getbbox() is not None


def test_each_script_goes_to_the_font_that_covers_it() -> None:
    assert {text.face_for(c, True) for c in "Zoëжσنו♥"} == {"bold"}
    assert {text.face_for(c, True) for c in "李さ김"} == {"cjk"}
    assert {text.face_for(c, True) for c in "🎸🍕"} == {"emoji"}


def test_arabic_without_libraqm_is_joined_and_right_to_left() -> None:
    shaped = text.visual_order("محمد")  # meem initial, hah medial, meem medial, dal final; drawn reversed
    assert shaped == "\ufee3\ufea4\ufee4\ufeaa"[::-1]
    assert all(0xFE70 <= ord(c) <= 0xFEFF for c in shaped)
    assert all(ord(c) in text.coverage("bold") for c in shaped)
    assert text.shape_arabic("لا") == "\ufefb"  # lam-alef ligature
    assert text.visual_order("Ali محمد 2") == "Ali ﺪﻤﺤﻣ 2"  # the line stays left to right


def test_joiners_and_selectors_vanish_quietly(layout: bool) -> None:
    family = text.text_image("👨\u200d👩\u200d👧 Ann\ufe0f", 28, True)
    assert family.missing == 0
    assert family.legible
    assert "\u200d" not in family.text


def test_a_name_no_font_covers_becomes_the_placeholder() -> None:
    line = text.text_image("𝔘𝔫𝔦𝔠𝔬𝔡𝔢", 28, True)
    assert not line.legible
    assert line.missing == 7
    state = position(PRESETS["standard"], [["4"], ["5"], ["6"]], pile=["3"])
    picture = render_table(state.view(None), TableInfo(["Alice", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", ""]))
    shown = {item.seat: item.what for item in picture.items("name")}
    assert shown == {0: "Alice", 1: "Player 2", 2: "Player 3"}


def test_a_partly_covered_name_keeps_what_can_be_drawn() -> None:
    line = text.text_image("Ann 𝔘", 28, True)
    assert line.legible
    assert line.text == "Ann "
    assert line.missing == 1


def test_long_lines_are_cut_to_width_with_an_ellipsis(layout: bool) -> None:
    for name in (
        "Maximilian-Alexander von Hohenzollern",
        "李小龙李小龙李小龙李小龙李小龙",
        "محمد علي محمد علي محمد علي",
    ):
        line = text.text_image(name, 28, True, 200)
        assert line.width <= 200, name
        assert line.text.endswith("…"), name


def test_a_whole_table_renders_with_either_layout(layout: bool) -> None:
    state = position(PRESETS["standard"], [["4"], ["5"], ["6"]], pile=["3"])
    picture = render_table(state.view(None), TableInfo(["محمد علي", "李小龙", "Bob 🎸"], actions=["محمد played 3♥"]))
    shown = {item.seat: item.what for item in picture.items("name")}
    assert shown[1] == "李小龙"
    assert shown[2] == "Bob 🎸"
    assert shown[0] == ("محمد علي" if layout else text.visual_order("محمد علي"))
