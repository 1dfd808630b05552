"""Privacy of every rendered text, step by step through random games: the group's table never shows
a card the table has not seen, and a player's private message never shows another player's hand or
any face-down card; nobody sees the deal's seed or salt before the game is over, when the last
message reveals them. (The end-to-end tests audit whole runs; this checks each moment exactly.)"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from telegram import InlineKeyboardButton

from engine import PRESETS, NeighborRules, NeighborState, ShitheadState, card_of, event_to_dict, new_game
from engine import events as ev
from persistence.models import Chat, Game, Seat
from persistence.models import Move as MoveRow
from shithead_bot.service import (
    Announcement,
    AnnouncePayload,
    GameSnapshot,
    GameStatus,
    MoveLine,
    Notice,
    NoticeKind,
    SeatSnapshot,
)
from shithead_bot.service.commitment import fingerprint
from shithead_bot.service.snapshot import Revealed
from shithead_bot.service.unit import GameTx
from shithead_bot.telegram.botapi import BotApi
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.render import Page, Rendered, private, rows
from shithead_bot.telegram.render import table as table_message
from shithead_bot.telegram.render.announce import announce
from shithead_bot.telegram.render.photo import caption
from shithead_bot.telegram.render.rules import rules_text

NOW = datetime(2026, 1, 5, 12, tzinfo=UTC)
SEED, SALT = 4_611_686_018_427_387_001, "5a17" * 8  # the deal's secrets, until the game is over
DEAL = (str(SEED), SALT)


def context(state: ShitheadState | NeighborState, rules: dict[str, object], kind: str) -> GameSnapshot:
    game = Game(
        id=7,
        chat_id=-1,
        kind=kind,
        status="playing",
        rules=rules,
        turn_seconds=3600,
        deadline_at=NOW + timedelta(hours=1),
        version=3,
        seed=SEED,
        deal_salt=SALT,
        deal_commitment=fingerprint(7, SEED, SALT),
    )
    seats = [Seat(game_id=7, number=n, player_id=100 + n, name=f"P{n}", keyboard_version=3) for n in range(state.seats)]
    tx = GameTx(None, game, seats, Chat(id=-1, title="Friends"), NOW, state=state)  # type: ignore[arg-type]
    return tx.snapshot()


class Renderer:
    """The messages of one game as each reader gets them (table, turn, moved)."""

    def __init__(self, game: GameSnapshot, codec: Codec, language: str = "en", username: str = "") -> None:
        self.game = game
        self.page = Page(game, codec, language, username)

    def table(self, moves: list[MoveRow]) -> Rendered:
        page = Page(replace(self.game, moves=tuple(MoveLine.of(m) for m in moves)), self.page.codec)
        return table_message.table(page)

    def turn(self, seat: SeatSnapshot) -> Rendered:
        return private.turn(self.page, seat)

    def moved(self, seat: SeatSnapshot, moves: list[MoveRow]) -> Rendered:
        return private.moved(self.page, seat, [MoveLine.of(m) for m in moves])


def public_cards(event: ev.Event) -> set[int]:
    if isinstance(event, ev.Played):
        return set(event.cards)
    if isinstance(event, ev.BlindFailed):
        return {event.card}
    if isinstance(event, ev.Swapped):
        return {event.to_face_up, event.to_hand}
    if isinstance(event, ev.PickedUp) and event.face_up is not None:
        return {event.face_up}
    if isinstance(event, ev.Blocked):
        return {event.king}
    if isinstance(event, ev.Revealed):
        return {c for c in event.cards if c is not None}
    return set()


def shown(text: str, cards: set[int]) -> list[str]:
    return [str(card_of(c)) for c in cards if re.search(rf"(?<![0-9]){re.escape(str(card_of(c)))}", text)]


def shithead_secrets(state: ShitheadState, public: set[int]) -> tuple[set[int], dict[int, set[int]]]:
    """Face-down and stock cards (secret to all), and each seat's hand cards the table never saw."""
    hidden = {c for fd in state.face_down for c in fd if c is not None} | set(state.stock)
    hands = {s: {int(c) for c in state.hand_of(s)} - public for s in range(state.seats)}
    return hidden - public, hands


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_shithead_texts_show_only_what_each_reader_may_know(preset: str) -> None:
    for seed in range(4):
        state = new_game("shithead", PRESETS[preset], 4, seed)
        assert isinstance(state, ShitheadState)
        public = {c for up in state.face_up for c in up}
        rng = random.Random(seed)
        log: list[MoveRow] = []
        for step in range(400):
            if state.is_over:
                break
            seat = rng.choice(state.seats_to_act())
            move = rng.choice(state.legal_moves(seat))
            events = state.apply(seat, move)
            for event in events:
                public |= public_cards(event)
            public |= {c for up in state.face_up for c in up}
            log.append(
                MoveRow(
                    game_id=7,
                    seq=step + 1,
                    seat=seat,
                    move=str(move),
                    actor="human",
                    events=[event_to_dict(e) for e in events],
                )
            )
            if step % 7:
                continue
            render = Renderer(context(state, PRESETS[preset].to_dict(), "shithead"), Codec(b"k"), "en", "bot")
            secret, hands = shithead_secrets(state, public)
            every_hand = set().union(*hands.values())
            assert shown(render.table(log[-5:]).text, secret | every_hand) == []
            for number, seat_row in enumerate(render.game.seats):
                others = secret | (every_hand - hands[number])
                private = [render.turn(seat_row).text, render.moved(seat_row, log[-3:]).text]
                assert shown("\n".join(private), others) == [], (preset, seed, step, number)
                assert not any(secret in "\n".join(private) for secret in DEAL)
            assert not any(secret in render.table(log[-5:]).text for secret in DEAL)


