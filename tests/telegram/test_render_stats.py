"""/stats texts: a group's players by rating (computers by level), a player's ratings in each chat
and overall with their trend and the level they play like — in English and French."""

from __future__ import annotations

from shithead_bot.i18n import translations
from shithead_bot.service import PlayerRecord, PresetCount, RatingLine, plays_like
from shithead_bot.telegram.render.info import my_ratings_text, ratings_text

EN, FR = translations("en"), translations("fr")


def line(subject: str, name: str, mu: float, sigma: float, games: int, chat: int = -5, **kw: object) -> RatingLine:
    return RatingLine(subject, name, chat, kw.pop("title", "Friends"), mu, sigma, games, 1, **kw)  # type: ignore[arg-type]


BOARD = [line("p:1", "Alice", 30, 2, 12), line("c:hard", "🤖 hard", 27, 1.5, 1), line("p:2", "<Bob>", 20, 4, 3)]


def test_a_group_sees_its_players_by_rating_and_plurals() -> None:
    text = ratings_text(BOARD, [PresetCount("shithead", "standard", 16, 80.0)], EN)
    lines = text.splitlines()
    assert lines[0] == "🏆 <b>Ratings</b> (rating · games · times the loser)"
    assert lines[1] == "1. Alice — 24.0 · 12 games · 💩1"
    assert lines[2] == "2. 🤖 computer (hard) — 22.5 · 1 game · 💩1"
    assert lines[3].startswith("3. &lt;Bob&gt; — 8.0 · 3 games")
    assert lines[-1] == "Games played: standard 16"


def test_the_rating_shown_is_what_the_words_say_and_may_go_below_zero() -> None:
    """The number is skill − 3 × uncertainty (openskill's ordinal): the header and the note say so,
    no "±" suggests an interval, and a first loss shows below 0, as the note warns."""
    loser = line("p:3", "Cleo", 22.0, 8.3, 1)
    text = ratings_text([loser], [], EN)
    assert "±" not in text
    assert "1. Cleo — -2.9 · 1 game" in text
    assert "skill minus three times its uncertainty" in text
    assert "starts at 0" in text
    assert "below 0" in text


def test_no_rated_game_yet() -> None:
    assert ratings_text([], [], EN).startswith("No rated game yet")


def test_a_player_sees_each_chat_overall_the_trend_and_who_they_play_like() -> None:
    mine = [line("p:1", "Alice", 30, 2, 12, trend=1.25), line("p:1", "Alice", 28, 2, 20, chat=0, title="", trend=-0.5)]
    computers = [line("c:easy", "", 12, 1, 50, chat=0), line("c:normal", "", 27, 1, 50, chat=0)]
    text = my_ratings_text(mine, computers, PlayerRecord(20, 8, 2, 1.9), EN)
    assert text.splitlines()[1:4] == [
        "Friends: 24.0 · 12 games · ▲ 1.2",
        "Overall: 22.0 · 20 games · ▼ 0.5",
        "You play like the normal computer.",
    ]
    assert "Your record: 20 games, 8 won" in text
    assert "Your record: 1 game," in my_ratings_text(mine, [], PlayerRecord(1, 1, 0, 1.0), EN)


def test_stats_in_french() -> None:
    mine = [line("p:1", "Alice", 30, 2, 1, chat=0, title="")]
    text = my_ratings_text(mine, [line("c:hard", "", 29, 1, 5, chat=0)], None, FR)
    assert "Tes classements" in text
    assert "1 partie" in text
    assert "difficile" in text
    board = ratings_text(BOARD, [], FR)
    assert "12 parties" in board
    assert "ordinateur (difficile)" in board


def test_plays_like_picks_the_nearest_level() -> None:
    me = line("p:1", "Alice", 20, 2, 5)
    levels = [line("c:easy", "", 10, 1, 9), line("c:normal", "", 22, 1, 9), line("c:hard", "", 30, 1, 9)]
    assert plays_like(me, levels) == "normal"
    assert plays_like(me, []) is None
