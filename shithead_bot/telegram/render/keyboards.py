"""Every inline keyboard the bot shows, in one place. Each button carries signed, versioned data
(see :mod:`callback_data`); labels are in the reader's language (the :class:`Page`'s)."""

from __future__ import annotations

import gettext
from collections.abc import Callable

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from engine import Keep, Move, PickUp, Play, PlayFaceDown, Ready, ShitheadView, StockGamble, Swap, Trade, rank_text
from engine.ai import LEVELS
from engine.moves import Source
from shithead_bot.service import GameStatus
from shithead_bot.telegram.callback_data import Action, Button, Codec, ComputerChoice, Confirm, TurnChoice
from shithead_bot.telegram.parsing import AWAY_CHOICES, TURN_CHOICES
from shithead_bot.telegram.render.common import Page, duration_text, rows
from shithead_bot.telegram.render.levels import level_text

Keyboard = list[list[InlineKeyboardButton]]


def lobby(page: Page) -> Keyboard:
    """Join, Leave; one button per computer level, weakest first, and one to remove the last
    computer (each keyed by how many computers the lobby shows: two taps add one); Start."""
    _ = page._
    computers = sum(1 for s in page.game.seats if s.computer_level)
    add = [
        page.button(
            _("🤖 {level}").format(level=level_text(_, level).capitalize()),
            Action.ADD_COMPUTER,
            argument=str(ComputerChoice(level, computers)),
        )
        for level in LEVELS
    ]
    return [
        [page.button(_("✋ Join"), Action.JOIN), page.button(_("🚪 Leave"), Action.LEAVE)],
        add,
        [
            page.button(_("➖ Computer"), Action.REMOVE_COMPUTER, argument=str(computers)),
            page.button(_("▶️ Start"), Action.START),
        ],
    ]


def table(page: Page) -> Keyboard:
    """The group's table: my cards (a link to the private chat), nudge, pause or resume."""
    _ = page._
    game = page.game.game
    if game.status in (GameStatus.FINISHED, GameStatus.ABORTED):
        return []
    private = page.game.chat.kind == "private"
    if private:  # the table is in our private chat already: no link to it, and nobody to nudge
        row = [page.button(_("🃏 My cards"), Action.HAND)]
    else:
        row = [InlineKeyboardButton(_("🃏 My cards"), url=page.deep_link("hand"))]
    if game.status == GameStatus.PAUSED:
        row.append(page.button(_("▶️ Resume"), Action.PAUSE_VOTE, argument="resume"))
        return [row]
    if game.turn_seconds and not private:
        row.append(page.button(_("⏰ Nudge"), Action.NUDGE))
    votes = len(game.pause_votes)
    label = _("⏸ Pause ({n})").format(n=votes) if votes else _("⏸ Pause")
    row.append(page.button(label, Action.PAUSE_VOTE, argument="pause"))
    return [row]


def moves(page: Page, view: ShitheadView, version: int) -> Keyboard:
    """One button per legal move, then going away."""
    keyboard = rows([page.button(move_label(page, m, view), Action.MOVE, version, str(m)) for m in view.legal_moves])
    return [*keyboard, [page.button(page._("🌴 Away…"), Action.AWAY)]]


def away_choices(codec: Codec, game_id: int, t_gettext: Callable[[str], str], away: bool) -> InlineKeyboardMarkup:
    """/away's durations (and, when away, the way back)."""
    buttons = [
        InlineKeyboardButton(d, callback_data=codec.encode(Button(Action.AWAY, game_id, 0, d))) for d in AWAY_CHOICES
    ]
    keyboard = [buttons]
    if away:
        back = codec.encode(Button(Action.AWAY, game_id, 0, "back"))
        keyboard.append([InlineKeyboardButton(t_gettext("👋 I am back"), callback_data=back)])
    return InlineKeyboardMarkup(keyboard)


def back(page: Page) -> Keyboard:
    """On an away player's silent message: the way back."""
    return [[page.button(page._("👋 I am back"), Action.AWAY, 0, "back")]]


def move_label(page: Page, move: Move, view: ShitheadView | None = None) -> str:
    _ = page._
    if isinstance(move, Play):
        label = rank_text(move.rank) + (f"×{move.count}" if move.count > 1 else "")
        return label if move.source is Source.HAND else _("{label} (face-up)").format(label=label)
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


def swap(page: Page, view: ShitheadView, version: int, picked: int | None) -> Keyboard:
    """Swap phase: the hand cards to pick; once one is picked, the face-up cards it may swap with;
    Ready, and going away (a stand-in swaps as a computer does)."""
    _ = page._
    swaps = [m for m in view.legal_moves if isinstance(m, Swap)]
    if picked is None:
        ranks = sorted({m.hand_rank for m in swaps})
        buttons = [page.button(rank_text(r), Action.PICK, version, rank_text(r)) for r in ranks]
    else:
        buttons = [
            page.button(f"⇄ {rank_text(m.face_up_rank)}", Action.MOVE, version, str(m))
            for m in swaps
            if m.hand_rank == picked
        ]
        buttons.append(page.button(_("↩ Back"), Action.PICK, version, ""))
    keyboard = rows(buttons)
    keyboard.append([page.button(_("✅ Ready"), Action.MOVE, version, "r"), page.button(_("🌴 Away…"), Action.AWAY)])
    return keyboard


def neighbor_turn(page: Page, version: int, trade_label: str) -> Keyboard:
    return [
        [page.button(page._("Keep"), Action.MOVE, version, "k"), page.button(trade_label, Action.MOVE, version, "s")]
    ]


def rematch(page: Page) -> Keyboard:
    """Rematch, when at least two players would be dealt in again (who left is not)."""
    if sum(1 for seat in page.game.seats if not seat.forfeited) < 2:
        return []
    return [[page.button(page._("🔁 Rematch"), Action.REMATCH)]]


def show_my_cards(page: Page) -> Keyboard:
    return [[page.button(page._("🃏 Show my cards"), Action.HAND)]]


def open_private_chat(label: str, url: str) -> InlineKeyboardMarkup:
    """A link that opens the private chat with the bot (and, with a payload, does the job there)."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, url=url)]])


def confirmation(codec: Codec, action: Action, game_id: int, owner: int, yes: str, no: str) -> InlineKeyboardMarkup:
    """Yes / No, answerable only by ``owner``."""

    def answer(label: str, agreed: bool) -> InlineKeyboardButton:
        data = codec.encode(Button(action, game_id, 0, str(Confirm(agreed, owner))))
        return InlineKeyboardButton(label, callback_data=data)

    return InlineKeyboardMarkup([[answer(yes, True), answer(no, False)]])


def turn_times(codec: Codec, chat_id: int, t: gettext.NullTranslations, version: int = 0) -> InlineKeyboardMarkup:
    """/settings: one button per turn-time choice, said as the settings say it ("5 min"); each
    carries the chat's settings version (a press after another change is refused)."""
    buttons = [
        InlineKeyboardButton(
            duration_text(seconds, t),
            callback_data=codec.encode(Button(Action.SETTING, 0, version, str(TurnChoice(name, chat_id)))),
        )
        for name, seconds in TURN_CHOICES.items()
    ]
    return InlineKeyboardMarkup(rows(buttons))
