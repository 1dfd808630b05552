"""Computer levels in the reader's language: ``hard`` → ``difficile``."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from engine import EngineError
from engine.ai import ALIASES, LEVELS, level_name
from shithead_bot.i18n import N_, available_languages, translations

LEVEL_NAMES = {"easy": N_("easy"), "normal": N_("normal"), "hard": N_("hard")}


def level_text(_: Callable[[str], str], level: str) -> str:
    """A level's name, translated (an older name reads as its level's; an unknown one as it is)."""
    try:
        name = level_name(level)
    except EngineError:
        return level
    return _(LEVEL_NAMES[name]) if name in LEVEL_NAMES else name


@lru_cache(maxsize=1)
def level_words() -> dict[str, str]:
    """Every word that names a level — its name, an older name, its name in any language — to it."""
    words = {**{level: level for level in LEVELS}, **ALIASES}
    for language in available_languages():
        _ = translations(language).gettext
        words.update({_(LEVEL_NAMES[level]).lower(): level for level in LEVELS if level in LEVEL_NAMES})
    return words
