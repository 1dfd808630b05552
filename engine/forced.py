"""Forced moves: a seat whose only legal move is one move, and who could tell.

A forced move asks nothing of its player, so a front end may make it for them at once. Whether that
gives anything away depends on who can see it was forced:

- **public**: everybody can see the player had no choice — a pickup when nothing fits, a play from
  the face-up cards, the last face-down card, the last card in hand, the game's first play when the
  rules name its rank (RULES.md §1.3) and the starter holds one card of it. Making it at once tells
  the others nothing they could not see.
- **private**: only the player knows — the one card of a hand of several that fits. Made at once,
  it would tell the others that nothing else in that hand fits.

The swap phase and a choice between face-down slots are never forced (a slot is a choice, even if
a blind one); neither is anything in Shit On Your Neighbor.

>>> from engine import new_game, preset
>>> game = new_game("shithead", preset("standard"), seats=2, seed=3)
>>> for seat in (0, 1):
...     _ = game.apply(seat, "r")
>>> forced_move(game.view(game.to_act))  # the first play: the lowest plain card, held once
(Play(source=<Source.HAND: 'h'>, rank=4, count=1), <Forced.PUBLIC: 'public'>)
"""

from __future__ import annotations

from enum import StrEnum

from engine.common import Phase
from engine.moves import Forfeit, Move, Play, Source
from engine.views import ShitheadView


class Forced(StrEnum):
    PUBLIC = "public"  # everybody can see it was the only move
    PRIVATE = "private"  # only its player knows


def forced_move(view: object) -> tuple[Move, Forced] | None:
    """The one move this seat's view allows, and who can tell it was forced; None when there is a
    choice (or the view is not of a Shithead seat to act in the play phase)."""
    if not isinstance(view, ShitheadView) or view.phase is not Phase.PLAY or view.seat != view.to_act:
        return None
    moves = [m for m in view.legal_moves if not isinstance(m, Forfeit)]
    if len(moves) != 1:
        return None
    move = moves[0]
    if isinstance(move, Play) and move.source is Source.HAND and move.count < len(view.hand) and not view.required_rank:
        return move, Forced.PRIVATE
    return move, Forced.PUBLIC
