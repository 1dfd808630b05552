"""The table as a picture: a pure, fast PNG renderer of the group's table and of the final ranking.

Nothing here talks to Telegram or the database, and nothing here can show a secret: both functions
take the engine's **spectator view** (``state.view(None)``, which holds no hand and no face-down
card) and refuse any other; every word comes from the caller, already translated.

>>> from engine import new_game
>>> from shithead_bot.picture import Labels, TableInfo, render_table
>>> game = new_game("shithead", seats=3, seed=7)
>>> picture = render_table(game.view(None), TableInfo(["Alice", "Bob", "Chloé"], title="Shithead · #12"))
>>> picture.size, picture.png[:4]
((1280, 720), b'\\x89PNG')
>>> sorted({item.what for item in picture.items("name")})
['Alice', 'Bob', 'Chloé']
>>> all(item.role == "face_up" for item in picture.items("card"))   # nothing else is face up yet
True

The API, for the Telegram adapter (the group's table message as a photo with a caption, edited in
place with ``editMessageMedia``; ``picture.png`` is what to upload):

``render_table(view, info, labels=None) -> Picture``
    The table of a Shithead or Neighbor game, 1280×720: every seat around the table (name, face-up
    cards drawn as cards, face-down cards as backs, the number of hand cards, ready or swapping, out
    and in which place), whose turn it is (a gold frame, with ``info.deadline``), the pile (its top
    cards fanned, its count, what the next play needs, the card to beat ringed when invisible cards
    lie on it), the stock and burned counts, the title and the last actions in words. Neighbor:
    lives as hearts, the dealer, each seat's card of the last hand, Kings that blocked a swap.
``render_ranking(view, info, labels=None, loser_title=None) -> Picture``
    The end of a finished game: places and names, and the loser named in the preset's words
    (``rules.loser_title``, e.g. "the ShitSmelly Head", or ``loser_title`` translated); Neighbor:
    the winners.
``TableInfo(names, title="", deadline="", actions=(), status="", turn=None)``
    Plain metadata: a display name per seat (any script), the title (``"Shithead (smelly) ·
    #12"``), the deadline text (``"23 h left"``), the last actions (oldest first), a banner
    (``"Paused"``), and whose turn to highlight when it is not the view's ``to_act``.
``Labels(...)``
    Every word the pictures show, English by default; build one per language from the bot's
    catalog (``Labels(stock=_("Stock {n}"), out=_("out, {place}"), ordinal=french_ordinal, …)``).
``Picture(png, size, layout)``
    ``png`` bytes, ``size`` (w, h), and ``layout``: a tuple of :class:`Item` ``(kind, what, box,
    seat, role, card)`` saying what was drawn where: ``kind`` "seat", "name", "card" (``card`` is
    the card's id, ``what`` its text such as "Q♥"), "back", "highlight", "to_beat", "pile_count",
    "stock_count", "burned_count", "hand_count", "status", "place", "lives", "dealer", "text";
    ``role`` where a card belongs ("pile", "face_up", "face_down", "stock", "reveal", "blocked"…);
    ``box`` is (left, top, right, bottom) in pixels. ``picture.items(kind, seat=, role=)`` filters.

Speed: fonts, card faces and backs, each seat count's empty table and text lines are drawn once and
cached per process; a table then takes a few milliseconds to draw and about as long to encode
(``bench/render.py`` measures it). The PNG uses one shared 256-colour palette.

Names in any script: DejaVu Sans, a Noto Sans CJK subset and Symbola's emoji ship in ``fonts/``
(see its README for coverage and licences); a character no font has is left out, and a name left
with nothing legible is drawn as ``Labels.nameless`` (``"Player 3"``). Arabic is shaped by libraqm
where Pillow finds it (FriBiDi installed), else by a small built-in shaper.
"""

from __future__ import annotations

from shithead_bot.picture.model import Box, Item, Labels, Picture, TableInfo, english_ordinal
from shithead_bot.picture.ranking import render_ranking
from shithead_bot.picture.table import render_table

__all__ = [
    "Box",
    "Item",
    "Labels",
    "Picture",
    "TableInfo",
    "english_ordinal",
    "render_ranking",
    "render_table",
]
