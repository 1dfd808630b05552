"""The group's table as a picture: Shithead and Neighbor, from the spectator's view only."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from engine.cards import Card, rank_text
from engine.common import Phase
from engine.rules import Power, Rules
from engine.views import NeighborSeatInfo, NeighborView, SeatInfo, ShitheadView
from shithead_bot.picture import sprites
from shithead_bot.picture.canvas import (
    DARK,
    DIM,
    GOLD,
    MUTED,
    PANEL_OUT,
    RED,
    TEXT,
    Colour,
    H,
    Painter,
    W,
    geometry,
    table_base,
)
from shithead_bot.picture.model import Box, Labels, Picture, TableInfo, seat_names

FAN = 6  # pile cards drawn at most
RENDER_LOCK = threading.Lock()  # FreeType faces are shared by every render: one render at a time
PILE_CARD = (90, 126)


def render_table(view: ShitheadView | NeighborView, info: TableInfo, labels: Labels | None = None) -> Picture:
    """The table as a PNG with its layout. ``view`` must be a spectator's (``state.view(None)``)."""
    check_spectator(view)
    labels = labels or Labels()
    with RENDER_LOCK:
        painter = _neighbor(view, info, labels) if isinstance(view, NeighborView) else _shithead(view, info, labels)
        return Picture(painter.png(), (W, H), tuple(painter.items))


def check_spectator(view: object) -> None:
    """Refuse anything but a spectator's view: a state, or a view built for a seat, may hold secrets."""
    if not isinstance(view, ShitheadView | NeighborView):
        raise TypeError(f"the picture takes a spectator's view (state.view(None)), not a {type(view).__name__}")
    if view.seat is not None:
        raise ValueError("the picture takes the spectator's view only: state.view(None)")


# ----------------------------------------------------------------- shared pieces


def _turn(view: ShitheadView | NeighborView, info: TableInfo) -> int | None:
    if view.phase is Phase.OVER or info.ended:
        return None
    return info.turn if info.turn is not None else view.to_act


