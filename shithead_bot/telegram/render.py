"""Texts and inline keyboards, rendered from views — never from raw states — so a message built
for one player holds only what that player may know. HTML parse mode; every name is escaped."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from engine import (
    Card,
    Keep,
    Move,
    NeighborView,
    PickUp,
    Play,
    PlayFaceDown,
    Power,
    Ready,
    Rules,
    ShitheadView,
    StockGamble,
    Swap,
    Trade,
    event_from_dict,
    rank_text,
    rules_from_dict,
)
from engine.rules import NeighborRules
from persistence.models import Move as MoveRow
from persistence.models import Seat
from shithead_bot.i18n import translations
from shithead_bot.narrate import Narrator, cards_text, ordinal
from shithead_bot.service import Ctx
from shithead_bot.service.autoplay import timeout_moves
from shithead_bot.telegram.callback_data import Action, Button, Codec

MAX_TEXT = 4096
ROW = 4


@dataclass
class Rendered:
    text: str
    buttons: list[list[InlineKeyboardButton]] = field(default_factory=list)

    @property
    def markup(self) -> InlineKeyboardMarkup | None:
        return InlineKeyboardMarkup(self.buttons) if self.buttons else None


def esc(text: str) -> str:
    return html.escape(text, quote=False)


_TAG = re.compile(r"<[^>]*>")


def visible_length(html_text: str) -> int:
    """The length Telegram checks against its limit: the text after entity parsing, in UTF-16 units."""
    text = html.unescape(_TAG.sub("", html_text))
    return len(text.encode("utf-16-le")) // 2


def fit_lines(head: Sequence[str], tail: Sequence[str] = (), limit: int = MAX_TEXT) -> str:
    """Join whole lines (each line holds its own tags) so that what Telegram counts stays within
    ``limit``: the oldest ``tail`` lines (e.g. past actions) go first, then ``head`` lines from the end."""
    head, tail = list(head), list(tail)
    sizes = [visible_length(line) + 1 for line in [*head, *tail]]
    total = sum(sizes) - 1
    while tail and total > limit:
        total -= visible_length(tail.pop(0)) + 1
    while len(head) > 1 and total > limit:
        total -= visible_length(head.pop()) + 1
    return "\n".join([*head, *tail])


def rows(buttons: Sequence[InlineKeyboardButton], width: int = ROW) -> list[list[InlineKeyboardButton]]:
    return [list(buttons[i : i + width]) for i in range(0, len(buttons), width)]


def relative(until: datetime, now: datetime, _: Any) -> str:
    """ "in 23 h", "in 5 min", "in 40 s" — or "now" when past."""
    seconds = int((until - now).total_seconds())
    if seconds <= 0:
        return _("now")
    if seconds < 90:
        return _("in {n} s").format(n=seconds)
    if seconds < 90 * 60:
        return _("in {n} min").format(n=round(seconds / 60))
    if seconds < 48 * 3600:
        return _("in {n} h").format(n=round(seconds / 3600))
    return _("in {n} days").format(n=round(seconds / 86400))


class Renderer:
    """Renders one game for one language."""

    def __init__(self, ctx: Ctx, codec: Codec, language: str = "en", bot_username: str = "") -> None:
        self.ctx = ctx
        self.codec = codec
        self.language = language
        self.bot_username = bot_username
        t = translations(language)
        self._ = t.gettext
        self._n = t.ngettext
        self.rules = rules_from_dict(ctx.game.kind, ctx.game.rules)
        self.names = [s.name for s in ctx.seats]
        self.narrator = Narrator(self.names, self.rules, language, escape=esc)

    # ----------------------------------------------------------------- small pieces

    def button(self, text: str, action: Action, version: int = 0, argument: str = "") -> InlineKeyboardButton:
        data = self.codec.encode(Button(action, self.ctx.game.id or 0, version, argument))
        return InlineKeyboardButton(text, callback_data=data)

    def deep_link(self, action: str) -> str:
        return self.codec.deep_link(self.bot_username, action, self.ctx.game.id or 0)

    def title(self) -> str:
        _ = self._
        if isinstance(self.rules, NeighborRules):
            return _("🃏 <b>Shit On Your Neighbor</b>")
        return _("🃏 <b>Shithead</b> ({preset})").format(preset=esc(self.rules.name))

    def rules_line(self) -> str:
        return esc(self.rules.describe())

    def cards(self, cards: Sequence[Card]) -> str:
        return cards_text(cards) or "—"

    def move_lines(self, moves: Sequence[MoveRow]) -> list[str]:
        """The moves in words; a timed-out player's moves say so."""
        lines: list[str] = []
        for move in moves:
            told = self.narrator.lines([event_from_dict(e) for e in move.events])
            if move.actor == "timeout" and told:
                told[0] = self._("⏰ {name} timed out — {what}").format(name=esc(self.names[move.seat]), what=told[0])
            lines.extend(told)
        return lines

    def deadline(self) -> str:
        game = self.ctx.game
        if game.status == "paused":
            return self._("⏸ paused")
        if game.deadline_at is None:
            return ""
        return self._("⏳ {when}").format(when=relative(game.deadline_at, self.ctx.now, self._))

    # ----------------------------------------------------------------- the lobby

    def lobby(self) -> Rendered:
        _ = self._
        ctx = self.ctx
        status = ctx.game.status
        lines = [self.title(), self.rules_line(), ""]
        seated = ", ".join(esc(s.name) for s in ctx.seats) or _("nobody yet")
        lines.append(_("Players ({n}/{max}): {names}").format(n=len(ctx.seats), max=self.rules.max_seats, names=seated))
        if status != "lobby":
            lines.append(_("The game has started.") if status != "aborted" else _("This lobby was closed."))
            return Rendered("\n".join(lines))
        lines.append(_("Join, add computer players, then Start."))
        computers = sum(1 for s in ctx.seats if s.computer_level)  # the buttons' idempotency key
        buttons = [
            [self.button(_("✋ Join"), Action.JOIN), self.button(_("🚪 Leave"), Action.LEAVE)],
            [
                self.button(_("🤖 Add computer"), Action.ADD_COMPUTER, argument=f"heuristic.{computers}"),
                self.button(_("➖ Computer"), Action.REMOVE_COMPUTER, argument=str(computers)),
            ],
            [self.button(_("▶️ Start"), Action.START)],
        ]
        return Rendered("\n".join(lines), buttons)

    # ----------------------------------------------------------------- the group's table

    def table(self, last_moves: Sequence[MoveRow]) -> Rendered:
        state = self.ctx.state
        if state is None:
            return self.lobby()
        view = state.view(None)
        lines = [f"{self.title()} · #{self.ctx.game.id}"]
        if isinstance(view, NeighborView):
            lines += self._neighbor_table(view)
        else:
            lines += self._shithead_table(view)
        told = [f"· {line}" for line in self.move_lines(last_moves)[-5:]]
        return Rendered(fit_lines(lines, ["", *told] if told else []), self._table_buttons())

    def _table_buttons(self) -> list[list[InlineKeyboardButton]]:
        _ = self._
        status = self.ctx.game.status
        if status in ("finished", "aborted"):
            return []
        row = [InlineKeyboardButton(_("🃏 My cards"), url=self.deep_link("hand"))]
        if status == "paused":
            row.append(self.button(_("▶️ Resume"), Action.PAUSE_VOTE, argument="resume"))
            return [row]
        if self.ctx.game.turn_seconds:
            row.append(self.button(_("⏰ Nudge"), Action.NUDGE))
        votes = len(self.ctx.game.pause_votes)
        row.append(
            self.button(
                _("⏸ Pause ({n})").format(n=votes) if votes else _("⏸ Pause"), Action.PAUSE_VOTE, argument="pause"
            )
        )
        return [row]

    def _shithead_table(self, view: ShitheadView) -> list[str]:
        _ = self._
        lines = [
            self.pile_line(view),
            _("Stock: {stock} · Burned: {burned}").format(stock=view.stock_count, burned=view.discard_count),
        ]
        for info in view.seats:
            name = esc(self.names[info.seat])
            if info.place is not None:
                out = (
                    _("left the game")
                    if info.forfeited
                    else _("out, {place}").format(place=ordinal(info.place, self.language))
                )
                lines.append(f"   {name} — {out}")
                continue
            marker = "▶" if view.to_act == info.seat else " "
            ready = ""
            if view.phase.value == "swap":
                ready = " ✅" if info.ready else _(" (swapping)")
            counts = _("✋{hand} 🂠{down}").format(hand=info.hand_count, down=info.face_down_count)
            face_up = self.cards(info.face_up)
            turn = f"  {self.deadline()}" if view.to_act == info.seat else ""
            lines.append(f"{marker} <b>{name}</b>{ready} {counts} · {face_up}{turn}")
        if view.phase.value == "swap":
            lines.append(
                _("Swap phase: choose your face-up cards in your private chat. {deadline}").format(
                    deadline=self.deadline()
                )
            )
        return lines

    def pile_line(self, view: ShitheadView) -> str:
        _ = self._
        if not view.pile:
            return _("Pile: empty — any card")
        top = view.pile[-6:]
        shown = " ".join(str(c) for c in top[:-1]) + (" " if len(top) > 1 else "") + f"<b>{top[-1]}</b>"
        return _("Pile ({n}): {cards} — {need}").format(n=len(view.pile), cards=shown, need=self.need(view))

    def need(self, view: ShitheadView) -> str:
        """What the next play must be, in words."""
        _ = self._
        top = view.effective_top
        if top is None:
            return _("any card")
        rules = self.rules
        assert isinstance(rules, Rules)
        power = rules.power(top)
        if power is Power.RESET:
            return _("any card")
        if power is Power.LOWER:
            return _("{rank} or lower").format(rank=rank_text(top))
        return _("beat {rank}").format(rank=rank_text(top))

    def _neighbor_table(self, view: NeighborView) -> list[str]:
        _ = self._
        lines = [_("Hand {n} · {dealer} deals").format(n=view.hand_number, dealer=esc(self.names[view.dealer]))]
        for info in view.seats:
            name = esc(self.names[info.seat])
            if not info.active:
                lines.append(f"   {name} — " + _("out, {place}").format(place=ordinal(info.place or 0, self.language)))
                continue
            marker = "▶" if view.to_act == info.seat else " "
            dealer = _(" (dealer)") if info.seat == view.dealer else ""
            turn = f"  {self.deadline()}" if view.to_act == info.seat else ""
            lines.append(f"{marker} <b>{name}</b>{dealer} {'♥' * info.lives}{turn}")
        for seat, king in view.blocked:
            who = _("the deck") if seat is None else esc(self.names[seat])
            lines.append(_("🛡 {who} showed {card}").format(who=who, card=king))
        return lines

    # ----------------------------------------------------------------- a player's private message

    def turn(self, seat: Seat, intro: Sequence[str] = ()) -> Rendered:
        """The private message of a seat that may act now: its cards and one button per legal move."""
        state = self.ctx.state
        assert state is not None
        view = state.view(seat.number)
        header = [*intro, self.private_header(view)]
        if isinstance(view, NeighborView):
            return self._neighbor_turn(view, header, seat.keyboard_version)
        if view.phase.value == "swap":
            return self.swap(seat, None, header)
        lines = [*header, *self.private_cards(view)]
        buttons = [self.move_button(m, view, seat.keyboard_version) for m in view.legal_moves]
        return Rendered("\n".join(lines), rows(buttons))

    def private_header(self, view: ShitheadView | NeighborView) -> str:
        _ = self._
        chat = esc(self.ctx.chat.title or _("your game"))
        if view.to_act == view.seat or (view.phase.value == "swap" and view.legal_moves):
            return _("🃏 <b>Your turn</b> — {chat} #{id} {deadline}").format(
                chat=chat, id=self.ctx.game.id, deadline=self.deadline()
            )
        return _("🃏 {chat} #{id}").format(chat=chat, id=self.ctx.game.id)

    def private_cards(self, view: ShitheadView) -> list[str]:
        _ = self._
        me = view.seats[view.seat or 0]
        lines = [self.pile_line(view), _("Stock: {stock}").format(stock=view.stock_count)]
        if view.required_rank:
            lines.append(_("Your first play must include a {rank}.").format(rank=rank_text(view.required_rank)))
        lines.append(_("Your hand: {cards}").format(cards=self.cards(view.hand)))
        lines.append(_("Face-up: {cards} · face-down: {n}").format(cards=self.cards(me.face_up), n=me.face_down_count))
        return lines

    def move_button(self, move: Move, view: ShitheadView, version: int) -> InlineKeyboardButton:
        return self.button(self.move_label(move, view), Action.MOVE, version, str(move))

    def move_label(self, move: Move, view: ShitheadView | None = None) -> str:
        _ = self._
        if isinstance(move, Play):
            label = rank_text(move.rank) + (f"×{move.count}" if move.count > 1 else "")
            return label if move.source.value == "h" else _("{label} (face-up)").format(label=label)
        if isinstance(move, PlayFaceDown):
            return _("🂠 {slot}").format(slot=move.slot)
        if isinstance(move, PickUp):
            size = len(view.pile) if view else 0
            if move.face_up_rank is None:
                return _("Pick up ({n})").format(n=size)
            return _("Pick up ({n}) + {rank}").format(n=size, rank=rank_text(move.face_up_rank))
        if isinstance(move, StockGamble):
            return _("🎲 Stock blind")
        if isinstance(move, Ready):
            return _("✅ Ready")
        if isinstance(move, Keep):
            return _("Keep")
        if isinstance(move, Trade):
            return _("Swap")
        return str(move)

    def swap(self, seat: Seat, picked: int | None, header: Sequence[str] | None = None) -> Rendered:
        """Swap phase: tap a hand card, then a face-up card to swap them; Ready when done."""
        _ = self._
        state = self.ctx.state
        assert state is not None
        view = state.view(seat.number)
        assert isinstance(view, ShitheadView)
        me = view.seats[seat.number]
        lines = list(header) if header else [self.private_header(view)]
        lines.append(_("Hand: {cards}").format(cards=self.cards(view.hand)))
        lines.append(_("Face-up: {cards} · face-down: {n}").format(cards=self.cards(me.face_up), n=me.face_down_count))
        if not view.legal_moves:
            lines.append(_("✅ Ready — waiting for the others."))
            return Rendered("\n".join(lines))
        version = seat.keyboard_version
        swaps = [m for m in view.legal_moves if isinstance(m, Swap)]
        if picked is None:
            lines.append(_("Tap a hand card, then the face-up card to swap it with."))
            ranks = sorted({m.hand_rank for m in swaps})
            buttons = [self.button(rank_text(r), Action.PICK, version, rank_text(r)) for r in ranks]
        else:
            lines.append(_("Put your {rank} face-up instead of…").format(rank=rank_text(picked)))
            buttons = [
                self.button(f"⇄ {rank_text(m.face_up_rank)}", Action.MOVE, version, str(m))
                for m in swaps
                if m.hand_rank == picked
            ]
            buttons.append(self.button(_("↩ Back"), Action.PICK, version, ""))
        keyboard = rows(buttons)
        keyboard.append([self.button(_("✅ Ready"), Action.MOVE, version, "r")])
        return Rendered("\n".join(lines), keyboard)

    def _neighbor_turn(self, view: NeighborView, header: list[str], version: int) -> Rendered:
        _ = self._
        lines = list(header)
        lines.append(_("Your card: <b>{card}</b>").format(card=view.card))
        lives = view.seats[view.seat or 0].lives
        lines.append(self._n("You have {n} life.", "You have {n} lives.", lives).format(n=lives))
        for memory in view.swaps:
            other = _("the deck") if memory.other is None else esc(self.names[memory.other])
            lines.append(
                _("You swapped with {other}: gave {gave}, got {got}.").format(
                    other=other, gave=memory.gave, got=memory.got
                )
            )
        if view.to_act != view.seat:
            return Rendered("\n".join(lines))
        dealer = view.dealer == view.seat
        neighbour = view.neighbour if view.neighbour is not None else view.seat or 0
        trade = _("Trade with the deck") if dealer else _("Swap with {name}").format(name=self.names[neighbour])
        buttons = [
            self.button(_("Keep"), Action.MOVE, version, "k"),
            self.button(trade, Action.MOVE, version, "s"),
        ]
        return Rendered("\n".join(lines), [buttons])

    def moved(self, seat: Seat, moves: Sequence[MoveRow]) -> Rendered:
        """The mover's private message once the move is made: what happened, no buttons."""
        _ = self._
        state = self.ctx.state
        mine = [m for m in moves if m.seat == seat.number]
        told = self.move_lines(mine) or [_("Done.")]
        lines = [f"🃏 {esc(self.ctx.chat.title)} #{self.ctx.game.id}", *told]
        if self.ctx.game.status == "aborted":
            lines.append(_("The game was aborted."))
        elif state is not None and not state.is_over and isinstance(state.view(seat.number), ShitheadView):
            view = state.view(seat.number)
            assert isinstance(view, ShitheadView)
            lines.append(_("Your hand: {cards}").format(cards=self.cards(view.hand)))
        return Rendered("\n".join(lines))

    # ----------------------------------------------------------------- new group messages

    def announce(self, what: str, seat: int | None, data: dict[str, Any]) -> Rendered | None:
        _ = self._
        name = esc(self.names[seat]) if seat is not None and seat < len(self.names) else ""
        if what == "went_out":
            return Rendered(
                _("🎉 {name} is out — {place} place!").format(name=name, place=ordinal(data["place"], self.language))
            )
        if what == "eliminated":
            return Rendered(_("💀 {name} is out of lives.").format(name=name))
        if what == "forfeited":
            return Rendered(_("🏳 {name} left the game.").format(name=name))
        if what == "removed":
            return Rendered(
                _("⏰ {name} was removed after {n} timeouts in a row.").format(name=name, n=data.get("timeouts", 0))
            )
        if what == "over":
            return self.game_over(data)
        if what == "aborted":
            return Rendered(_("🛑 Game #{id} was aborted.").format(id=self.ctx.game.id))
        if what == "paused":
            return Rendered(_("⏸ Game #{id} is paused. /resume to go on.").format(id=self.ctx.game.id))
        if what == "resumed":
            return Rendered(_("▶️ Game #{id} goes on.").format(id=self.ctx.game.id))
        if what == "lobby_closed":
            return Rendered(_("The lobby was closed: everybody left."))
        if what == "lobby_expired":
            return Rendered(
                _("Game #{id} was never started and is closed after {days} days.").format(
                    id=self.ctx.game.id, days=data.get("days", 7)
                )
            )
        if what == "pause_expired":
            return Rendered(
                _("Game #{id} was paused for {days} days and is closed.").format(
                    id=self.ctx.game.id, days=data.get("days", 30)
                )
            )
        return None

    def game_over(self, data: dict[str, Any]) -> Rendered:
        _ = self._
        places: list[int] = data["places"]
        ranking = sorted(range(len(places)), key=lambda s: (places[s], s))
        lines = [_("🏁 <b>Game over</b> — #{id}").format(id=self.ctx.game.id)]
        lines += [f"{ordinal(places[s], self.language)}  {esc(self.names[s])}" for s in ranking]
        loser = data.get("loser")
        if isinstance(self.rules, Rules) and loser is not None:
            lines.append(
                _("💩 {name} is the {title}!").format(name=esc(self.names[loser]), title=esc(self.rules.loser_title))
            )
        else:
            winners = [esc(self.names[s]) for s in data.get("winners", [])]
            lines.append(_("👑 {names} won!").format(names=", ".join(winners)))
        return Rendered("\n".join(lines), [[self.button(_("🔁 Rematch"), Action.REMATCH)]])

    def reminder(self, seat: Seat, data: dict[str, Any]) -> Rendered:
        """A private reminder: which game, how long is left, and what will happen at the deadline."""
        _ = self._
        game = self.ctx.game
        chat = esc(self.ctx.chat.title or _("your game"))
        left = relative(game.deadline_at, self.ctx.now, _) if game.deadline_at else ""
        what = data.get("what")
        if what == "nudge":
            head = _("⏰ {name} nudges you: it is your turn in {chat} #{id} ({left}).").format(
                name=esc(str(data.get("by", ""))), chat=chat, id=game.id, left=left
            )
        elif what == "grace":
            head = _("⏰ I was away when your time ran out in {chat} #{id}: you have until {left}.").format(
                chat=chat, id=game.id, left=left.removeprefix("in ") if left.startswith("in ") else left
            )
        else:
            head = _("⏰ Reminder: it is your turn in {chat} #{id} — time is up {left}.").format(
                chat=chat, id=game.id, left=left
            )
        lines = [head, self.at_deadline(seat)]
        limit = self.ctx.chat.max_timeouts
        timeouts = int(data.get("timeouts", seat.timeouts_in_row))
        if limit and timeouts + 1 >= limit:
            lines.append(
                _("That would be your timeout number {n} in a row: you would leave the game.").format(n=timeouts + 1)
            )
        return Rendered("\n".join(lines), [[self.button(_("🃏 Show my cards"), Action.HAND)]])

    def at_deadline(self, seat: Seat) -> str:
        """What the bot will do for this seat if its time runs out."""
        _ = self._
        state = self.ctx.state
        if state is None:
            return ""
        view = state.view(seat.number)
        if isinstance(view, NeighborView):
            return _("If you do not choose, I will keep your card.")
        if view.phase.value == "swap":
            return _("If you do not press Ready, I will make a sensible swap and make you ready.")
        moves = timeout_moves(state, seat.number, 0)
        move = moves[0] if moves else None
        if isinstance(move, PickUp):
            return _("If you do not play, I will pick up the pile for you.")
        if isinstance(move, PlayFaceDown):
            return _("If you do not play, I will turn over one of your face-down cards.")
        return _("If you do not play, I will play your lowest card for you.")

    def contact(self, seat: Seat) -> Rendered:
        _ = self._
        text = _("📬 {name}, I cannot message you. Tap below to open our private chat — your game waits.").format(
            name=esc(seat.name)
        )
        return Rendered(text, [[InlineKeyboardButton(_("Open the bot"), url=self.deep_link("hand"))]])


