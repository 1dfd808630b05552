"""The French catalog: complete, faithful to placeholders and markup, used by the real texts, and in step
with the sources (a new English text without a French one fails here)."""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from engine import PRESETS, NotYourTurnError, card_of
from engine.events import Burned, PickedUp, Played
from engine.rules import NeighborRules
from shithead_bot.i18n import available_languages, pick_language, translations
from shithead_bot.narrate import Narrator
from shithead_bot.service import MoveRejectedError
from shithead_bot.telegram.render.info import COMMANDS
from shithead_bot.telegram.render.replies import refusal
from shithead_bot.telegram.render.rules import rules_text

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "shithead_bot" / "locales"
TEMPLATE = LOCALES / "messages.pot"
FRENCH = LOCALES / "fr" / "LC_MESSAGES" / "messages.po"
# The keywords of README.md's `pybabel extract` command.
KEYWORDS = ["-k", "_", "-k", "gettext", "-k", "ngettext:1,2", "-k", "_n:1,2", "-k", "N_"]

PLACEHOLDER = re.compile(r"\{[^{}]*\}")
TAG = re.compile(r"</?[a-z]+>")


def load(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale=locale)


def msgids(catalog: Catalog) -> set[str | tuple[str, ...]]:
    return {m.id for m in catalog if m.id}


def pairs(message: Message) -> list[tuple[str, str]]:
    """(English, French) for each form: singular with msgstr[0], plural with msgstr[1]."""
    if isinstance(message.id, tuple):
        singular, plural = message.id[0], message.id[1]
        forms = list(message.string)
        return [(singular, forms[0]), *((plural, form) for form in forms[1:])]
    return [(message.id, message.string)]


def symbols(text: str) -> list[str]:
    """Emoji and other pictographs (the card back 🂠, ✋, ⏰…), in order."""
    return [c for c in text if unicodedata.category(c) == "So" and ord(c) >= 0x2000]


@pytest.fixture(scope="module")
def french() -> Catalog:
    return load(FRENCH, "fr")


def test_the_french_catalog_covers_the_template_with_nothing_empty_or_fuzzy(french: Catalog) -> None:
    template = load(TEMPLATE)
    assert msgids(template) <= msgids(french), "run pybabel update, then translate the new texts"
    assert not french.fuzzy
    for message in french:
        if not message.id:
            continue
        assert "fuzzy" not in message.flags, message.id
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        assert forms, message.id
        assert all(form.strip() for form in forms), message.id
    assert not french.obsolete
    assert french.num_plurals == 2
    assert french.plural_expr == "(n > 1)"


def test_the_french_catalog_compiles() -> None:
    translations.cache_clear()
    try:
        assert "fr" in available_languages()
        assert pick_language("fr-CA") == "fr"
        t = translations("fr")
        assert t.gettext("the deck") == "le paquet"
        assert t.ngettext("You have {n} life.", "You have {n} lives.", 1) == "Il te reste {n} vie."
        assert t.ngettext("You have {n} life.", "You have {n} lives.", 0) == "Il te reste {n} vie."
        assert t.ngettext("You have {n} life.", "You have {n} lives.", 2) == "Il te reste {n} vies."
    finally:
        translations.cache_clear()


def test_every_translation_keeps_the_placeholders_tags_and_emoji(french: Catalog) -> None:
    for message in french:
        if not message.id:
            continue
        for english, translated in pairs(message):
            assert sorted(PLACEHOLDER.findall(translated)) == sorted(PLACEHOLDER.findall(english)), english
            assert TAG.findall(translated) == TAG.findall(english), english
            assert symbols(translated) == symbols(english), english
            assert translated.startswith(" ") == english.startswith(" "), english  # pieces glued to a sentence


def test_a_play_and_a_burn_are_told_in_french_and_in_english() -> None:
    ten = card_of(8)  # 10♣
    events = [Played(seat=0, source="h", cards=(ten,)), Burned(seat=0, pile_size=4, four=False)]
    french = Narrator(["Ann", "Bob"], PRESETS["standard"], language="fr").lines(events)
    english = Narrator(["Ann", "Bob"], PRESETS["standard"], language="en").lines(events)
    assert french == [f"Ann a joué {ten} — la pile brûle ! 🔥"]
    assert english == [f"Ann played {ten} — the pile burns! 🔥"]


def test_french_plurals_count_zero_and_one_as_singular() -> None:
    narrator = Narrator(["Ann", "Bob"], PRESETS["standard"], language="fr")
    told = [narrator.line(PickedUp(seat=1, amount=n, face_up=None)) for n in (1, 5)]
    assert told == ["Bob a ramassé la pile (1 carte)", "Bob a ramassé la pile (5 cartes)"]


def test_the_rules_come_in_french_with_the_loser_title_as_data_gives_it() -> None:
    text = rules_text(PRESETS["smelly"], "fr")
    assert "Débarrasse-toi de tes cartes" in text
    assert "ramasse la pile" in text
    assert "cartes cachées" in text
    assert "ShitSmelly Head" in text
    assert "<b>Shithead</b> (smelly)" in text
    assert "the pile" not in text
    english = rules_text(PRESETS["smelly"], "en")
    assert "Get rid of your cards" in english
    assert "pick up the pile" in english
    assert "ShitSmelly Head" in english
    neighbor = rules_text(NeighborRules(), "fr")
    assert neighbor.startswith("<b>Shit On Your Neighbor</b> : chacun commence avec 3 vies")


def test_looked_up_texts_are_translated_too() -> None:
    """The command list and a refused move's cause are marked with N_ and translated where shown."""
    french, english = translations("fr"), translations("en")
    for _name, text in COMMANDS:
        assert french.gettext(text) != text
        assert english.gettext(text) == text
    refused = MoveRejectedError(NotYourTurnError("not your turn"))
    assert refusal(refused, french) == "Ce n'est pas ton tour."
    assert refusal(refused, english) == "It is not your turn."


def test_the_template_is_up_to_date_with_the_sources(tmp_path: Path) -> None:
    fresh = tmp_path / "messages.pot"
    command = [sys.executable, "-m", "babel.messages.frontend", "-q", "extract", "-F", "babel.cfg"]
    command += ["--no-default-keywords", *KEYWORDS, "-o", str(fresh), "."]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=120)
    added = msgids(load(fresh)) - msgids(load(TEMPLATE))
    removed = msgids(load(TEMPLATE)) - msgids(load(fresh))
    assert not added, f"texts missing from messages.pot (run README.md's pybabel commands): {added}"
    assert not removed, f"texts gone from the sources but still in messages.pot: {removed}"


VOUS = re.compile(r"\b(vous|votre|vos)\b|\b\w{3,}ez\b", re.IGNORECASE)  # "vous" and its imperatives


def test_french_speaks_to_the_reader_as_tu_throughout(french: Catalog) -> None:
    """Friends at a card table say *tu*; the catalog once mixed *vous* in ("ajoutez-moi", "vos cartes")."""
    formal = [
        text
        for message in french
        if message.id
        for text in (message.string if isinstance(message.string, tuple) else (message.string,))
        if text and VOUS.search(re.sub(r"\b(chez|assez)\b", "", text, flags=re.IGNORECASE))
    ]
    assert formal == []
