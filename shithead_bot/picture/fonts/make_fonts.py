"""Rebuild the shipped font subsets (a maintainer's tool; the bot never runs it).

    pip install fonttools && apt-get download fonts-dejavu-core fonts-noto-cjk fonts-symbola
    for d in *.deb; do dpkg-deb -x "$d" debs; done
    python shithead_bot/picture/fonts/make_fonts.py debs

Each font keeps only the characters a player's name or the table's words plausibly need, without
hinting, so the three families weigh about 3 MB together (see README.md beside this file).
The CJK set is read from the standard encodings, so it is exact and needs no list of its own:
GB 2312 level 1 (the 3,755 commonest Chinese characters), JIS X 0208 level 1 (2,965 Japanese
kanji), every KS X 1001 Hangul syllable (2,350), kana, CJK punctuation and full-width forms.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

from fontTools import subset  # type: ignore[import-not-found,import-untyped,unused-ignore]
from fontTools.ttLib import TTCollection, TTFont  # type: ignore[import-not-found,import-untyped,unused-ignore]

HERE = Path(__file__).resolve().parent


def span(first: int, last: int) -> set[int]:
    return set(range(first, last + 1))


def encoded(codec: str, rows: range, cols: range = range(0xA1, 0xFF)) -> set[int]:
    """Every character of a two-byte encoding's rows."""
    found: set[int] = set()
    for row in rows:
        for col in cols:
            with contextlib.suppress(UnicodeDecodeError):
                found.add(ord(bytes([row, col]).decode(codec)))
    return found


LATIN_ETC = (
    span(0x20, 0x7E)
    | span(0xA0, 0x36F)  # Latin-1, Latin Extended A/B, IPA, spacing and combining marks
    | span(0x370, 0x5FF)  # Greek, Cyrillic, Armenian, Hebrew
    | span(0x600, 0x6FF)  # Arabic
    | span(0x750, 0x77F)
    | span(0x10A0, 0x10FF)  # Georgian
    | span(0x1E00, 0x1FFF)  # Latin Extended Additional (Vietnamese), Greek Extended
    | span(0x2000, 0x2BFF)  # punctuation, currency, arrows, maths, shapes, symbols (♠♣♥♦), dingbats
    | span(0xFB00, 0xFDFF)  # ligatures, Arabic presentation forms A
    | span(0xFE70, 0xFEFF)  # Arabic presentation forms B
    | span(0x1F0A0, 0x1F0FF)  # playing cards
)
CJK = (
    encoded("gb2312", range(0xB0, 0xD8))
    | encoded("euc_jp", range(0xB0, 0xD0))
    | encoded("euc_kr", range(0xB0, 0xC9))
    | span(0x3000, 0x30FF)  # CJK punctuation, kana
    | span(0x31F0, 0x31FF)
    | span(0xFF00, 0xFFEF)  # full-width forms
)
EMOJI = span(0x1F300, 0x1F64F) | span(0x1F680, 0x1F6FF) | span(0x1F900, 0x1F9FF) | span(0x2600, 0x27BF)


def cut(font: TTFont, keep: set[int], features: bool) -> bytes:
    options = subset.Options()
    options.hinting = False
    options.layout_features = ["*"] if features else []
    options.name_IDs = ["*"]
    options.notdef_outline = True
    options.glyph_names = False
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=keep)
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def main(debs: Path) -> None:
    dejavu = debs / "usr/share/fonts/truetype/dejavu"
    for name in ("DejaVuSans", "DejaVuSans-Bold"):
        data = cut(TTFont(dejavu / f"{name}.ttf"), LATIN_ETC, features=True)
        (HERE / f"{name}.ttf").write_bytes(data)
    covered = set(TTFont(dejavu / "DejaVuSans-Bold.ttf").getBestCmap()) & LATIN_ETC
    collection = TTCollection(debs / "usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc")
    sc = next(f for f in collection.fonts if f["name"].getDebugName(4) == "Noto Sans CJK SC Bold")
    (HERE / "NotoSansCJKsc-Bold-subset.otf").write_bytes(cut(sc, CJK, features=False))
    symbola = TTFont(debs / "usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf")
    (HERE / "Symbola-emoji.ttf").write_bytes(cut(symbola, EMOJI - covered, features=False))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
