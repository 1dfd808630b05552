"""The texts a player reads, as a person would write them: the private turn message top-down
(header, what happened since your last turn, your cards, the keyboard), the swap phase headed by
what to do, and the player's own moves in the second person."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from engine import PRESETS, NeighborRules, NeighborState, Ready, ShitheadState, card_of, new_game
from engine import events as ev
from persistence.models import Chat, Game, Seat
from shithead_bot.service import GameSnapshot, GameStatus, MoveLine
from shithead_bot.service.unit import GameTx
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.render import Page, private

NOW = datetime(2026, 1, 5, 12, tzinfo=UTC)
NAMES = ["Ann", "Bob", "Cleo"]
UNIX = int((NOW + timedelta(hours=1)).timestamp())  # the deadline of snapshot(): in an hour
RELATIVE = f'<tg-time unix="{UNIX}" format="r">'
CLOCK = f'<tg-time unix="{UNIX}" format="wt">'
DEADLINE = f"⏳ {RELATIVE}in 1 h</tg-time> ({CLOCK}Mon 13:00 UTC</tg-time>)"
DEADLINE_FR = f"⏳ {RELATIVE}dans 1 h</tg-time> ({CLOCK}lun. 13:00 UTC</tg-time>)"


def snapshot(
    state: ShitheadState | NeighborState, kind: str = "shithead", moves: tuple[MoveLine, ...] = ()
) -> GameSnapshot:
    rules = state.rules.to_dict()
    status = "swapping" if kind == "shithead" and state.phase.value == "swap" else "playing"
    game = Game(
        id=7, chat_id=-1, kind=kind, status=status, rules=rules, turn_seconds=3600,
        deadline_at=NOW + timedelta(hours=1), version=3,
    )  # fmt: skip
    seats = [
        Seat(game_id=7, number=n, player_id=100 + n, name=NAMES[n], keyboard_version=3) for n in range(state.seats)
    ]
    tx = GameTx(None, game, seats, Chat(id=-1, title="Friends"), NOW, state=state)  # type: ignore[arg-type]
    return replace(tx.snapshot(), moves=moves)


def page_of(game: GameSnapshot, language: str = "en") -> Page:
    return Page(game, Codec(b"k"), language)


def playing() -> ShitheadState:
    """Seed 5, three players, all ready: Cleo (seat 2) starts with a 3, then it is Ann's turn."""
    state = new_game("shithead", PRESETS["standard"], 3, 5)
    assert isinstance(state, ShitheadState)
    for seat in range(3):
        state.apply(seat, Ready())
    state.apply(2, state.view(2).legal_moves[0])
    assert state.view(None).to_act == 0
    return state


def line(seq: int, seat: int, *events: ev.Event) -> MoveLine:
    return MoveLine(seq, seat, "x", "human", tuple(events))


# ------------------------------------------------------------------------- the swap phase


def test_the_swap_message_says_what_to_do_and_is_not_headed_your_turn() -> None:
    state = new_game("shithead", PRESETS["standard"], 3, 5)
    game = snapshot(state)
    text = private.turn(page_of(game), game.seat(0)).text
    lines = text.splitlines()
    assert "Your turn" not in text
    assert lines[0] == f"🔄 <b>Swap phase</b> — Friends #7 {DEADLINE}"
    assert lines[1] == "Put your best cards face-up, then press Ready: tap a hand card, then the face-up card to swap."
    assert lines[2].startswith("Your hand: ")
    assert lines[3].startswith("Face-up: ")


def test_the_swap_message_in_french() -> None:
    game = snapshot(new_game("shithead", PRESETS["standard"], 3, 5))
    lines = private.turn(page_of(game, "fr"), game.seat(0)).text.splitlines()
    assert lines[0] == f"🔄 <b>Échanges</b> — Friends #7 {DEADLINE_FR}"
    assert lines[1].startswith("Mets tes meilleures cartes en visible, puis appuie sur Prêt")