def _header(p: Painter, center: Box, info: TableInfo, note: str = "") -> None:
    """The title on the left; on the right the caller's banner and ``note`` (the swap phase's deadline)."""
    cx0, cy0, cx1, _ = center
    status_w = 0
    banner = " · ".join(part for part in (info.status, note) if part)
    if banner:
        box = p.text(cx1 - 18, cy0 + 6, banner, 24, GOLD, bold=True, max_width=(cx1 - cx0) // 2, align="right")
        status_w = box[2] - box[0] + 16
    if info.title:
        p.text(cx0 + 18, cy0 + 6, info.title, 24, TEXT, bold=True, max_width=cx1 - cx0 - 36 - status_w, role="title")


def _actions(p: Painter, center: Box, actions: Sequence[str], lines: int = 2) -> None:
    cx0, _, cx1, cy1 = center
    shown = list(actions)[-lines:]
    y = cy1 - 8 - 28 * len(shown)
    for i, action in enumerate(shown):
        newest = i == len(shown) - 1
        p.text(cx0 + 18, y, action, 22, TEXT if newest else MUTED, bold=newest, max_width=cx1 - cx0 - 36, role="action")
        y += 28


def _name(
    p: Painter, box: Box, seat: int, name: str, labels: Labels, right: int, lit: bool, size: int, pad: int = 14
) -> None:
    x0, y0, x1, _ = box
    p.text(
        x0 + pad,
        y0 + 10,
        name,
        size,
        GOLD if lit else TEXT,
        bold=True,
        max_width=x1 - x0 - 2 * pad - right,
        kind="name",
        seat=seat,
        fallback=labels.nameless.format(n=seat + 1),
    )


def _turn_words(info: TableInfo, labels: Labels) -> str:
    return f"▶ {labels.to_play}" + (f" · {info.deadline}" if info.deadline else "")


def _turn_line(p: Painter, box: Box, seat: int, info: TableInfo, labels: Labels) -> None:
    x0, _, x1, y1 = box
    words = _turn_words(info, labels)
    p.text(x0 + 14, y1 - 36, words, 22, GOLD, bold=True, max_width=x1 - x0 - 28, kind="status", seat=seat, role="turn")


def _dim(p: Painter, box: Box) -> None:
    x0, y0, x1, y1 = box
    p.draw.rounded_rectangle((x0 + 1, y0 + 1, x1 - 1, y1 - 1), radius=15, fill=PANEL_OUT)


# ----------------------------------------------------------------- Shithead


def _shithead(view: ShitheadView, info: TableInfo, labels: Labels) -> Painter:
    n = len(view.seats)
    geo = geometry(n)
    p = Painter(table_base(n))
    names = seat_names(info.names, n)
    turn = _turn(view, info)
    for seat_info, box in zip(view.seats, geo.seats, strict=True):
        _shithead_seat(p, box, seat_info, names[seat_info.seat], view, info, labels, turn == seat_info.seat)
    swap = ""
    if view.phase is Phase.SWAP and not info.ended:
        swap = labels.swap_phase + (f" · {info.deadline}" if info.deadline else "")
    _header(p, geo.center, info, swap)
    _pile(p, geo.center, view, labels)
    _actions(p, geo.center, info.actions)
    return p


def _shithead_seat(
    p: Painter,
    box: Box,
    seat: SeatInfo,
    name: str,
    view: ShitheadView,
    info: TableInfo,
    labels: Labels,
    lit: bool,
) -> None:
    x0, y0, x1, y1 = box
    w = x1 - x0
    s = seat.seat
    done = seat.place is not None and not seat.active
    if done:
        _dim(p, box)
    p.note("seat", name, box, s)
    size = 28 if w >= 280 else 24
    hand_w = 0
    if seat.hand_count and not done:
        hand_w = _hand_count(p, x1 - 14, y0 + 12, seat.hand_count, s)
    _name(p, box, s, name, labels, hand_w + 8, lit, size)
    if done:
        words = labels.left if seat.forfeited else labels.out.format(place=labels.ordinal(seat.place or 0))
        p.text(
            (x0 + x1) // 2, y0 + (y1 - y0) // 2 - 8, words, 30, MUTED, bold=True, align="center", kind="place", seat=s
        )
        return
    cw, ch = (72, 100) if w >= 3 * 72 + 2 * 12 + 28 else (62, 86)
    gap = 12
    left = x0 + (w - (3 * cw + 2 * gap)) // 2
    top = y0 + 50
    for slot in range(3):
        sx = left + slot * (cw + gap)
        if seat.face_down[slot]:
            p.back(sx + 5, top + 8, cw, ch, s, "face_down")
    for slot, card in enumerate(seat.face_up[:3]):
        p.card(card, left + slot * (cw + gap), top, cw, ch, s, "face_up")
    if lit:
        _turn_line(p, box, s, info, labels)
    elif view.phase is Phase.SWAP and not info.ended:
        words = f"✓ {labels.ready}" if seat.ready else labels.swapping
        p.text(x0 + 14, y1 - 36, words, 22, TEXT if seat.ready else MUTED, max_width=w - 28, kind="status", seat=s)
    if lit:
        p.ring(box, 5, "highlight", name, s)


def _hand_count(p: Painter, right: int, y: int, count: int, seat: int) -> int:
    """A small fan of backs and the number of hand cards, right-aligned; returns its width."""
    number = str(count)
    x = right - p.text_width(number, 24, True)
    p.text(x, y, number, 24, TEXT, bold=True, kind="hand_count", seat=seat, role="hand")
    sprite = sprites.back(18, 26)
    for i in range(2):
        p.image.paste(sprite, (x - 34 + i * 8, y + 1 - i * 2), sprite)
    return right - x + 34


def beat_index(view: ShitheadView) -> int | None:
    """The index in the pile of the card to beat (the effective top), or None when there is none."""
    rules = view.rules
    for i in range(len(view.pile) - 1, -1, -1):
        if rules.power(view.pile[i].rank) is not Power.INVISIBLE:
            return i
    return None


def need_text(view: ShitheadView, labels: Labels) -> str:
    """What the next play must be, in the caller's words (RULES.md §1.6)."""
    top = view.effective_top
    rules: Rules = view.rules
    if top is None or rules.power(top) is Power.RESET:
        return labels.need_any
    if rules.power(top) is Power.LOWER:
        return labels.need_lower.format(rank=rank_text(top))
    return labels.need_beat.format(rank=rank_text(top))


def _pile(p: Painter, center: Box, view: ShitheadView, labels: Labels) -> None:
    cx0, cy0, cx1, _ = center
    cw, ch = PILE_CARD
    step = 34
    beat = beat_index(view)
    pile = view.pile
    shown: list[int] = list(range(max(0, len(pile) - FAN), len(pile)))
    if beat is not None and beat < len(pile) - FAN:
        shown = [beat, *range(len(pile) - FAN + 1, len(pile))]  # the card to beat, then the top ones
    jump = 8 if len(shown) > 1 and shown[1] != shown[0] + 1 else 0  # a gap where cards are left out
    fan_w = cw + step * max(0, len(shown) - 1) + jump
    words = labels.pile.format(n=len(pile)) if pile else labels.empty_pile
    need = need_text(view, labels)
    fan_w = max(fan_w, p.text_width(words, 22, True) + (12 + p.text_width(need, 22, True) if pile else 0))
    stock_w = cw + 6
    total = fan_w + 50 + stock_w + 30 + stock_w
    x = (cx0 + cx1) // 2 - total // 2
    y = cy0 + 42
    label_y = y + ch + 8
    if not pile:
        p.draw.rounded_rectangle((x, y, x + cw, y + ch), radius=11, outline=DIM, width=2)
    invisible_on_top = beat is not None and beat < len(pile) - 1
    ring_box: Box | None = None
    for k, index in enumerate(shown):
        cx = x + k * step + (jump if k else 0)
        p.card(pile[index], cx, y, cw, ch, None, "pile")
        if index == beat and invisible_on_top:
            ring_box = (cx - 4, y - 4, cx + cw + 4, y + ch + 4)
    if ring_box is not None and beat is not None:
        p.ring(ring_box, 4, "to_beat", str(pile[beat]))
        p.pill((ring_box[0] + ring_box[2]) // 2, ring_box[3] - 14, labels.to_beat, 17, GOLD, DARK)
    box = p.text(x, label_y + 4, words, 22, TEXT, bold=True, kind="pile_count")
    if pile:
        p.text(box[2] + 12, label_y + 4, need, 22, GOLD, bold=True, role="need")
    sx = x + fan_w + 50
    _stack(p, sx, y, view.stock_count, "stock", labels.stock.format(n=view.stock_count), "stock_count")
    bx = sx + stock_w + 30
    _stack(p, bx, y, view.discard_count, "burned", labels.burned.format(n=view.discard_count), "burned_count")


def _stack(p: Painter, x: int, y: int, count: int, role: str, words: str, kind: str) -> None:
    cw, ch = PILE_CARD
    if count:
        for i in range(min(3, (count + 9) // 10)):
            p.back(x + 2 * i, y - 2 * i, cw, ch, None, role)
    else:
        p.draw.rounded_rectangle((x, y, x + cw, y + ch), radius=11, outline=DIM, width=2)
    p.text(x + cw // 2, y + ch + 12, words, 22, TEXT if count else MUTED, bold=True, align="center", kind=kind)


# ----------------------------------------------------------------- Shit On Your Neighbor


def _neighbor(view: NeighborView, info: TableInfo, labels: Labels) -> Painter:
    n = len(view.seats)
    geo = geometry(n)
    p = Painter(table_base(n))
    names = seat_names(info.names, n)
    turn = _turn(view, info)
    blocked = dict(view.blocked)
    for seat_info, box in zip(view.seats, geo.seats, strict=True):
        s = seat_info.seat
        _neighbor_seat(p, box, seat_info, names[s], view, info, labels, turn == s, blocked.get(s))
    _header(p, geo.center, info)
    cx0, cy0, cx1, _ = geo.center
    mid = (cx0 + cx1) // 2
    y = cy0 + 48
    p.text(mid - 150, y + 30, labels.hand_number.format(n=view.hand_number), 30, TEXT, bold=True, align="center")
    if view.phase is not Phase.OVER:
        dealer = names[view.dealer] or labels.nameless.format(n=view.dealer + 1)
        p.text(mid - 150, y + 76, f"{labels.dealer}: {dealer}", 22, MUTED, max_width=280, align="center")
    cw, ch = PILE_CARD
    p.back(mid + 20, y, cw, ch, None, "deck")
    p.text(mid + 20 + cw // 2, y + ch + 8, labels.deck.format(n=view.deck_count), 22, TEXT, bold=True, align="center")
    if None in blocked:
        p.card(blocked[None], mid + 40 + cw, y, cw, ch, None, "blocked")
        p.pill(mid + 40 + cw + cw // 2, y + ch - 14, labels.blocked, 17, GOLD, DARK)
    _actions(p, geo.center, info.actions)
    return p


def _neighbor_seat(
    p: Painter,
    box: Box,
    seat: NeighborSeatInfo,
    name: str,
    view: NeighborView,
    info: TableInfo,
    labels: Labels,
    lit: bool,
    blocked: Card | None,
) -> None:
    """Name and dealer mark; lives as hearts; this hand's card (a back), a King that blocked a swap
    and the card of the last hand; the seat's state. Narrow panels (11 seats and more) shrink."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    narrow = w < 200
    pad = 10 if narrow else 14
    s = seat.seat
    if not seat.active:
        _dim(p, box)
    p.note("seat", name, box, s)
    badge = 0
    if s == view.dealer and view.phase is not Phase.OVER:
        word, size = (labels.dealer_short, 14) if narrow else (labels.dealer, 16)
        half = p.text_width(word, size, True) // 2 + size // 3
        mark = p.pill(x1 - pad - half, y0 + 14, word, size, MUTED, DARK, kind="dealer", seat=s)
        badge = mark[2] - mark[0] + 8
    _name(p, box, s, name, labels, badge, lit, 20 if narrow else 28 if w >= 280 else 24, pad)
    cw, ch = (40, 56) if narrow else (56, 78)
    card_y = y0 + (46 if y1 - y0 >= 190 else 40)
    heart_size = 20 if narrow else 30 if w >= 280 else 26
    heart_y = y1 - 32 if narrow else card_y + 6
    hearts = _hearts(p, x0 + pad, heart_y, seat, view, heart_size)
    left = x0 + pad if narrow else hearts + 8
    right = x1 - pad
    pill = 12 if narrow else 14
    if seat.active and view.phase is Phase.PLAY and right - cw >= left:
        right -= cw
        p.back(right, card_y, cw, ch, s, "hand")
        right -= 8
    if blocked is not None and right - cw >= left:
        right -= cw
        p.card(blocked, right, card_y, cw, ch, s, "blocked")
        _tag(p, box, right + cw // 2, card_y + ch - 10, labels.blocked, pill, GOLD, s)
        right -= 8
    revealed = view.last_reveal[s] if s < len(view.last_reveal) else None
    if revealed is not None and right - cw >= left:
        right -= cw
        p.card(revealed, right, card_y, cw, ch, s, "reveal")
        if not narrow:
            _tag(p, box, right + cw // 2, card_y + ch - 10, labels.last_hand, pill, MUTED, s)
    _neighbor_status(p, box, seat, view, info, labels, lit, status_x=hearts + 8 if narrow else x0 + pad)
    if lit:
        p.ring(box, 4 if narrow else 5, "highlight", name, s)


def _neighbor_status(
    p: Painter,
    box: Box,
    seat: NeighborSeatInfo,
    view: NeighborView,
    info: TableInfo,
    labels: Labels,
    lit: bool,
    *,
    status_x: int,
) -> None:
    """The seat's state at the foot of its panel: its place once out, the turn, or "acted"."""
    x0, _, x1, y1 = box
    narrow = x1 - x0 < 200
    pad = 10 if narrow else 14
    s = seat.seat
    status_y = y1 - 32 if narrow else y1 - 36
    room = x1 - pad - status_x
    size = 18 if narrow else 22
    if not seat.active:
        place = labels.out.format(place=labels.ordinal(seat.place or 0))
        p.text(status_x, status_y, place, size, MUTED, bold=True, max_width=room, kind="place", seat=s)
    elif lit:
        words = f"▶ {info.deadline or labels.to_play}" if narrow else _turn_words(info, labels)
        p.text(status_x, status_y, words, size, GOLD, bold=True, max_width=room, kind="status", seat=s, role="turn")
    elif seat.has_acted and view.phase is Phase.PLAY:
        words = "✓" if narrow else f"✓ {labels.acted}"
        p.text(status_x, status_y, words, size, TEXT, max_width=room, kind="status", seat=s)


def _hearts(p: Painter, x: int, y: int, seat: NeighborSeatInfo, view: NeighborView, size: int) -> int:
    """Lives left as red hearts, lives lost as hollow ones; returns the right edge."""
    right = x
    if seat.lives:
        right = p.text(x, y, "♥" * seat.lives, size, RED, kind="lives", seat=seat.seat)[2]
    else:
        p.note("lives", "", (x, y, x, y), seat.seat)
    lost = "♡" * max(0, view.rules.lives - seat.lives)
    if lost:
        right = p.text(right, y, lost, size, DIM, seat=seat.seat, role="lost_lives")[2]
    return right


def _tag(p: Painter, box: Box, x: int, y: int, word: str, size: int, fill: Colour, seat: int) -> None:
    """A tag on a card, kept inside the seat's panel."""
    half = p.text_width(word, size, True) // 2 + size // 3
    x = max(box[0] + half + 2, min(box[2] - half - 2, x))
    p.pill(x, y, word, size, fill, DARK, seat=seat)