def rules_text(rules: Rules | NeighborRules, language: str = "en") -> str:
    """The rules of a game in plain words, house rules included."""
    _ = translations(language).gettext
    if isinstance(rules, NeighborRules):
        return _(
            "<b>Shit On Your Neighbor</b>: everyone starts with {lives} lives and gets one card. From the "
            "dealer's left, each player keeps or swaps with the next player — a King blocks the swap. The dealer "
            "acts last and may trade with the deck. Then all cards are shown: every lowest card (Ace is lowest) "
            "loses a life. The last player with lives wins."
        ).format(lives=rules.lives)
    lines = [
        _("<b>Shithead</b> ({name})").format(name=esc(rules.name)),
        _(
            "Get rid of your cards: hand first (drawing back to 3 while the stock lasts), then your face-up "
            "cards, then your face-down cards blind. Play one or more cards of one rank, equal or higher than the "
            "pile. If you cannot, pick up the pile. The last player holding cards is the {title}."
        ).format(title=esc(rules.loser_title)),
    ]
    for rank, power in rules.powers:
        lines.append(f"• {rank_text(rank)}: {power_text(power, rules, _)}")
    toggles = {
        "four_burns": _("four of a kind on top burns the pile"),
        "pickup_then_play": _("after picking up, you lead again"),
        "faceup_pickup_takes_one": _("picking up from face-up takes one face-up card along"),
        "may_pickup_anytime": _("you may pick up instead of playing"),
        "stock_gamble": _("you may play the top of the stock blind"),
    }
    lines += [f"• {text}" for key, text in toggles.items() if getattr(rules, key)]
    if rules.decks == 2:
        lines.append(_("• two decks"))
    house = rules.house_rules()
    if house:
        lines.append(_("House rules: {rules}").format(rules=esc(", ".join(f"{k}={v}" for k, v in house.items()))))
    return "\n".join(lines)


def power_text(power: Power, rules: Rules, _: Any) -> str:
    texts = {
        Power.RESET: _("goes on anything; anything goes on it"),
        Power.INVISIBLE: _("goes on anything and is see-through"),
        Power.BURN: _("burns the pile; play again") + ("" if rules.burn_on_lower else _(" (not on a lower card)")),
        Power.LOWER: _("the next card must be this or lower") + (_(" (wild)") if rules.lower_is_wild else ""),
        Power.SKIP: _("skips the next player"),
        Power.REVERSE: _("reverses the direction"),
    }
    return str(texts[power])