def test_the_swap_message_tells_my_last_swap_in_the_second_person() -> None:
    state = new_game("shithead", PRESETS["standard"], 3, 5)
    swapped = ev.Swapped(0, card_of(12), card_of(3))
    game = snapshot(state, moves=(line(1, 1, ev.Swapped(1, card_of(11), card_of(4))), line(2, 0, swapped)))
    lines = private.turn(page_of(game), game.seat(0)).text.splitlines()
    assert lines[2] == f"You put {card_of(12)} face-up and took {card_of(3)} into hand"
    assert not any("Bob" in x for x in lines)


# ------------------------------------------------------------------------- a turn, top-down


def test_the_turn_message_reads_top_down() -> None:
    state = playing()
    three = state.view(None).pile[-1]
    moves = (
        line(1, 0, ev.Readied(0)),
        line(2, 1, ev.Readied(1)),
        line(3, 2, ev.Readied(2), ev.PlayStarted(2, 3)),
        line(4, 2, ev.Played(2, "h", (three,))),
    )
    game = snapshot(state, moves=moves)
    rendered = private.turn(page_of(game), game.seat(0))
    lines = rendered.text.splitlines()
    assert lines[0] == f"🃏 <b>Your turn</b> — Friends #7 {DEADLINE}"
    assert lines[1:3] == ["Cleo starts with a 3", f"Cleo played {three}"]  # since my last turn, no swap noise
    assert lines[3].startswith("Pile (1): ")
    assert lines[-2].startswith("Your hand: ")
    assert lines[-1].startswith("Face-up: ")
    assert rendered.buttons


def test_the_turn_message_tells_what_happened_since_my_last_turn_began() -> None:
    """My previous turn's move first: the message that told it is gone when the new turn came at
    once (against computers, the pressed message is replaced, not edited)."""
    state = playing()
    four = card_of(2)
    moves = (
        line(4, 2, ev.PickedUp(2, 3, None)),  # before my previous turn: not told again
        line(5, 0, ev.Played(0, "h", (card_of(1),))),
        line(6, 1, ev.PickedUp(1, 2, None)),
        line(7, 2, ev.Played(2, "h", (four,))),
    )
    game = snapshot(state, moves=moves)
    lines = private.turn(page_of(game), game.seat(0)).text.splitlines()
    assert lines[1:4] == [f"You played {card_of(1)}", "Bob picked up the pile (2 cards)", f"Cleo played {four}"]


def test_playing_again_tells_my_own_move_in_the_second_person() -> None:
    state = playing()
    ten = card_of(8)
    moves = (line(6, 1, ev.PickedUp(1, 1, None)), line(7, 0, ev.Played(0, "h", (ten,)), ev.Burned(0, 3, False)))
    game = snapshot(state, moves=moves)
    lines = private.turn(page_of(game), game.seat(0)).text.splitlines()
    assert lines[1:3] == ["Bob picked up the pile (1 card)", f"You played {ten} — the pile burns! 🔥"]


def test_when_it_is_not_my_turn_the_header_says_whose_it_is() -> None:
    state = playing()
    game = snapshot(state)
    to_act = state.view(None).to_act
    other = next(s for s in range(3) if s != to_act)
    header = private.turn(page_of(game), game.seat(other)).text.splitlines()[0]
    assert header == f"🃏 Friends #7 — {NAMES[to_act or 0]}'s turn {DEADLINE}"
    french = private.turn(page_of(game, "fr"), game.seat(other)).text.splitlines()[0]
    assert french == f"🃏 Friends #7 — au tour de {NAMES[to_act or 0]} {DEADLINE_FR}"


