"""Text in any script: shipped fonts, per-character fallback, Arabic without libraqm, cached masks.

Each character goes to the first font of the chain that has it (read from the font's own ``cmap``):
DejaVu Sans (Latin, Greek, Cyrillic, Hebrew, Arabic, symbols), then Noto Sans CJK (a subset), then
Symbola (emoji, one colour). A character none has is left out; joiners, variation selectors and
skin-tone modifiers that the chosen font lacks are dropped quietly.

Arabic needs shaping (letters join) and right-to-left order. Pillow does both through libraqm when
it finds FriBiDi on the system (``PIL.features.check("raqm")``); without it, :func:`visual_order`
joins the letters itself with the Unicode presentation forms and reverses right-to-left runs, which
is enough for names.
"""

from __future__ import annotations

import struct
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont, features

FONT_DIR = Path(__file__).resolve().parent / "fonts"
FACES: dict[str, str] = {
    "regular": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "cjk": "NotoSansCJKsc-Bold-subset.otf",
    "emoji": "Symbola-emoji.ttf",
}
CHAINS: dict[bool, tuple[str, ...]] = {False: ("regular", "cjk", "emoji"), True: ("bold", "cjk", "emoji")}
ELLIPSIS = "…"

_raqm: bool | None = None


def raqm() -> bool:
    """Whether Pillow shapes text through libraqm here (it needs FriBiDi on the system)."""
    global _raqm
    if _raqm is None:
        _raqm = bool(features.check("raqm"))
    return _raqm


def set_raqm(enabled: bool | None) -> None:
    """Force the layout engine (tests); None finds out again. Clears every text cache."""
    global _raqm
    _raqm = None if enabled is None else enabled and bool(features.check("raqm"))
    font.cache_clear()
    text_image.cache_clear()


# ----------------------------------------------------------------- fonts and their coverage


@lru_cache(maxsize=64)
def font(face: str, size: int) -> ImageFont.FreeTypeFont:
    engine = ImageFont.Layout.RAQM if raqm() else ImageFont.Layout.BASIC
    return ImageFont.truetype(str(FONT_DIR / FACES[face]), size, layout_engine=engine)


@lru_cache(maxsize=8)
def coverage(face: str) -> frozenset[int]:
    """The code points the face maps to a glyph, read from its ``cmap`` table."""
    return frozenset(read_cmap((FONT_DIR / FACES[face]).read_bytes()))


def read_cmap(data: bytes) -> set[int]:
    """The code points of an sfnt font's best Unicode ``cmap`` subtable (format 12, else 4)."""
    (tables,) = struct.unpack_from(">H", data, 4)
    offset = None
    for i in range(tables):
        tag, _, start, _ = struct.unpack_from(">4sIII", data, 12 + 16 * i)
        if tag == b"cmap":
            offset = start
    if offset is None:
        return set()
    _, count = struct.unpack_from(">HH", data, offset)
    subtables: dict[int, int] = {}
    for i in range(count):
        platform, encoding, start = struct.unpack_from(">HHI", data, offset + 4 + 8 * i)
        if (platform, encoding) in ((3, 10), (0, 4), (0, 6), (3, 1), (0, 3)):
            fmt = struct.unpack_from(">H", data, offset + start)[0]
            subtables.setdefault(fmt, offset + start)
    if 12 in subtables:
        return _format12(data, subtables[12])
    if 4 in subtables:
        return _format4(data, subtables[4])
    return set()


def _format12(data: bytes, at: int) -> set[int]:
    (groups,) = struct.unpack_from(">I", data, at + 12)
    found: set[int] = set()
    for i in range(groups):
        first, last, glyph = struct.unpack_from(">III", data, at + 16 + 12 * i)
        found.update(range(first if glyph else first + 1, last + 1))
    return found


def _format4(data: bytes, at: int) -> set[int]:
    (seg2,) = struct.unpack_from(">H", data, at + 6)
    segs = seg2 // 2
    ends = struct.unpack_from(f">{segs}H", data, at + 14)
    starts = struct.unpack_from(f">{segs}H", data, at + 16 + seg2)
    deltas = struct.unpack_from(f">{segs}h", data, at + 16 + 2 * seg2)
    range_at = at + 16 + 3 * seg2
    ranges = struct.unpack_from(f">{segs}H", data, range_at)
    found: set[int] = set()
    for i in range(segs):
        for code in range(starts[i], ends[i] + 1):
            if code == 0xFFFF:
                continue
            if ranges[i] == 0:
                glyph = (code + deltas[i]) & 0xFFFF
            else:
                (glyph,) = struct.unpack_from(">H", data, range_at + 2 * i + ranges[i] + 2 * (code - starts[i]))
                glyph = (glyph + deltas[i]) & 0xFFFF if glyph else 0
            if glyph:
                found.add(code)
    return found


