"""The group's table message, edited in place: pile, stock, every seat's face-up cards and counts,
whose turn and until when, the last actions. Built from the spectator's view only."""

from __future__ import annotations

from engine import NeighborView, Phase, SeatInfo, ShitheadView
from shithead_bot.narrate import ordinal
from shithead_bot.service import GameStatus
from shithead_bot.telegram.render import keyboards
from shithead_bot.telegram.render.commitment import commitment_lines
from shithead_bot.telegram.render.common import Page, Rendered, esc, fit_lines
from shithead_bot.telegram.render.lobby import lobby


def table(page: Page) -> Rendered:
    if page.game.state is None:
        return lobby(page)
    view = page.game.view(None)
    lines = [f"{page.title()} · #{page.game_id}"]
    lines += neighbor_seats(page, view) if isinstance(view, NeighborView) else shithead_seats(page, view)
    if aborted(page):
        lines.append(page._("🛑 Game aborted."))
    lines += commitment_lines(page)
    told = [f"· {line}" for line in page.move_lines(page.game.moves)[-5:]]
    return Rendered(fit_lines(lines, ["", *told] if told else []), keyboards.table(page))


def aborted(page: Page) -> bool:
    """An aborted game's last table: nobody's turn, nobody swapping."""
    return page.game.game.status == GameStatus.ABORTED


def acting(page: Page, view: ShitheadView | NeighborView) -> int | None:
    """The seat to act, as the table shows it (None once the game was aborted)."""
    return None if aborted(page) else view.to_act


def shithead_seats(page: Page, view: ShitheadView) -> list[str]:
    _ = page._
    lines = [
        page.pile_line(view),
        _("Stock: {stock} · Burned: {burned}").format(stock=view.stock_count, burned=view.discard_count),
    ]
    swapping = view.phase is Phase.SWAP and not aborted(page)
    to_act = acting(page, view)
    for info in view.seats:
        name = esc(page.names[info.seat])
        if info.place is not None:
            out = (
                _("left the game")
                if info.forfeited
                else _("out, {place}").format(place=ordinal(info.place, page.language))
            )
            lines.append(f"   {name} — {out}")
            continue
        marker = "▶" if to_act == info.seat else " "
        ready = (_(" — ready ✅") if info.ready else _(" — swapping")) if swapping else ""
        turn = f"  {page.deadline()}" if to_act == info.seat else ""
        who = _("{name}: {cards}").format(name=f"<b>{name}</b>{ready}", cards=seat_cards(page, info))
        lines.append(f"{marker} {who}{turn}")
    if swapping:
        lines.append(
            _("Swap phase: choose your face-up cards in your private chat. {deadline}").format(deadline=page.deadline())
        )
    return lines


def seat_cards(page: Page, info: SeatInfo) -> str:
    """A seat's cards in words: "3 cards in hand · face-up J♥ 2♣ · 3 face-down" (what it has)."""
    _ = page._
    parts = []
    if info.hand_count:
        parts.append(page._n("{n} card in hand", "{n} cards in hand", info.hand_count).format(n=info.hand_count))
    if info.face_up:
        parts.append(_("face-up {cards}").format(cards=page.cards(info.face_up)))
    if info.face_down_count:
        parts.append(page._n("{n} face-down", "{n} face-down", info.face_down_count).format(n=info.face_down_count))
    return " · ".join(parts)


def neighbor_seats(page: Page, view: NeighborView) -> list[str]:
    _ = page._
    lines = [_("Hand {n} · {dealer} deals").format(n=view.hand_number, dealer=esc(page.names[view.dealer]))]
    to_act = acting(page, view)
    for info in view.seats:
        name = esc(page.names[info.seat])
        if not info.active:
            lines.append(f"   {name} — " + _("out, {place}").format(place=ordinal(info.place or 0, page.language)))
            continue
        marker = "▶" if to_act == info.seat else " "
        dealer = _(" (dealer)") if info.seat == view.dealer else ""
        turn = f"  {page.deadline()}" if to_act == info.seat else ""
        lines.append(f"{marker} <b>{name}</b>{dealer} {'♥' * info.lives}{turn}")
    for seat, king in view.blocked:
        who = _("the deck") if seat is None else esc(page.names[seat])
        lines.append(_("🛡 {who} showed {card}").format(who=who, card=king))
    return lines