def test_the_message_after_my_move_speaks_to_me() -> None:
    state = playing()
    moves = (line(4, 0, ev.PickedUp(0, 6, None)),)
    game = snapshot(state, moves=moves)
    text = private.moved(page_of(game), game.seat(0), list(moves)).text
    assert text.splitlines()[1] == "You picked up the pile (6 cards)"
    french = private.moved(page_of(game, "fr"), game.seat(0), list(moves)).text
    assert french.splitlines()[1] == "Tu as ramassé la pile (6 cartes)"


def test_a_timeout_is_told_to_me_in_the_second_person() -> None:
    state = playing()
    moves = (MoveLine(4, 0, "t", "timeout", (ev.PickedUp(0, 6, None),)),)
    game = snapshot(state, moves=moves)
    text = private.moved(page_of(game), game.seat(0), list(moves)).text
    assert text.splitlines()[1] == "⏰ Your time ran out — you picked up the pile (6 cards)"


def test_a_timeout_names_the_player_once() -> None:
    state = playing()
    moves = (MoveLine(4, 1, "t", "timeout", (ev.PickedUp(1, 6, None),)),)
    lines = page_of(snapshot(state, moves=moves)).move_lines(moves)
    assert lines == ["⏰ Time ran out: Bob picked up the pile (6 cards)"]


def test_a_swap_phase_timeout_says_it_made_the_player_ready_then_who_starts() -> None:
    state = playing()
    four = card_of(2)
    timed_out = MoveLine(3, 1, "t", "timeout", (ev.Readied(1), ev.PlayStarted(1, four.rank)))
    game = snapshot(state, moves=(timed_out,))
    expected = ["⏰ Time ran out: Bob is ready", "Bob starts with a 4"]
    assert page_of(game).move_lines([timed_out]) == expected  # the group's table
    assert page_of(game).move_lines([timed_out], me=0, play_only=True) == expected  # Ann's turn message


def test_the_group_is_not_told_each_swap() -> None:
    state = playing()
    swaps = tuple(line(n, 2, ev.Swapped(2, card_of(n), card_of(n + 4))) for n in range(1, 5))
    moves = (*swaps, line(5, 2, ev.Readied(2)))
    game = snapshot(state, moves=moves)
    assert page_of(game).move_lines(moves) == ["Cleo is ready"]
    mine = page_of(game).move_lines(moves, me=2)
    assert mine[0] == f"You put {card_of(1)} face-up and took {card_of(5)} into hand"


def test_a_neighbor_turn_reads_top_down_and_speaks_to_me() -> None:
    state = new_game("neighbor", NeighborRules(), 3, 5)
    assert isinstance(state, NeighborState)
    to_act = state.view(None).to_act or 0
    before = (to_act - 1) % 3
    moves = (line(1, before, ev.Kept(before)),)
    game = snapshot(state, kind="neighbor", moves=moves)
    lines = private.turn(page_of(game), game.seat(to_act)).text.splitlines()
    assert lines[0] == f"🃏 <b>Your turn</b> — Friends #7 {DEADLINE}"
    assert lines[1] == f"{NAMES[before]} keeps"
    assert lines[2].startswith("Your card: ")


def test_deadlines_are_said_as_a_person_would() -> None:
    from shithead_bot.i18n import translations
    from shithead_bot.telegram.render import relative

    en, fr = translations("en").gettext, translations("fr").gettext
    told = [relative(NOW + timedelta(seconds=s), NOW, en) for s in (40, 300, 3600, 5400, 7 * 3600, 3 * 86400)]
    assert told == ["in 40 s", "in 5 min", "in 1 h", "in 1 h 30 min", "in 7 h", "in 3 days"]
    assert relative(NOW + timedelta(seconds=5400), NOW, fr) == "dans 1 h 30 min"


# ------------------------------------------------------------------------- the group's table