def ascent(size: int, bold: bool = False) -> int:
    """Where the baseline of a line of the main face lies below its top: lines of every script are
    placed so that their baselines agree."""
    return font(CHAINS[bold][0], size).getmetrics()[0]


def face_for(char: str, bold: bool) -> str | None:
    """The first face of the chain that has ``char``, or None."""
    code = ord(char)
    for face in CHAINS[bold]:
        if code in coverage(face):
            return face
    return None


# ----------------------------------------------------------------- Arabic without libraqm

# Presentation forms (isolated, final, initial, medial); two forms: the letter joins on its right only.
_ARABIC_FORMS: dict[str, tuple[int, ...]] = {
    "\u0621": (0xFE80,),
    "\u0622": (0xFE81, 0xFE82),
    "\u0623": (0xFE83, 0xFE84),
    "\u0624": (0xFE85, 0xFE86),
    "\u0625": (0xFE87, 0xFE88),
    "\u0626": (0xFE89, 0xFE8A, 0xFE8B, 0xFE8C),
    "\u0627": (0xFE8D, 0xFE8E),
    "\u0629": (0xFE93, 0xFE94),
    "\u062f": (0xFEA9, 0xFEAA),
    "\u0630": (0xFEAB, 0xFEAC),
    "\u0631": (0xFEAD, 0xFEAE),
    "\u0632": (0xFEAF, 0xFEB0),
    "\u0648": (0xFEED, 0xFEEE),
    "\u0649": (0xFEEF, 0xFEF0),
    "\u0698": (0xFB8A, 0xFB8B),
    "\u067e": (0xFB56, 0xFB57, 0xFB58, 0xFB59),
    "\u0686": (0xFB7A, 0xFB7B, 0xFB7C, 0xFB7D),
    "\u06a9": (0xFB8E, 0xFB8F, 0xFB90, 0xFB91),
    "\u06af": (0xFB92, 0xFB93, 0xFB94, 0xFB95),
    "\u06cc": (0xFBFC, 0xFBFD, 0xFBFE, 0xFBFF),
}
_DUAL = "بتثجحخسشصضطظعغفقكلمنهي"
_DUAL_FIRST: tuple[int, ...] = (0xFE8F, 0xFE95, 0xFE99, 0xFE9D, 0xFEA1, 0xFEA5, 0xFEB1, 0xFEB5, 0xFEB9, 0xFEBD)
_DUAL_FIRST += (0xFEC1, 0xFEC5, 0xFEC9, 0xFECD, 0xFED1, 0xFED5, 0xFED9, 0xFEDD, 0xFEE1, 0xFEE5, 0xFEE9, 0xFEF1)
_ARABIC_FORMS |= {ch: tuple(range(first, first + 4)) for ch, first in zip(_DUAL, _DUAL_FIRST, strict=True)}
_LAM_ALEF = {"\u0622": 0xFEF5, "\u0623": 0xFEF7, "\u0625": 0xFEF9, "\u0627": 0xFEFB}  # isolated; +1 final
_TATWEEL = "\u0640"


def _joins_left(char: str) -> bool:
    """Whether a letter joins the letter after it (to its left in writing)."""
    return char == _TATWEEL or len(_ARABIC_FORMS.get(char, ())) == 4


def shape_arabic(text: str) -> str:
    """Arabic letters in their joined presentation forms, still in logical order; marks dropped."""
    letters = [ch for ch in text if not ("\u064b" <= ch <= "\u065f" or ch == "\u0670")]
    out: list[str] = []
    i = 0
    while i < len(letters):
        ch = letters[i]
        before = letters[i - 1] if i and out else ""
        joined_before = bool(before) and _joins_left(before)
        after = letters[i + 1] if i + 1 < len(letters) else ""
        if ch == "\u0644" and after in _LAM_ALEF:
            out.append(chr(_LAM_ALEF[after] + (1 if joined_before else 0)))
            i += 2
            continue
        forms = _ARABIC_FORMS.get(ch)
        if forms is None:
            out.append(ch)
            i += 1
            continue
        joined_after = len(forms) == 4 and (after in _ARABIC_FORMS or after == _TATWEEL)
        if len(forms) == 1:
            form = forms[0]
        elif joined_before and joined_after:
            form = forms[3]
        elif joined_after:
            form = forms[2]
        elif joined_before:
            form = forms[1]
        else:
            form = forms[0]
        out.append(chr(form))
        i += 1
    return "".join(out)


def _is_rtl(char: str) -> bool:
    return unicodedata.bidirectional(char) in ("R", "AL")


