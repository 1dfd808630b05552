"""Pre-rendered card faces and backs, drawn once per size (supersampled, then scaled down) and cached."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw

from engine.cards import RANK_TEXTS, SUIT_SYMBOLS
from shithead_bot.picture.text import font

SUPER = 3
WHITE = (251, 250, 245)
EDGE = (120, 128, 136)
RED = (206, 30, 46)
BLACK = (26, 26, 30)
BACK = (40, 72, 150)
BACK_LINE = (78, 112, 196)
GOLD = (245, 197, 66)


def _canvas(w: int, h: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGBA", (w * SUPER, h * SUPER), (0, 0, 0, 0))
    return image, ImageDraw.Draw(image)


def _finish(image: Image.Image, w: int, h: int) -> Image.Image:
    return image.resize((w, h), Image.Resampling.LANCZOS)


@lru_cache(maxsize=512)
def face(rank: int, suit: int, w: int, h: int) -> Image.Image:
    """A card's face (RGBA): the rank and a small suit in the corner, a big suit in the middle."""
    image, draw = _canvas(w, h)
    s = SUPER
    draw.rounded_rectangle((0, 0, w * s - 1, h * s - 1), radius=int(w * s * 0.12), fill=WHITE, outline=EDGE, width=s)
    colour = RED if suit in (1, 2) else BLACK
    rank_text = RANK_TEXTS[rank]
    rank_size = int(h * s * (0.27 if len(rank_text) > 1 else 0.30))
    draw.text((int(w * s * 0.08), int(h * s * 0.03)), rank_text, font=font("bold", rank_size), fill=colour)
    small = font("bold", int(h * s * 0.22))
    draw.text((int(w * s * 0.09), int(h * s * 0.32)), SUIT_SYMBOLS[suit], font=small, fill=colour)
    big = font("bold", int(h * s * 0.50))
    draw.text((int(w * s * 0.93), int(h * s * 0.97)), SUIT_SYMBOLS[suit], font=big, fill=colour, anchor="rd")
    return _finish(image, w, h)


@lru_cache(maxsize=32)
def back(w: int, h: int) -> Image.Image:
    """A card's back (RGBA): blue with a lattice."""
    image, draw = _canvas(w, h)
    s = SUPER
    radius = int(w * s * 0.12)
    draw.rounded_rectangle((0, 0, w * s - 1, h * s - 1), radius=radius, fill=WHITE, outline=EDGE, width=s)
    inset = max(2 * s, int(w * s * 0.07))
    inner = (inset, inset, w * s - 1 - inset, h * s - 1 - inset)
    draw.rounded_rectangle(inner, radius=max(s, radius - inset), fill=BACK)
    step = max(4 * s, int(w * s * 0.16))
    pattern = Image.new("RGBA", image.size, (0, 0, 0, 0))
    lines = ImageDraw.Draw(pattern)
    for x in range(-h * s, w * s + h * s, step):
        lines.line((x, 0, x + h * s, h * s), fill=BACK_LINE, width=s)
        lines.line((x + h * s, 0, x, h * s), fill=BACK_LINE, width=s)
    mask = Image.new("L", image.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle(inner, radius=max(s, radius - inset), fill=255)
    image.paste(pattern, (0, 0), ImageChops.multiply(pattern.getchannel("A"), mask))
    return _finish(image, w, h)


@lru_cache(maxsize=32)
def ring(w: int, h: int, thickness: int) -> Image.Image:
    """A gold rounded outline of that outer size (RGBA): marks the card to beat or whose turn it is."""
    image, draw = _canvas(w, h)
    s = SUPER
    draw.rounded_rectangle(
        (0, 0, w * s - 1, h * s - 1), radius=int(min(w, h) * s * 0.14), outline=GOLD, width=thickness * s
    )
    return _finish(image, w, h)