def test_the_table_says_each_seat_in_words() -> None:
    from shithead_bot.narrate import cards_text
    from shithead_bot.telegram.render import table

    state = new_game("shithead", PRESETS["standard"], 3, 5)
    state.apply(1, Ready())
    game = snapshot(state)
    lines = table.table(page_of(game)).text.splitlines()
    up = [cards_text(state.view(None).seats[n].face_up) for n in range(3)]
    assert f"  <b>Ann</b> — swapping: 3 cards in hand · face-up {up[0]} · 3 face-down" in lines
    assert f"  <b>Bob</b> — ready ✅: 3 cards in hand · face-up {up[1]} · 3 face-down" in lines
    assert not any("✋" in x or "🂠" in x for x in lines)
    french = table.table(page_of(game, "fr")).text.splitlines()
    assert f"  <b>Ann</b> — échange : 3 cartes en main · visibles {up[0]} · 3 cachées" in french


def test_the_table_marks_whose_turn_it_is_and_until_when() -> None:
    from shithead_bot.telegram.render import table

    state = playing()
    game = snapshot(state)
    lines = table.table(page_of(game)).text.splitlines()
    ann = next(x for x in lines if "<b>Ann</b>" in x)
    assert ann.startswith("▶ <b>Ann</b>: 3 cards in hand · face-up ")
    assert ann.endswith(f" · 3 face-down  {DEADLINE}")


# ------------------------------------------------------------------------- the rules


def test_a_preset_is_described_by_the_rules_that_matter_only() -> None:
    assert PRESETS["standard"].describe() == "2 reset, 10 burn, four burns"
    assert "burn on lower" not in PRESETS["smelly"].describe()
    assert PRESETS["free"].describe() == (
        "2 reset, 5 lower, 10 burn, lower is wild, burn on lower, four burns, may pickup anytime, stock gamble"
    )


def test_the_lobby_line_says_the_rules_in_words() -> None:
    game = snapshot(new_game("shithead", PRESETS["standard"], 3, 5))
    assert page_of(game).rules_line() == "2 resets · 10 burns · four of a kind burns"
    assert page_of(game, "fr").rules_line() == "2 remet à zéro · 10 brûle · un carré brûle"
    classic = snapshot(new_game("shithead", PRESETS["classic"], 3, 5))
    assert page_of(classic).rules_line() == "2 resets · 7: lower next · 8 is see-through · 10 burns, not on a 7"


def test_rules_explain_only_what_matters() -> None:
    from shithead_bot.telegram.render.rules import rules_text

    standard = rules_text(PRESETS["standard"]).splitlines()
    assert standard[2:] == [
        "• 2: goes on anything; anything goes on it",
        "• 10: burns the pile; play again",
        "• four of a kind on top burns the pile",
    ]
    assert not any("lower" in x for x in rules_text(PRESETS["smelly"]).splitlines()[2:])
    classic = rules_text(PRESETS["classic"]).splitlines()
    assert "• 7: the next card must be a 7 or lower" in classic
    assert "• 10: burns the pile; play again — but not on a 7" in classic
    free = rules_text(PRESETS["free"]).splitlines()
    assert "• 5: goes on anything; the next card must be a 5 or lower" in free
    assert "• 10: burns the pile; play again — on a 5 too" in free
    two_decks = rules_text(PRESETS["standard"].with_rule("decks", "2")).splitlines()
    assert two_decks[-2:] == ["• played with two decks, up to 10 players", "House rules: decks=2"]
    french = rules_text(PRESETS["classic"], "fr").splitlines()
    assert "• 10 : brûle la pile ; tu rejoues — mais pas sur un 7" in french


# ------------------------------------------------------------------------- counts, articles, ordinals