def visual_order(text: str) -> str:
    """A simple bidi for one left-to-right line: shape Arabic and reverse each right-to-left run.
    Neutral characters between two right-to-left ones belong to their run."""
    if not any(_is_rtl(ch) for ch in text):
        return text
    runs: list[tuple[bool, str]] = []
    for ch in text:
        strong = unicodedata.bidirectional(ch)
        rtl = strong in ("R", "AL") or (strong not in ("L", "EN", "AN") and bool(runs) and runs[-1][0])
        if runs and runs[-1][0] == rtl:
            runs[-1] = (rtl, runs[-1][1] + ch)
        else:
            runs.append((rtl, ch))
    # trailing neutrals of a right-to-left run belong outside it
    fixed: list[tuple[bool, str]] = []
    for rtl, chunk in runs:
        if rtl:
            core = chunk.rstrip(" ")
            fixed.append((True, shape_arabic(core)[::-1]))
            if len(core) < len(chunk):
                fixed.append((False, chunk[len(core) :]))
        else:
            fixed.append((False, chunk))
    return "".join(chunk for _, chunk in fixed)


# ----------------------------------------------------------------- runs and masks


def _quiet(char: str) -> bool:
    """Characters that may vanish without a trace: joiners, selectors, modifiers, controls."""
    return unicodedata.category(char) in ("Mn", "Me", "Cf", "Cc", "Sk") or 0x1F3FB <= ord(char) <= 0x1F3FF


def runs(text: str, bold: bool) -> tuple[list[tuple[str, str]], int]:
    """Split ``text`` into (face, characters) runs; also count the characters no face has."""
    out: list[tuple[str, str]] = []
    missing = 0
    for ch in text:
        if ch in "\n\r\t":
            ch = " "
        face = face_for(ch, bold)
        if face is None:
            if not _quiet(ch):
                missing += 1
            continue
        if _quiet(ch) and (not out or out[-1][0] != face):
            continue
        if out and out[-1][0] == face:
            out[-1] = (face, out[-1][1] + ch)
        else:
            out.append((face, ch))
    return out, missing


@dataclass(frozen=True)
class TextImage:
    """A line of text as an ``L`` mask. ``text`` is what was drawn (after fallback and ellipsis);
    ``legible`` is False when nothing drawable was left (the caller draws its placeholder).
    Lines run left to right (a caption such as "محمد played 3♥" keeps its order); right-to-left
    runs inside read right to left."""

    mask: Image.Image
    text: str
    width: int
    height: int
    ascent: int
    legible: bool
    missing: int


def _width(parts: list[tuple[str, str]], size: int) -> int:
    direction = "ltr" if raqm() else None
    return int(sum(font(face, size).getlength(chunk, direction=direction) for face, chunk in parts) + 0.999)


@lru_cache(maxsize=4096)
def text_image(text: str, size: int, bold: bool = False, max_width: int = 0) -> TextImage:
    """``text`` on one line at ``size`` px, cut with an ellipsis to ``max_width`` (0: no limit)."""
    line = " ".join(text.split())
    if not raqm():
        line = visual_order(line)
    parts, missing = runs(line, bold)
    drawn = "".join(chunk for _, chunk in parts)
    legible = any(unicodedata.category(ch)[0] in "LNS" for ch in drawn)
    if max_width and parts and _width(parts, size) > max_width:
        chars = [(face, ch) for face, chunk in parts for ch in chunk]
        ellipsis_face = face_for(ELLIPSIS, bold) or "regular"
        while chars:
            chars.pop()
            while chars and chars[-1][1] == " ":
                chars.pop()
            trial = _merge([*chars, (ellipsis_face, ELLIPSIS)])
            if _width(trial, size) <= max_width:
                parts = trial
                break
        else:
            parts = [(ellipsis_face, ELLIPSIS)]
        drawn = "".join(chunk for _, chunk in parts)
    ascent = max((font(face, size).getmetrics()[0] for face, _ in parts), default=size)
    descent = max((font(face, size).getmetrics()[1] for face, _ in parts), default=0)
    width = max(1, _width(parts, size))
    mask = Image.new("L", (width, ascent + descent), 0)
    draw = ImageDraw.Draw(mask)
    x = 0.0
    for face, chunk in parts:
        f = font(face, size)
        draw.text((x, ascent), chunk, font=f, fill=255, anchor="ls", direction="ltr" if raqm() else None)
        x += f.getlength(chunk, direction="ltr" if raqm() else None)
    return TextImage(mask, drawn, width, ascent + descent, ascent, legible, missing)


def _merge(chars: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for face, ch in chars:
        if out and out[-1][0] == face:
            out[-1] = (face, out[-1][1] + ch)
        else:
            out.append((face, ch))
    return out
