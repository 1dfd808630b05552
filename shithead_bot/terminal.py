"""``shithead-bot play``: a whole game in the terminal against computer players.

What people type is parsed by :func:`parse_input`; what they read is :data:`SHITHEAD_HELP` or
:data:`NEIGHBOR_HELP`, the table from :class:`Table`, and the moves told by the narrator.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

from engine import (
    AnyRules,
    AnyState,
    Card,
    EngineError,
    Keep,
    Move,
    NeighborView,
    Phase,
    PickUp,
    Play,
    PlayFaceDown,
    Ready,
    ShitheadView,
    Source,
    StockGamble,
    Swap,
    Trade,
    new_game,
    rank_text,
)
from engine.ai import Player, make_player
from engine.cards import parse_rank
from shithead_bot.names import table_names
from shithead_bot.narrate import Narrator, a_rank, cards_text, ordinal

SHITHEAD_HELP = """Type what you would say at the table:
  q (one Queen), qq or 2 q (two Queens), 10 (a Ten)
  pickup        pick up the pile (pickup 6: take your face-up 6 along, when the rules say so)
  1, 2 or 3     turn over that face-down card, once your hand and face-up cards are gone
  gamble        play the top of the stock blind, when the rules allow it
In the swap phase:
  q 5           put your Queen from hand face-up and take the face-up 5 into hand
  ready         you are done swapping
help shows this, quit leaves the game."""

NEIGHBOR_HELP = """Each hand, everyone holds one card; every lowest card loses a life (Ace is lowest).
  keep: keep your card
  swap: swap it with the next player's card (a King there blocks the swap);
        the dealer, who acts last, trades with the top of the deck instead