def test_counts_take_the_singular_when_there_is_one() -> None:
    from shithead_bot.service import Announcement, AnnouncePayload, Notice, NoticeKind
    from shithead_bot.telegram.render import announce

    game = snapshot(playing())

    def said(what: Announcement, language: str = "en", *, timeouts: int | None = None, days: int | None = None) -> str:
        notice = Notice(NoticeKind.ANNOUNCE, 7, 1, AnnouncePayload(what, timeouts=timeouts, days=days))
        rendered = announce.announce(page_of(game, language), notice)
        assert rendered is not None
        return rendered.text

    assert said(Announcement.REMOVED, timeouts=1) == "⏰ Bob was removed after 1 missed turn."
    assert said(Announcement.REMOVED, timeouts=3) == "⏰ Bob was removed after 3 missed turns in a row."
    assert said(Announcement.REMOVED, "fr", timeouts=1) == "⏰ Bob a été retiré après 1 tour manqué."
    assert said(Announcement.LOBBY_EXPIRED, days=1) == "Game #7 was never started and is closed after 1 day."
    assert said(Announcement.PAUSE_EXPIRED, days=1) == "Game #7 was paused for 1 day and is closed."


def test_the_first_play_names_the_rank_with_its_article() -> None:
    rules = PRESETS["smelly"].with_rules({"4": "skip", "5": "skip", "6": "reverse", "7": "skip"})
    for seed in range(100):  # 3 to 7 have powers: a deal where the first play needs an 8
        state = new_game("shithead", rules, 3, seed)
        for seat in range(3):
            state.apply(seat, Ready())
        starter = state.view(None).to_act or 0
        if state.view(starter).required_rank == 8:
            break
    game = snapshot(state)
    text = private.turn(page_of(game), game.seat(starter)).text
    assert "Your first play must include an 8." in text
    assert "Ton premier coup doit contenir un 8." in private.turn(page_of(game, "fr"), game.seat(starter)).text


def test_the_last_timeout_warning_says_an_ordinal() -> None:
    from shithead_bot.service import Reminder, ReminderPayload

    game = snapshot(playing())
    game = game.with_chat(max_timeouts=3)
    text = private.reminder(page_of(game), game.seat(0), ReminderPayload(Reminder.REMINDER, timeouts=2)).text
    assert "That would be your 3rd timeout in a row: you would leave the game." in text
    game = game.with_chat(max_timeouts=1)
    text = private.reminder(page_of(game), game.seat(0), ReminderPayload(Reminder.REMINDER, timeouts=0)).text
    assert "If your time runs out, you leave the game." in text


def test_the_last_timeout_warning_says_what_the_chat_does_then() -> None:
    """With ``after_timeouts computer`` nobody leaves: the warning says a computer takes the seat."""
    from shithead_bot.service import Reminder, ReminderPayload

    game = snapshot(playing()).with_chat(max_timeouts=3, after_timeouts="computer")
    text = private.reminder(page_of(game), game.seat(0), ReminderPayload(Reminder.REMINDER, timeouts=2)).text
    assert "leave the game" not in text
    assert "That would be your 3rd timeout in a row: a computer would play your seat for the rest of the game." in text
    game = game.with_chat(max_timeouts=1)
    text = private.reminder(page_of(game), game.seat(0), ReminderPayload(Reminder.REMINDER, timeouts=0)).text
    assert "If your time runs out, a computer plays your seat for the rest of the game." in text
    french = private.reminder(page_of(game, "fr"), game.seat(0), ReminderPayload(Reminder.REMINDER, timeouts=0)).text
    assert "un ordinateur joue à ta place jusqu'à la fin de la partie" in french


def test_settings_and_refusals_count_in_the_singular() -> None:
    from shithead_bot.i18n import translations
    from shithead_bot.service import RateLimitedError
    from shithead_bot.telegram.render.replies import refusal
    from shithead_bot.telegram.render.rules import settings_text

    game = snapshot(playing()).with_chat(max_timeouts=1)
    assert "Removal after 1 missed turn (0: never)" in settings_text(game.chat, translations("en"))
    assert refusal(RateLimitedError("x", 70), translations("en")) == "Not so fast — try again in 1 min."
    assert refusal(RateLimitedError("x", 300), translations("en")) == "Not so fast — try again in 5 min."


