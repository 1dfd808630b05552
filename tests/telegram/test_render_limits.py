"""Telegram counts a message's length after parsing its entities (≤ 4,096): trim what it counts, at
line boundaries, never inside a tag."""

from __future__ import annotations

import random
from dataclasses import replace

from engine import PRESETS, ShitheadState, event_to_dict, new_game
from persistence.models import Move as MoveRow
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.render import fit_lines, visible_length
from testkit.fakebot.markup import parse_html, utf16_len
from tests.telegram.test_render_privacy import Renderer, context


def ten_seat_table(name: str) -> tuple[str, int]:
    rules = PRESETS["standard"].with_rules({"decks": "2"})
    state = new_game("shithead", rules, 10, 3)
    assert isinstance(state, ShitheadState)
    rng = random.Random(1)
    log = []
    for _ in range(300):
        seat = rng.choice(state.seats_to_act())
        move = rng.choice(state.legal_moves(seat))
        events = state.apply(seat, move)
        log.append(
            MoveRow(game_id=7, seq=len(log) + 1, seat=seat, move=str(move), events=[event_to_dict(e) for e in events])
        )
    ctx = context(state, rules.to_dict(), "shithead")
    ctx = replace(ctx, seats=[replace(seat, name=name) for seat in ctx.seats])
    rendered = Renderer(ctx, Codec(b"k")).table(log[-40:])
    return rendered.text, ctx.game.id


def test_a_ten_seat_table_of_ampersand_names_is_sent_whole() -> None:
    html_text, game_id = ten_seat_table("&" * 64)
    text, _entities = parse_html(html_text)  # raises on a tag cut in half
    assert len(html_text) > 4096  # the HTML is long…
    assert utf16_len(text) <= 4096  # …what Telegram counts is not
    assert text.splitlines()[0].startswith("🃏 Shithead")
    assert f"#{game_id}" in text.splitlines()[0]
    assert text.count("&" * 64) >= 10  # every seat is there


def test_visible_length_counts_what_telegram_counts() -> None:
    assert visible_length("<b>&amp;&lt;</b> 🂠") == utf16_len("&< 🂠")


def test_fit_drops_the_oldest_actions_first_then_lines_from_the_end() -> None:
    head = ["<b>title</b>", "line two", "line three"]
    tail = [f"· move {n} &amp; more" for n in range(10)]
    fitted = fit_lines(head, tail, limit=60)
    assert fitted.startswith("<b>title</b>\nline two\nline three")
    assert "move 9" in fitted
    assert "move 0" not in fitted
    assert visible_length(fitted) <= 60
    tiny = fit_lines(head, tail, limit=10)
    assert tiny == "<b>title</b>"  # whole lines only, tags never cut
    assert parse_html(tiny)[0] == "title"
