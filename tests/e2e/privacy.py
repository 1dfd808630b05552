"""Privacy audit of a whole run: which cards were never shown to the table, and where they appeared.

A card that never became public (it stayed in one hand, face-down, or in the stock) may appear only
in its holder's private chat — never in a group, never in another player's chat, never in the logs;
a face-down or stock card nowhere at all. The game is replayed from its move log to find them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine import AnyState, Card, ShitheadState, card_of, new_game, rules_from_dict
from engine import events as ev
from persistence.db import make_engine, make_sessionmaker
from shithead_bot.service import GameService


def _public_in(event: ev.Event) -> Iterable[Card]:
    if isinstance(event, ev.Played):
        return event.cards
    if isinstance(event, ev.BlindFailed):
        return [event.card]
    if isinstance(event, ev.Swapped):
        return [event.to_face_up, event.to_hand]
    if isinstance(event, ev.PickedUp) and event.face_up is not None:
        return [event.face_up]
    if isinstance(event, ev.Blocked):
        return [event.king]
    if isinstance(event, ev.Revealed):
        return [c for c in event.cards if c is not None]
    return []


def _face_up(state: AnyState) -> set[int]:
    if isinstance(state, ShitheadState):
        return {c for up in state.face_up for c in up}
    return set()


def _seen_privately(state: AnyState) -> dict[int, set[int]]:
    """Cards each seat knows now without the table knowing them: its hand (Neighbor: its card and
    the cards of swaps it took part in)."""
    seen: dict[int, set[int]] = {}
    if isinstance(state, ShitheadState):
        for seat in range(state.seats):
            for card in state.hand_of(seat):
                seen.setdefault(int(card), set()).add(seat)
        return seen
    for seat in range(state.seats):
        own = state.cards[seat]
        cards = [own] if own is not None else []
        for memory in state.memories[seat]:
            cards += [memory.gave, memory.got]
        for card in cards:
            seen.setdefault(int(card), set()).add(seat)
    return seen


async def secret_cards(database_url: str, game_id: int) -> dict[int, set[int]]:
    """Cards never shown to the table: card id -> the seats that held or saw them (none: face-down
    or stock cards)."""
    engine = make_engine(database_url)
    service = GameService(make_sessionmaker(engine))
    ctx = await service.game_view(game_id)
    seed = (await service.record(game_id)).seed  # not in the game's read model: export's and verification's
    moves = await service.moves(game_id)
    await engine.dispose()
    game = ctx.game
    state = new_game(game.kind, rules_from_dict(game.kind, game.rules), len(ctx.seats), seed, game.dealer)
    public = _face_up(state)
    seen = _seen_privately(state)
    for move in moves:
        for event in state.apply(move.seat, move.move):
            public.update(int(c) for c in _public_in(event))
        public |= _face_up(state)
        for card, seats in _seen_privately(state).items():
            seen.setdefault(card, set()).update(seats)
    decks = 2 if isinstance(state, ShitheadState) and state.rules.decks == 2 else 1
    return {c: seen.get(c, set()) for c in range(52 * decks) if c not in public}


def leaks(texts: Iterable[tuple[int, str]], secrets: dict[int, set[int]], seat_chat: dict[int, int]) -> list[str]:
    """Every (chat, card) where a secret card was shown to someone who may not know it."""
    found = []
    patterns = {c: re.compile(rf"(?<![0-9]){re.escape(str(card_of(c)))}") for c in secrets}
    for chat_id, text in texts:
        for card, seats in secrets.items():
            allowed = any(seat_chat.get(seat) == chat_id for seat in seats)
            if not allowed and patterns[card].search(text):
                found.append(
                    f"{card_of(card)} (known to seats {sorted(seats)}) shown in chat {chat_id}: {text[:120]!r}"
                )
    return found


def leaks_in_logs(log_text: str, secrets: dict[int, set[int]]) -> list[str]:
    found = []
    for card in secrets:
        shown, code = str(card_of(card)), card_of(card).code()
        if re.search(rf"(?<![0-9]){re.escape(shown)}", log_text) or re.search(rf"\b{re.escape(code)}\b", log_text):
            found.append(shown)
    return found


async def deal_secrets(database_url: str, game_id: int) -> tuple[str, str]:
    """The game's seed and the salt of its commitment, as they would be written: secret until the
    game is over, when only its last group message reveals them."""
    engine = make_engine(database_url)
    try:
        record = await GameService(make_sessionmaker(engine)).record(game_id)
    finally:
        await engine.dispose()
    assert record.salt is not None, "a game dealt by this version has a commitment"
    return str(record.seed), record.salt


def deal_shown(texts: Iterable[tuple[int, str]], secrets: tuple[str, ...]) -> list[str]:
    """Every text that shows the seed or the salt."""
    patterns = [re.compile(rf"(?<![0-9a-f]){re.escape(s)}(?![0-9a-f])") for s in secrets]
    return [text for _, text in texts if any(p.search(text) for p in patterns)]
