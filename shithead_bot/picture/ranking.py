"""The end of a game as a picture: every seat's place, and the loser named in the preset's words."""

from __future__ import annotations

from engine.common import Outcome
from engine.views import NeighborView, ShitheadView
from shithead_bot.picture.canvas import GOLD, MUTED, PANEL, PANEL_EDGE, RED, TEXT, H, Painter, W, plain_base
from shithead_bot.picture.model import Labels, Picture, TableInfo, seat_names
from shithead_bot.picture.table import RENDER_LOCK, check_spectator

LOSER_FILL = (90, 30, 34)


def render_ranking(
    view: ShitheadView | NeighborView,
    info: TableInfo,
    labels: Labels | None = None,
    loser_title: str | None = None,
) -> Picture:
    """The final ranking of a finished game as a PNG with its layout.

    ``view`` is the spectator's view of the finished game; ``loser_title`` the loser's title in the
    reader's words (default: the rules' own, e.g. "ShitSmelly Head").
    """
    check_spectator(view)
    outcome = view.outcome
    if outcome is None:
        raise ValueError("the game is not over: no ranking yet")
    with RENDER_LOCK:
        return _ranking(view, outcome, info, labels or Labels(), loser_title)


def _ranking(
    view: ShitheadView | NeighborView, outcome: Outcome, info: TableInfo, labels: Labels, loser_title: str | None
) -> Picture:
    n = len(outcome.places)
    names = [name or labels.nameless.format(n=s + 1) for s, name in enumerate(seat_names(info.names, n))]
    p = Painter(plain_base(W, H))
    p.text(W // 2, 26, labels.game_over, 44, GOLD, bold=True, align="center", role="title")
    if info.title:
        p.text(W // 2, 88, info.title, 24, MUTED, max_width=W - 80, align="center", role="title")
    columns = 1 if n <= 10 else 2
    per_column = (n + columns - 1) // columns
    row_h = min(50, 440 // per_column)
    width = 760 if columns == 1 else 580
    gap = 40
    left0 = (W - (columns * width + (columns - 1) * gap)) // 2
    top = 136 + max(0, (H - 130 - 136) - per_column * row_h) // 2
    forfeited = _forfeits(view)
    size = 28 if row_h >= 44 else 22
    for i, seat in enumerate(outcome.ranking):
        column, row = divmod(i, per_column)
        x = left0 + column * (width + gap)
        y = top + row * row_h
        box = (x, y, x + width, y + row_h - 6)
        is_loser = seat == outcome.loser
        p.draw.rounded_rectangle(box, radius=10, fill=LOSER_FILL if is_loser else PANEL, outline=PANEL_EDGE)
        p.note("seat", names[seat], box, seat)
        place = outcome.places[seat]
        middle = y + (row_h - 6) // 2 - size * 6 // 10
        colour = GOLD if place == 1 else RED if is_loser else TEXT
        p.text(x + 18, middle, labels.ordinal(place), size, colour, bold=True, kind="place", seat=seat)
        extra = f" · {labels.left}" if seat in forfeited else ""
        box_name = p.text(
            x + 110,
            middle,
            names[seat],
            size,
            TEXT,
            bold=True,
            max_width=width - 140,
            kind="name",
            seat=seat,
            fallback=labels.nameless.format(n=seat + 1),
        )
        if extra:
            p.text(box_name[2], middle + 2, extra, size - 4, MUTED, max_width=x + width - box_name[2] - 12, seat=seat)
    p.text(
        W // 2,
        H - 80,
        _verdict(view, outcome, names, labels, loser_title),
        34,
        GOLD,
        bold=True,
        max_width=W - 80,
        align="center",
        role="verdict",
    )
    return Picture(p.png(), (W, H), tuple(p.items))


def _forfeits(view: ShitheadView | NeighborView) -> set[int]:
    if isinstance(view, ShitheadView):
        return {info.seat for info in view.seats if info.forfeited}
    return set()


def _verdict(
    view: ShitheadView | NeighborView, outcome: Outcome, names: list[str], labels: Labels, title: str | None
) -> str:
    if isinstance(view, ShitheadView) and outcome.loser is not None:
        name = names[outcome.loser]
        return "💩 " + labels.loser.format(name=name, title=title or view.rules.loser_title)
    return "👑 " + labels.winners.format(names=", ".join(names[s] for s in outcome.winners))