help shows this, quit leaves the game."""

RED = "\033[31m"
BOLD = "\033[1m"
RESET = "\033[0m"


class InputError(ValueError):
    """What the person typed is not a move they can make now; the message says why."""


def use_colour(stream: TextIO) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def card_formatter(colour: bool) -> Callable[[Card], str]:
    def fmt(card: Card) -> str:
        return f"{RED}{card}{RESET}" if colour and card.is_red else str(card)

    return fmt


# ------------------------------------------------------------------------- parsing what people type

_WORDS_PICKUP = {"pickup", "pick", "pick up", "take", "t", "p", "up"}
_WORDS_READY = {"ready", "r", "done", "go", "start"}
_WORDS_GAMBLE = {"gamble", "g", "stock", "blind", "deck"}
_WORDS_KEEP = {"keep", "k", "stay", "no"}
_WORDS_TRADE = {"swap", "s", "trade", "yes"}


def parse_input(text: str, view: ShitheadView | NeighborView) -> Move:
    """The legal move a person means by ``text``; raises InputError with a short reason."""
    words = " ".join(text.lower().replace("×", "x").replace(",", " ").split())
    if not words:
        raise InputError("type a move, or 'help'")
    if isinstance(view, NeighborView):
        return _neighbor_input(words, view)
    if view.phase is Phase.SWAP:
        return _swap_input(words, view)
    return _play_input(words, view)


def _neighbor_input(words: str, view: NeighborView) -> Move:
    move: Move
    if words in _WORDS_KEEP:
        move = Keep()
    elif words in _WORDS_TRADE:
        move = Trade()
    else:
        raise InputError("type 'keep' or 'swap'")
    return _legal(move, view.legal_moves)


def _swap_input(words: str, view: ShitheadView) -> Move:
    if words in _WORDS_READY:
        return Ready()
    parts = re.split(r"\s*(?:<>|/|\s|-|for)\s*", words.removeprefix("swap").strip())
    parts = [p for p in parts if p]
    if len(parts) != 2:
        raise InputError("swap with 'HAND FACEUP', e.g. 'q 5' puts your Q face-up and takes the 5; or 'ready'")
    try:
        move = Swap(parse_rank(parts[0]), parse_rank(parts[1]))
    except EngineError as exc:
        raise InputError(str(exc)) from exc
    hand_ranks = {c.rank for c in view.hand}
    up_ranks = {c.rank for c in view.seats[view.seat or 0].face_up}
    if move.hand_rank not in hand_ranks:
        raise InputError(f"you hold no {rank_text(move.hand_rank)} in hand")
    if move.face_up_rank not in up_ranks:
        raise InputError(f"you have no {rank_text(move.face_up_rank)} face-up")
    return _legal(move, view.legal_moves)


def _play_input(words: str, view: ShitheadView) -> Move:
    first, _, rest = words.partition(" ")
    if words in _WORDS_PICKUP or first in _WORDS_PICKUP - {"up"}:
        return _pickup_input(rest.removeprefix("up").strip(), view)
    if words in _WORDS_GAMBLE:
        return _legal(StockGamble(), view.legal_moves, "you cannot play the stock blind now")
    if view.source is Source.FACE_DOWN:
        if words in ("1", "2", "3"):
            return _legal(PlayFaceDown(int(words)), view.legal_moves, f"face-down slot {words} is empty")
        raise InputError("you are on your face-down cards: pick a slot, 1, 2 or 3")
    rank, count = _rank_and_count(words)
    source = view.source or Source.HAND
    move = Play(source, rank, count)
    if move in view.legal_moves:
        return move
    raise InputError(_why_not(move, view))


def _pickup_input(rest: str, view: ShitheadView) -> Move:
    pickups = [m for m in view.legal_moves if isinstance(m, PickUp)]
    if not pickups:
        raise InputError("you have a legal play, so you may not pick up" if view.pile else "the pile is empty")
    if len(pickups) == 1 and pickups[0].face_up_rank is None:
        return pickups[0]
    if not rest:
        choices = " or ".join(f"'pickup {rank_text(m.face_up_rank or 0)}'" for m in pickups)
        raise InputError(f"say which face-up card to take along: {choices}")
    try:
        rank = parse_rank(rest)
    except EngineError as exc:
        raise InputError(str(exc)) from exc
    return _legal(PickUp(rank), view.legal_moves, f"you have no {rank_text(rank)} face-up")


_RANK = r"(10|[2-9]|[jqka]|t)"


def _rank_and_count(words: str) -> tuple[int, int]:
    compact = words.replace(" ", "")
    patterns: list[tuple[str, Callable[[re.Match[str]], tuple[str, int]]]] = [
        # A rank said again and again counts first: "qq", "33", "1010" are two Queens, 3s, 10s.
        (rf"^(?:{_RANK})\1*$", lambda m: (m.group(1), len(compact) // len(m.group(1)))),
        (rf"^(\d)x?{_RANK}$", lambda m: (m.group(2), int(m.group(1)))),
        (rf"^{_RANK}x(\d)$", lambda m: (m.group(1), int(m.group(2)))),
    ]
    spaced = re.fullmatch(rf"(\d) {_RANK}", words)
    if spaced:
        return parse_rank(spaced.group(2)), int(spaced.group(1))
    for pattern, read in patterns:
        match = re.fullmatch(pattern, compact)
        if match:
            rank, count = read(match)
            return parse_rank(rank), count
    raise InputError(f"'{words}' is not a move: try a rank like 'q', 'qq', '2 q', '10', or 'pickup'")


def _why_not(move: Play, view: ShitheadView) -> str:
    name = rank_text(move.rank)
    if view.required_rank and move.rank != view.required_rank:
        return f"the first play of the game must include {a_rank(view.required_rank)}"
    source_cards = view.hand if move.source is Source.HAND else view.seats[view.seat or 0].face_up
    held = sum(1 for c in source_cards if c.rank == move.rank)
    where = "in hand" if move.source is Source.HAND else "face-up"
    if held == 0:
        return f"you have no {name} {where}"
    if held < move.count:
        return f"you have only {held} × {name} {where}"
    top = a_rank(view.effective_top) if view.effective_top else "the pile"
    return f"{a_rank(move.rank)} cannot go on {top} now"


def _legal(move: Move, legal: Sequence[Move], reason: str = "that is not allowed now") -> Move:
    if move in legal:
        return move
    raise InputError(reason)


# ------------------------------------------------------------------------- showing the table


def describe_move(move: Move) -> str:
    """A move as a person would type it."""
    if isinstance(move, Play):
        rank = rank_text(move.rank).lower()
        return rank if move.count == 1 else f"{move.count} {rank}"
    if isinstance(move, PlayFaceDown):
        return str(move.slot)
    if isinstance(move, PickUp):
        return "pickup" if move.face_up_rank is None else f"pickup {rank_text(move.face_up_rank).lower()}"
    if isinstance(move, StockGamble):
        return "gamble"
    if isinstance(move, Swap):
        return f"{rank_text(move.hand_rank).lower()} {rank_text(move.face_up_rank).lower()}"
    return {Ready: "ready", Keep: "keep", Trade: "swap"}.get(type(move), str(move))


@dataclass
class Table:
    """Renders views as text for the terminal."""

    names: list[str]
    fmt: Callable[[Card], str]

    def shithead(self, view: ShitheadView) -> list[str]:
        pile = view.pile[-6:]
        top = f"top {rank_text(view.effective_top)}" if view.effective_top else "no top"
        count = f"{len(view.pile)} card" if len(view.pile) == 1 else f"{len(view.pile)} cards"
        shown = f"{cards_text(pile, self.fmt)} ({count}, {top})" if view.pile else "empty"
        lines = [f"Pile: {shown} · Stock: {view.stock_count} · Burned: {view.discard_count}"]
        for info in view.seats:
            if info.seat == view.seat:
                continue
            state = (
                f"out, {ordinal(info.place)}"
                if info.place
                else (
                    f"hand {info.hand_count} · face-up {cards_text(info.face_up, self.fmt) or '—'}"
                    f" · face-down {info.face_down_count}"
                )
            )
            marker = "▶ " if view.to_act == info.seat else "  "
            lines.append(f"{marker}{self.names[info.seat]}: {state}")
        if view.seat is not None:
            me = view.seats[view.seat]
            hand = cards_text(view.hand, self.fmt) or "—"
            face_up = cards_text(me.face_up, self.fmt) or "—"
            slots = " ".join(str(i + 1) for i, has in enumerate(me.face_down) if has) or "—"
            lines.append(f"You: hand {hand} · face-up {face_up} · face-down {slots}")
        return lines

    def neighbor(self, view: NeighborView) -> list[str]:
        lives = " · ".join(f"{self.names[s.seat]} {'♥' * s.lives if s.lives else 'out'}" for s in view.seats)
        lines = [f"Hand {view.hand_number}, {self.names[view.dealer]} deals · {lives}"]
        if view.card is not None:
            lines.append(f"Your card: {self.fmt(view.card)}")
        return lines


# ------------------------------------------------------------------------- the game loop


class TerminalGame:
    def __init__(
        self,
        kind: str,
        rules: AnyRules,
        seats: int,
        seed: int,
        level: str,
        auto: bool,
        out: TextIO,
        read: Callable[[str], str],
        name: str = "Player",
    ) -> None:
        self.state: AnyState = new_game(kind, rules, seats, seed)
        self.auto = auto
        self.human = None if auto else 0
        self.names = table_names(None if auto else name, seats)
        self.players: dict[int, Player] = {
            s: make_player(level, seed * 31 + s) for s in range(seats) if s != self.human
        }
        self.colour = use_colour(out)
        self.fmt = card_formatter(self.colour)
        self.narrator = Narrator(self.names, rules, card_format=self.fmt, me=self.human)
        self.table = Table(self.names, self.fmt)
        self.out = out
        self.read = read

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def run(self) -> int:
        rules = self.state.rules
        title = f"{self.state.kind.title()} ({rules.name}): {rules.describe()}"
        self.say(f"{BOLD}{title}{RESET}" if self.colour else title)
        self.say(", ".join(self.names) + f" — {self.names[self.state.dealer]} deals.")
        while not self.state.is_over:
            seats = self.state.seats_to_act()
            computer = [s for s in seats if s != self.human]
            seat = computer[0] if computer else seats[0]
            if seat == self.human:
                if not self._human_turn(seat):
                    self.say("Bye!")
                    return 0
            else:
                self._apply(seat, self.players[seat].choose(self.state.view(seat)))
        self._ranking()
        return 0

    def _apply(self, seat: int, move: Move) -> None:
        for line in self.narrator.lines(self.state.apply(seat, move)):
            self.say(f"  {line}")

    def _human_turn(self, seat: int) -> bool:
        view = self.state.view(seat)
        self.say()
        lines = self.table.neighbor(view) if isinstance(view, NeighborView) else self.table.shithead(view)
        for line in lines:
            self.say(line)
        moves = ", ".join(self._move_text(m, view) for m in view.legal_moves)
        if isinstance(view, NeighborView):
            self.say(self._neighbor_hint(view))
        self.say(f"Your moves: {moves}")
        while True:
            try:
                text = self.read("> ")
            except EOFError:
                return False
            if text.strip().lower() in ("quit", "exit"):
                return False
            if text.strip().lower() in ("help", "?", "moves"):
                self.say(NEIGHBOR_HELP if isinstance(view, NeighborView) else SHITHEAD_HELP)
                self.say(f"Your moves: {moves}")
                continue
            try:
                move = parse_input(text, view)
            except InputError as exc:
                self.say(f"  {exc}")
                continue
            self._apply(seat, move)
            return True

    def _neighbor_hint(self, view: NeighborView) -> str:
        if view.dealer == view.seat:
            return "You deal: 'swap' trades your card with the top of the deck."
        neighbour = self.names[view.neighbour] if view.neighbour is not None else "the next player"
        return f"'swap' swaps your card with {neighbour}'s."

    def _move_text(self, move: Move, view: ShitheadView | NeighborView) -> str:
        text = describe_move(move)
        if isinstance(move, Trade) and isinstance(view, NeighborView):
            other = "the deck" if view.dealer == view.seat or view.neighbour is None else self.names[view.neighbour]
            return f"{text} (with {other})"
        return text

    def _ranking(self) -> None:
        outcome = self.state.outcome
        assert outcome is not None
        self.say()
        self.say("Final ranking:")
        for seat in outcome.ranking:
            self.say(f"  {ordinal(outcome.places[seat])}  {self.names[seat]}")


def play(kind: str, rules: AnyRules, seats: int, seed: int, level: str, auto: bool, name: str) -> int:
    """Run one terminal game; returns the process exit code."""
    game = TerminalGame(kind, rules, seats, seed, level, auto, sys.stdout, input, name)
    return game.run()
