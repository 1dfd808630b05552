"""The lobby message in the group: the game, its rules, who is in, and the buttons to get in."""

from __future__ import annotations

from persistence.models import GameStatus
from shithead_bot.service import SeatSnapshot
from shithead_bot.telegram import keyboards
from shithead_bot.telegram.render.common import Page, Rendered, esc
from shithead_bot.telegram.render.levels import level_text


def lobby(page: Page) -> Rendered:
    _ = page._
    game = page.game
    lines = [page.title(), page.rules_line(), ""]
    seated = ", ".join(seat_label(page, s) for s in game.seats) or _("nobody yet")
    lines.append(_("Players ({n}/{max}): {names}").format(n=len(game.seats), max=page.rules.max_seats, names=seated))
    if game.status != GameStatus.LOBBY:
        lines.append(_("This lobby was closed.") if game.status == GameStatus.ABORTED else _("The game has started."))
        return Rendered("\n".join(lines))
    lines.append(_("Join, add computer players, then Start."))
    return Rendered("\n".join(lines), keyboards.lobby(page))


def seat_label(page: Page, seat: SeatSnapshot) -> str:
    """A player's name; a computer's with its level: ``🤖 Robo (hard)``."""
    if not seat.computer_level:
        return esc(seat.name)
    return f"{esc(seat.name)} ({esc(level_text(page._, seat.computer_level))})"
