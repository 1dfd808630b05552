"""Texts a new group met (issue 34, item 9), each as a person would write it: French ordinals of
"place", the stand-in's moves, the swap phase's nudge, "Show my cards" pressed in private, plurals
of /stats, one duration format, commands named with the bot only where they work in the group, an
aborted game's /verify and table."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from engine import card_of, new_game
from engine import events as ev
from shithead_bot.i18n import translations
from shithead_bot.narrate import Narrator
from shithead_bot.service import (
    Announcement,
    AnnouncePayload,
    ChatSnapshot,
    GameService,
    GameStatus,
    MoveLine,
    Notice,
    NoticeKind,
    PlayerRecord,
)
from shithead_bot.service.notices import Reminder, ReminderPayload
from shithead_bot.service.snapshot import Revealed
from shithead_bot.service.status import Actor
from shithead_bot.telegram.callback_data import Action, Button, Codec
from shithead_bot.telegram.handlers import play
from shithead_bot.telegram.render import Page, announce, keyboards, private, replies
from shithead_bot.telegram.render.info import addressed, help_text, record_text
from shithead_bot.telegram.render.rules import settings_text
from shithead_bot.telegram.render.table import table
from shithead_bot.verify import verdict_lines
from tests.service.helpers import GROUP, user
from tests.telegram.test_texts import finished, page_of, playing, snapshot

# ------------------------------------------------------------------ French: "1re place"


def test_french_says_1re_place_for_the_feminine_place() -> None:
    fr = Narrator(["Ann", "Bob"], playing().rules, language="fr", me=0)
    assert fr.line(ev.WentOut(seat=1, place=1)) == "Bob a fini — 1re place !"
    assert fr.line(ev.WentOut(seat=0, place=1)) == "Tu as fini — 1re place !"
    assert fr.line(ev.WentOut(seat=1, place=2)) == "Bob a fini — 2e place !"
    page = page_of(snapshot(playing()), "fr")
    news = announce.announce(page, Notice(NoticeKind.ANNOUNCE, 7, 1, AnnouncePayload(Announcement.WENT_OUT, place=1)))
    assert news is not None
    assert news.text == "🎉 Bob a fini — 1re place !"


# ------------------------------------------------------------------ the stand-in's moves


def test_the_stand_ins_move_is_told_as_the_stand_ins_not_mine() -> None:
    card = card_of(0)
    played = MoveLine(1, 0, "x", Actor.STANDIN, (ev.Played(seat=0, source="h", cards=(card,)),))
    english = page_of(snapshot(playing())).move_lines([played], me=0)
    french = page_of(snapshot(playing()), "fr").move_lines([played], me=0)
    assert english == [f"🤖 Your stand-in played {card}"]
    assert french == [f"🤖 Ton remplaçant a joué {card}"]


# ------------------------------------------------------------------ the swap phase's nudge


def test_a_nudge_in_the_swap_phase_asks_to_swap_not_to_play() -> None:
    state = new_game("shithead", playing().rules, 3, 5)
    game = snapshot(state)  # type: ignore[arg-type]
    assert game.in_swap_phase
    for language, turn in (("en", "your turn"), ("fr", "à toi de jouer")):
        page = page_of(game, language)
        text = private.reminder(page, game.seat(0), ReminderPayload(Reminder.NUDGE, by="Bob")).text
        assert turn not in text, text
    text = private.reminder(page_of(game), game.seat(0), ReminderPayload(Reminder.NUDGE, by="Bob")).text
    assert text.startswith("⏰ Bob nudges you: swap your cards and press Ready in Friends #7 — time is up"), text


# ------------------------------------------------------------------ "Show my cards" in private


class Sender:
    def __init__(self) -> None:
        self.sent: list[tuple[int, int]] = []

    async def send_hand(self, game_id: int, player_id: int) -> None:
        self.sent.append((game_id, player_id))


def pressed_in(chat_id: int, user_id: int = 101) -> Any:
    message = SimpleNamespace(chat=SimpleNamespace(id=chat_id), message_id=5)
    query = SimpleNamespace(message=message)
    return SimpleNamespace(effective_user=SimpleNamespace(id=user_id, language_code="en"), callback_query=query)


async def test_show_my_cards_pressed_in_private_does_not_say_it_was_sent_to_our_private_chat() -> None:
    ctx = SimpleNamespace(send_hand=Sender().send_hand)
    button = Button(Action.HAND, 7, 0, "")
    here = await play.hand_button(pressed_in(101), None, ctx, button)  # type: ignore[arg-type]
    assert here.toast != replies.sent_privately(translations("en"))
    assert here.toast == "Here they are, below."
    there = await play.hand_button(pressed_in(GROUP), None, ctx, button)  # type: ignore[arg-type]
    assert there.toast == "Sent to our private chat."


# ------------------------------------------------------------------ /stats: plurals


def test_my_record_counts_times_the_loser_in_the_singular_and_plural() -> None:
    one = PlayerRecord(games=3, firsts=1, losers=1, average_place=2.0)
    two = PlayerRecord(games=3, firsts=1, losers=2, average_place=2.0)
    assert "1 time the loser," in record_text(one, translations("en"))
    assert "2 times the loser," in record_text(two, translations("en"))
    assert "1 fois perdant," in record_text(one, translations("fr"))
    assert "1 win" not in record_text(one, translations("en")) or "1 won" in record_text(one, translations("en"))
    one_game = PlayerRecord(games=1, firsts=0, losers=0, average_place=2.0)
    assert "1 game, 0 won, 0 times the loser" in record_text(one_game, translations("en"))


# ------------------------------------------------------------------ one duration format


def test_turn_times_are_said_in_one_format_everywhere() -> None:
    en = translations("en")
    assert "Turn time: 2 min ·" in settings_text(ChatSnapshot(-1, turn_seconds=120), en)
    assert "Turn time: 24 h ·" in settings_text(ChatSnapshot(-1), en)
    assert "Turn time: no limit ·" in settings_text(ChatSnapshot(-1, turn_seconds=None), en)
    assert "Temps par tour : 3 jours ·" in settings_text(ChatSnapshot(-1, turn_seconds=3 * 86400), translations("fr"))
    labels = [b.text for row in keyboards.turn_times(Codec(b"k"), -1, en).inline_keyboard for b in row]
    assert labels[:3] == ["30 s", "1 min", "5 min"]
    assert "24 h" in labels
    assert "7 days" in labels
    assert "no limit" in labels
    assert replies.turn_time_set("1m", en) == "Turn time: 1 min"


# ------------------------------------------------------------------ commands and @bot


def test_the_game_over_message_names_the_bot_in_verify() -> None:
    game = replace(finished(), revealed=Revealed(42, "ab" * 16)).with_game(deal_commitment="0123456789abcdef")
    page = Page(game, Codec(b"k"), "en", "shithead_bot")
    state = game.state
    assert state is not None
    assert state.outcome is not None
    payload = AnnouncePayload(Announcement.OVER, places=state.outcome.places, loser=state.outcome.loser)
    over = announce.announce(page, Notice(NoticeKind.ANNOUNCE, 7, None, payload))
    assert over is not None
    assert "/verify@shithead_bot deals again" in over.text
    assert "/verify " not in over.text


def test_private_only_commands_never_carry_the_bots_name() -> None:
    text = addressed(help_text(translations("en")), "shithead_bot")
    assert "/quiet 23:00-08:00" in text
    assert "/quiet@shithead_bot" not in text
    assert "/away 3d" in text
    assert "/away@" not in text
    assert "/back@" not in text
    assert "/hand@shithead_bot" in text
    assert "/newgame@shithead_bot" in text


# ------------------------------------------------------------------ an aborted game


async def test_verify_of_a_game_aborted_before_any_move_mentions_no_export(service: GameService, game_id: int) -> None:
    await service.abort(game_id, user(0).id)
    lines = verdict_lines(await service.verify_game(GROUP))
    assert not any("export" in line for line in lines), lines
    assert "✅ Moves: no move was made." in lines


def test_an_aborted_games_table_says_so_and_nobody_is_swapping() -> None:
    state = new_game("shithead", playing().rules, 3, 5)
    game = snapshot(state).with_game(status=GameStatus.ABORTED, deadline_at=None)  # type: ignore[arg-type]
    text = table(page_of(game)).text
    assert "🛑 Game aborted." in text, text
    for stale in ("swapping", "Swap phase", "▶"):
        assert stale not in text, text
    french = table(page_of(game, "fr")).text
    assert "🛑 Partie annulée." in french, french
    assert "échange" not in french.lower(), french
