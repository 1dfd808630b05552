"""The drawing surface: geometry of the table, a painter that records what it draws, PNG encoding."""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.cards import CARDS, Card
from shithead_bot.picture import sprites
from shithead_bot.picture.model import Box, Item
from shithead_bot.picture.text import ascent, text_image

W, H = 1280, 720
MARGIN, GAP = 14, 10
Colour = tuple[int, int, int]
FELT: Colour = (22, 78, 50)
TABLE: Colour = (30, 100, 64)
PANEL: Colour = (14, 54, 34)
PANEL_EDGE: Colour = (46, 120, 80)
PANEL_OUT: Colour = (26, 46, 36)
TEXT: Colour = (244, 242, 232)
MUTED: Colour = (160, 190, 170)
DIM: Colour = (108, 132, 116)
GOLD: Colour = sprites.GOLD
RED: Colour = (236, 64, 72)
DARK: Colour = (20, 24, 20)


@dataclass(frozen=True)
class Geometry:
    """Where each seat's panel and the centre of the table go, for ``n`` seats.

    Seats run clockwise from the top left: the top row left to right, the right side, the bottom
    row right to left, the left side; play goes the same way (to the left, seen from the seat).
    """

    seats: tuple[Box, ...]
    center: Box
    compact: bool


@lru_cache(maxsize=32)
def geometry(n: int) -> Geometry:
    side = 0 if n <= 6 else 1 if n <= 10 else 2
    rest = n - 2 * side
    top, bottom = (rest + 1) // 2, rest // 2
    compact = n > 10
    height = 150 if compact else 200
    top_y, bottom_y = MARGIN, H - MARGIN - height
    band = (top_y + height + GAP, bottom_y - GAP)
    side_w = 250 if side else 0

    def row(k: int, y: int) -> list[Box]:
        if k == 0:
            return []
        w = min(460, (W - 2 * MARGIN - (k - 1) * GAP) // k)
        x0 = (W - (k * w + (k - 1) * GAP)) // 2
        return [(x0 + i * (w + GAP), y, x0 + i * (w + GAP) + w, y + height) for i in range(k)]

    def column(k: int, x: int) -> list[Box]:
        if k == 0:
            return []
        span = band[1] - band[0]
        h = min(height, (span - (k - 1) * GAP) // k)
        y0 = band[0] + (span - (k * h + (k - 1) * GAP)) // 2
        return [(x, y0 + i * (h + GAP), x + side_w, y0 + i * (h + GAP) + h) for i in range(k)]

    seats = row(top, top_y) + column(side, W - MARGIN - side_w) + row(bottom, bottom_y)[::-1]
    seats += column(side, MARGIN)[::-1]
    inset = side_w + GAP if side else 0
    return Geometry(tuple(seats), (MARGIN + inset, band[0], W - MARGIN - inset, band[1]), compact)


@lru_cache(maxsize=32)
def table_base(n: int) -> Image.Image:
    """The felt, the table and every seat's empty panel (drawn once per seat count)."""
    s = 2
    image = Image.new("RGB", (W * s, H * s), FELT)
    draw = ImageDraw.Draw(image)
    geo = geometry(n)
    cx0, cy0, cx1, cy1 = geo.center
    draw.rounded_rectangle((cx0 * s, (cy0 - 4) * s, cx1 * s, (cy1 + 4) * s), radius=60 * s, fill=TABLE)
    for x0, y0, x1, y1 in geo.seats:
        draw.rounded_rectangle((x0 * s, y0 * s, x1 * s, y1 * s), radius=16 * s, fill=PANEL, outline=PANEL_EDGE, width=s)
    return image.resize((W, H), Image.Resampling.LANCZOS)


@lru_cache(maxsize=4)
def plain_base(w: int, h: int) -> Image.Image:
    return Image.new("RGB", (w, h), FELT)


class Painter:
    """Draws on a copy of a base image and records an :class:`Item` for everything drawn."""

    def __init__(self, base: Image.Image) -> None:
        self.image = base.copy()
        self.draw = ImageDraw.Draw(self.image)
        self.items: list[Item] = []

    def note(
        self, kind: str, what: str, box: Box, seat: int | None = None, role: str = "", card: int | None = None
    ) -> Box:
        self.items.append(Item(kind, what, box, seat, role, card))
        return box

    def text(
        self,
        x: int,
        y: int,
        text: str,
        size: int,
        colour: Colour = TEXT,
        *,
        bold: bool = False,
        max_width: int = 0,
        align: str = "left",
        kind: str = "text",
        seat: int | None = None,
        role: str = "",
        fallback: str = "",
    ) -> Box:
        """A line of text with its top at ``y``; ``align`` puts ``x`` at its left, centre or right.
        A text with nothing legible left is drawn as ``fallback`` instead (when given)."""
        line = text_image(text, size, bold, max_width)
        if not line.legible and fallback:
            line = text_image(fallback, size, bold, max_width)
        left = x if align == "left" else x - line.width // 2 if align == "center" else x - line.width
        top = y + ascent(size, bold) - line.ascent
        box = (left, top, left + line.width, top + line.height)
        self.image.paste(colour, box, line.mask)
        return self.note(kind, line.text, box, seat, role)

    def text_width(self, text: str, size: int, bold: bool = False) -> int:
        return text_image(text, size, bold).width

    def card(self, card: Card, x: int, y: int, w: int, h: int, seat: int | None, role: str) -> Box:
        sprite = sprites.face(card.rank, card.suit, w, h)
        self.image.paste(sprite, (x, y), sprite)
        return self.note("card", str(card), (x, y, x + w, y + h), seat, role, int(card))

    def back(self, x: int, y: int, w: int, h: int, seat: int | None, role: str) -> Box:
        sprite = sprites.back(w, h)
        self.image.paste(sprite, (x, y), sprite)
        return self.note("back", "", (x, y, x + w, y + h), seat, role)

    def ring(self, box: Box, thickness: int, kind: str, what: str = "", seat: int | None = None) -> Box:
        x0, y0, x1, y1 = box
        sprite = sprites.ring(x1 - x0, y1 - y0, thickness)
        self.image.paste(sprite, (x0, y0), sprite)
        return self.note(kind, what, box, seat)

    def pill(
        self,
        x: int,
        y: int,
        text: str,
        size: int,
        fill: Colour,
        colour: Colour,
        *,
        kind: str = "text",
        seat: int | None = None,
        role: str = "",
    ) -> Box:
        """A short label on a rounded tag; ``x`` is its centre, ``y`` its top."""
        line = text_image(text, size, True)
        pad = size // 3
        box = (x - line.width // 2 - pad, y, x + line.width // 2 + pad, y + line.height + 2)
        self.draw.rounded_rectangle(box, radius=(box[3] - box[1]) // 2, fill=fill)
        self.image.paste(colour, (box[0] + pad, y + 1, box[0] + pad + line.width, y + 1 + line.height), line.mask)
        return self.note(kind, line.text, box, seat, role)

    def png(self) -> bytes:
        return encode(self.image)


def encode(image: Image.Image) -> bytes:
    """PNG bytes in the shared 256-colour palette (nearest colour, no dithering: flat colours and
    anti-aliased edges need nothing finer), at a zlib level that is quick and small."""
    quantized = image.quantize(palette=palette(), dither=Image.Dither.NONE)
    out = io.BytesIO()
    quantized.save(out, "PNG", compress_level=6)
    return out.getvalue()


@lru_cache(maxsize=1)
def palette() -> Image.Image:
    """One palette for every picture, chosen once from a sample of everything the pictures draw: each
    background with cards, backs, rings, tags and text of every colour on it."""
    backgrounds = (FELT, TABLE, PANEL, PANEL_OUT, PANEL_EDGE)
    band = 150
    sample = Image.new("RGB", (900, band * len(backgrounds)), FELT)
    for i, background in enumerate(backgrounds):
        painter = Painter(Image.new("RGB", (900, band), background))
        painter.card(CARDS[12], 10, 10, 72, 100, None, "")  # A♣
        painter.card(CARDS[25], 50, 20, 72, 100, None, "")  # A♦
        painter.card(CARDS[14], 90, 30, 62, 86, None, "")
        painter.back(170, 10, 72, 100, None, "")
        painter.back(200, 40, 18, 26, None, "")
        painter.ring((160, 4, 260, 116), 5, "")
        painter.pill(320, 10, "to beat", 17, GOLD, DARK)
        painter.pill(320, 40, "dealer", 16, MUTED, DARK)
        for j, colour in enumerate((TEXT, MUTED, DIM, GOLD, RED)):
            painter.text(400, 4 + 28 * j, "Stock 12 ♥♡ ▶ Ag 李", 24, colour, bold=j % 2 == 0)
        sample.paste(painter.image, (0, band * i))
    return sample.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