def test_the_end_names_the_loser_once() -> None:
    from engine.ai import make_player

    state = playing()
    player = make_player("random", 1)
    while not state.is_over:
        seat = state.seats_to_act()[0]
        state.apply(seat, player.choose(state.view(seat)))
    outcome = state.outcome
    assert outcome is not None
    assert outcome.loser is not None
    game = snapshot(state).with_game(status=GameStatus.FINISHED)
    seats = [replace(s, place=outcome.places[s.number], is_loser=s.number == outcome.loser) for s in game.seats]
    game = replace(game, seats=seats)
    winner = outcome.ranking[0]
    loser_name = NAMES[outcome.loser]
    intro = ["You are out — 1st place!", f"{loser_name} is the Shithead! 💩"]  # the last move, as told
    text = private.result(page_of(game), game.seat(winner), intro).text
    assert text.count("Shithead") == 1, text
    assert text.splitlines()[1:] == [
        "You are out — 1st place!",
        "You are 1st of 3.",
        f"💩 {loser_name} is the Shithead!",
    ]


def finished(forfeited: tuple[int, ...] = ()) -> GameSnapshot:
    """Seed 5's game played out by random players; ``forfeited`` seats marked as having left."""
    from engine.ai import make_player

    state = playing()
    player = make_player("random", 1)
    while not state.is_over:
        seat = state.seats_to_act()[0]
        state.apply(seat, player.choose(state.view(seat)))
    outcome = state.outcome
    assert outcome is not None
    game = snapshot(state).with_game(status=GameStatus.FINISHED)
    seats = [
        replace(s, place=outcome.places[s.number], is_loser=s.number == outcome.loser, forfeited=s.number in forfeited)
        for s in game.seats
    ]
    return replace(game, seats=seats)


def test_who_left_is_told_so_once() -> None:
    game = finished(forfeited=(1,))
    text = private.result(page_of(game), game.seat(1), ["You left the game"]).text
    assert text.count("You left the game") == 1, text


def test_no_rematch_when_fewer_than_two_players_would_be_dealt_in() -> None:
    from shithead_bot.telegram.render import keyboards

    assert private.result(page_of(finished()), finished().seat(0)).buttons
    game = finished(forfeited=(1, 2))
    assert not private.result(page_of(game), game.seat(0)).buttons
    assert keyboards.rematch(page_of(game)) == []  # the group's game-over message uses it too


def test_help_says_how_to_start_a_game() -> None:
    from shithead_bot.i18n import translations
    from shithead_bot.telegram.render.info import help_text

    lines = help_text(translations("en")).splitlines()
    assert lines[2] == (
        "To play: add me to a group, send /newgame there, and tap Join; whoever opened it, or a chat admin, taps Start."
    )
    assert help_text(translations("fr")).splitlines()[2].startswith("Pour jouer : ajoute-moi à un groupe")


def test_group_texts_name_the_bot_in_their_commands() -> None:
    """Privacy mode: a bare /command reaches the bot only if it posted last in the group."""
    from shithead_bot.service import Announcement, AnnouncePayload, Notice, NoticeKind
    from shithead_bot.telegram.render import announce
    from shithead_bot.telegram.render.info import addressed

    page = Page(snapshot(playing()), Codec(b"k"), "en", "shithead_bot")
    paused = announce.announce(page, Notice(NoticeKind.ANNOUNCE, 7, None, AnnouncePayload(Announcement.PAUSED)))
    assert paused is not None
    assert "/resume@shithead_bot to go on" in paused.text
    text = "Try /newgame, /settings rules clear or /help@other; <b>x</b> https://t.me/shithead_bot?start=a /nope"
    assert addressed(text, "shithead_bot") == (
        "Try /newgame@shithead_bot, /settings@shithead_bot rules clear or /help@other; "
        "<b>x</b> https://t.me/shithead_bot?start=a /nope"
    )


