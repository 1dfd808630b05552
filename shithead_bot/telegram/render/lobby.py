"""The lobby message in the group: the game, its rules, who is in, and the buttons to get in."""

from __future__ import annotations

from persistence.models import GameStatus
from shithead_bot.telegram import keyboards
from shithead_bot.telegram.render.common import Page, Rendered, esc


def lobby(page: Page) -> Rendered:
    _ = page._
    game = page.game
    lines = [page.title(), page.rules_line(), ""]
    seated = ", ".join(esc(s.name) for s in game.seats) or _("nobody yet")
    lines.append(_("Players ({n}/{max}): {names}").format(n=len(game.seats), max=page.rules.max_seats, names=seated))
    if game.status != GameStatus.LOBBY:
        lines.append(_("This lobby was closed.") if game.status == GameStatus.ABORTED else _("The game has started."))
        return Rendered("\n".join(lines))
    lines.append(_("Join, add computer players, then Start."))
    return Rendered("\n".join(lines), keyboards.lobby(page))
