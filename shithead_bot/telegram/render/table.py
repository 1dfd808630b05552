"""The group's table message, edited in place: pile, stock, every seat's face-up cards and counts,
whose turn and until when, the last actions. Built from the spectator's view only."""

from __future__ import annotations

from engine import NeighborView, Phase, ShitheadView
from shithead_bot.narrate import ordinal
from shithead_bot.telegram import keyboards
from shithead_bot.telegram.render.common import Page, Rendered, esc, fit_lines
from shithead_bot.telegram.render.lobby import lobby


def table(page: Page) -> Rendered:
    if page.game.state is None:
        return lobby(page)
    view = page.game.view(None)
    lines = [f"{page.title()} · #{page.game_id}"]
    lines += neighbor_seats(page, view) if isinstance(view, NeighborView) else shithead_seats(page, view)
    told = [f"· {line}" for line in page.move_lines(page.game.moves)[-5:]]
    return Rendered(fit_lines(lines, ["", *told] if told else []), keyboards.table(page))


def shithead_seats(page: Page, view: ShitheadView) -> list[str]:
    _ = page._
    lines = [
        page.pile_line(view),
        _("Stock: {stock} · Burned: {burned}").format(stock=view.stock_count, burned=view.discard_count),
    ]
    swapping = view.phase is Phase.SWAP
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
        marker = "▶" if view.to_act == info.seat else " "
        ready = (" ✅" if info.ready else _(" (swapping)")) if swapping else ""
        counts = _("✋{hand} 🂠{down}").format(hand=info.hand_count, down=info.face_down_count)
        turn = f"  {page.deadline()}" if view.to_act == info.seat else ""
        lines.append(f"{marker} <b>{name}</b>{ready} {counts} · {page.cards(info.face_up)}{turn}")
    if swapping:
        lines.append(
            _("Swap phase: choose your face-up cards in your private chat. {deadline}").format(deadline=page.deadline())
        )
    return lines


def neighbor_seats(page: Page, view: NeighborView) -> list[str]:
    _ = page._
    lines = [_("Hand {n} · {dealer} deals").format(n=view.hand_number, dealer=esc(page.names[view.dealer]))]
    for info in view.seats:
        name = esc(page.names[info.seat])
        if not info.active:
            lines.append(f"   {name} — " + _("out, {place}").format(place=ordinal(info.place or 0, page.language)))
            continue
        marker = "▶" if view.to_act == info.seat else " "
        dealer = _(" (dealer)") if info.seat == view.dealer else ""
        turn = f"  {page.deadline()}" if view.to_act == info.seat else ""
        lines.append(f"{marker} <b>{name}</b>{dealer} {'♥' * info.lives}{turn}")
    for seat, king in view.blocked:
        who = _("the deck") if seat is None else esc(page.names[seat])
        lines.append(_("🛡 {who} showed {card}").format(who=who, card=king))
    return lines