def test_neighbor_texts_show_only_what_each_reader_may_know() -> None:
    for seed in range(6):
        state = new_game("neighbor", NeighborRules(), 5, seed)
        assert isinstance(state, NeighborState)
        rng = random.Random(seed)
        log: list[MoveRow] = []
        for step in range(200):
            if state.is_over:
                break
            seat = state.seats_to_act()[0]
            move = rng.choice(state.legal_moves(seat))
            events = state.apply(seat, move)
            log.append(
                MoveRow(
                    game_id=7,
                    seq=step + 1,
                    seat=seat,
                    move=str(move),
                    actor="human",
                    events=[event_to_dict(e) for e in events],
                )
            )
            render = Renderer(context(state, NeighborRules().to_dict(), "neighbor"), Codec(b"k"), "en", "bot")
            current = {s: state.cards[s] for s in range(state.seats) if state.cards[s] is not None}
            known_by = {
                s: {int(m.gave) for m in state.memories[s]} | {int(m.got) for m in state.memories[s]}
                for s in range(state.seats)
            }
            blocked = {int(k) for _, k in state.blocked}
            in_play = {int(c) for c in current.values() if c is not None} - blocked
            # Each hand is dealt from a fresh deck, so the table's story of earlier hands may name a card
            # that is in someone's hand now: the state part of the table is what must stay silent.
            assert shown(render.table([]).text, in_play | {int(c) for c in state.deck} - blocked) == []
            for number, seat_row in enumerate(render.game.seats):
                mine = {int(current[number])} if number in current else set()
                text = render.turn(seat_row).text
                assert shown(text, in_play - mine - known_by[number]) == [], (seed, step, number)


class ScriptedBot:
    """A Bot stand-in whose edits fail the way Telegram's do."""

    def __init__(self, error: str) -> None:
        self.error = error

    async def edit_message_text(self, *args: object, **kwargs: object) -> None:
        from telegram.error import BadRequest

        raise BadRequest(self.error)


async def test_edit_not_modified_is_success_and_gone_is_none() -> None:
    rendered = Rendered("hello", rows([InlineKeyboardButton("x", callback_data="x")]))
    unchanged = BotApi(ScriptedBot("Message is not modified: specified new message content..."))  # type: ignore[arg-type]
    assert await unchanged.edit(1, 2, rendered) is True
    gone = BotApi(ScriptedBot("Message to edit not found"))  # type: ignore[arg-type]
    assert await gone.edit(1, 2, rendered) is None
    broken = BotApi(ScriptedBot("Can't parse entities: unsupported start tag"))  # type: ignore[arg-type]
    from telegram.error import BadRequest

    with pytest.raises(BadRequest):
        await broken.edit(1, 2, rendered)


def group_texts(game: GameSnapshot, moves: list[MoveRow]) -> dict[str, str]:
    """Every group message of the game at this moment: the table (text and caption), the
    announcements, the rules."""
    page = Page(replace(game, moves=tuple(MoveLine.of(m) for m in moves)), Codec(b"k"), "en", "bot")
    texts = {"table": table_message.table(page).text, "caption": caption(page, page.game.view(None), [])}
    for what in Announcement:
        data = AnnouncePayload(what, place=2, places=(1, 2, 3), winners=(0,), loser=2, days=3, timeouts=3)
        rendered = announce(page, Notice(NoticeKind.ANNOUNCE, 7, 1, data))
        texts[str(what)] = rendered.text if rendered else ""
    texts["rules"] = rules_text(page.rules, "en")
    return texts


def test_the_deal_s_seed_and_salt_stay_secret_until_the_end() -> None:
    state = new_game("shithead", PRESETS["standard"], 3, 11)
    game = context(state, PRESETS["standard"].to_dict(), "shithead")
    rng = random.Random(11)
    log: list[MoveRow] = []
    commitment = fingerprint(7, SEED, SALT)
    for step in range(2000):
        if state.is_over:
            break
        seat = rng.choice(state.seats_to_act())
        events = state.apply(seat, rng.choice(state.legal_moves(seat)))
        log.append(MoveRow(game_id=7, seq=step + 1, seat=seat, move="x", events=[event_to_dict(e) for e in events]))
        game = replace(game, state=state.copy())
        for name, text in group_texts(game, log[-5:]).items():
            assert not any(secret in text for secret in DEAL), (step, name)
        texts = group_texts(game, log[-5:])
        assert commitment in texts["table"]
        assert commitment in texts["caption"]
        assert commitment in texts["started"]
    assert state.is_over
    assert game.revealed is None  # a game in play: its snapshot carries no secret to leak
    for status in (GameStatus.FINISHED, GameStatus.ABORTED):
        over = game.with_game(status=status)  # as a snapshot of the game over has it: its secrets revealed
        ended = group_texts(replace(over, revealed=Revealed(SEED, SALT)), log[-5:])
        revealing = {name for name, text in ended.items() if all(secret in text for secret in DEAL)}
        assert revealing == {"over", "aborted", "pause_expired"}, status
