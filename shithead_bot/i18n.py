"""Translations: gettext catalogs (Babel ``.po`` files) compiled in memory at first use.

English is the source language. A catalog lives in ``locales/<lang>/LC_MESSAGES/messages.po``; no
build step is needed, since the ``.po`` file is read and compiled when a language is first asked for.
"""

from __future__ import annotations

import gettext
import io
from functools import lru_cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALES = Path(__file__).parent / "locales"
DEFAULT_LANGUAGE = "en"


def N_(text: str) -> str:
    """Mark a text for extraction without translating it here (it is translated where it is shown)."""
    return text


def available_languages() -> list[str]:
    """English plus every language with a catalog."""
    found = {p.parent.parent.name for p in LOCALES.glob("*/LC_MESSAGES/messages.po")}
    return sorted(found | {DEFAULT_LANGUAGE})


def pick_language(code: str | None) -> str:
    """The catalog for a Telegram ``language_code`` such as ``fr-CA`` (English when there is none)."""
    if not code:
        return DEFAULT_LANGUAGE
    base = code.replace("_", "-").split("-")[0].lower()
    return base if base in available_languages() else DEFAULT_LANGUAGE


@lru_cache(maxsize=16)
def translations(language: str) -> gettext.NullTranslations:
    """The gettext translations of a language (the identity for English or an unknown language)."""
    path = LOCALES / language / "LC_MESSAGES" / "messages.po"
    if language == DEFAULT_LANGUAGE or not path.exists():
        return gettext.NullTranslations()
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=language)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)