def test_the_settings_name_the_way_back_to_each_players_language() -> None:
    """Issue 34 item 2: `language auto` is the way back; a group's setting is its own messages only."""
    from shithead_bot.i18n import translations
    from shithead_bot.service import ChatSnapshot
    from shithead_bot.telegram.render.rules import settings_text

    group = settings_text(ChatSnapshot(-1, language="fr"), translations("en"))
    assert "/settings language en|fr|auto" in group
    assert "Language of this chat: fr · private messages: each player's own" in group
    assert "Language of this chat: en (auto)" in settings_text(ChatSnapshot(-1), translations("en"))
    assert "Language: your own (auto)" in settings_text(ChatSnapshot(5, kind="private"), translations("en"))


# ------------------------------------------------------------------------- who made a move


def test_past_moves_are_told_by_who_made_them_not_by_who_stands_in_now() -> None:
    """Cleo played her 4 herself, then went away: the stand-in picked up for her. The table tells
    her own move as hers and the stand-in's with the 🤖 — while she is away (the seat's name has the
    🤖 beside it) and after she is back (it has not) alike; so do the picture's caption and the
    others' "since your last turn" lines."""
    from shithead_bot.telegram.render import photo, table

    state = playing()
    four = card_of(2)
    moves = (
        line(5, 2, ev.Played(2, "h", (four,))),
        MoveLine(6, 2, "p", "standin", (ev.PickedUp(2, 2, None),)),
    )
    hers, stand_in = f"Cleo played {four}", "🤖 Cleo picked up the pile (2 cards)"
    for away in (True, False):
        game = snapshot(state, moves=moves).with_seat(2, stood_in=away)
        page = page_of(game)
        assert page.move_lines(moves) == [hers, stand_in], f"away: {away}"
        assert table.table(page).text.splitlines()[-2:] == [f"· {hers}", f"· {stand_in}"]
        made = photo.table_photo(page)
        assert made.caption.text.splitlines()[-1] == f"· {stand_in}"
        assert private.since_last_turn(page, 0)[-2:] == [hers, stand_in]
    back = snapshot(state, moves=moves)
    mine = page_of(back).move_lines(moves, me=2)  # Cleo's own chat: her move, then her stand-in's
    assert mine[0] == f"You played {four}"
    assert mine[1].startswith("🤖 Your stand-in ")


def test_the_swap_phase_reminder_threatens_no_removal() -> None:
    """The swap phase's deadline is not a missed turn: its reminder says what the bot will do
    (swap sensibly, make you ready), not that you would leave the game."""
    from shithead_bot.service import Reminder, ReminderPayload

    game = snapshot(new_game("shithead", PRESETS["standard"], 3, 5)).with_chat(max_timeouts=1)
    assert game.in_swap_phase
    text = private.reminder(page_of(game), game.seat(0), ReminderPayload(Reminder.REMINDER, timeouts=0)).text
    assert "I will make a sensible swap and make you ready" in text
    assert "leave the game" not in text


def test_a_forced_first_play_after_a_swap_phase_timeout_is_not_told_as_a_timeout() -> None:
    """Bob let the swap phase's deadline pass: that is a timeout. His first play, forced, was the
    bot's autoplay, at no deadline: told as any forced move."""
    state = playing()
    four = card_of(2)
    moves = (
        MoveLine(3, 1, "t", "timeout", (ev.Readied(1), ev.PlayStarted(1, four.rank))),
        MoveLine(4, 1, "4", "autoplay", (ev.Played(1, "h", (four,)),)),
    )
    game = snapshot(state, moves=moves)
    assert page_of(game).move_lines(moves) == [
        "⏰ Time ran out: Bob is ready",
        "Bob starts with a 4",
        f"Bob played {four}",
    ]
    assert page_of(game).move_lines(moves, me=1)[-1] == f"⏩ You had no other move — you played {four}"
