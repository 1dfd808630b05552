"""The lobby message in the group: the game, its rules, who is in, and the buttons to get in."""

from __future__ import annotations

from shithead_bot.service import GameStatus, SeatSnapshot
from shithead_bot.telegram.render import keyboards
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
    lines.append(who_starts(page))
    return Rendered("\n".join(lines), keyboards.lobby(page))


def who_starts(page: Page) -> str:
    """Who may press Start: the lobby's creator or a chat admin (an anonymous admin's lobby: an admin)."""
    _ = page._
    created_by = page.game.game.created_by
    if created_by is None:
        return _("Join and add computer players; then a chat admin presses Start.")
    creator = next((s for s in page.game.seats if s.player_id == created_by), None)
    if creator is None:
        return _("Join and add computer players; then whoever opened the lobby or a chat admin presses Start.")
    return _("Join and add computer players; then {name} or a chat admin presses Start.").format(name=esc(creator.name))


def seat_label(page: Page, seat: SeatSnapshot) -> str:
    """A player's name; a computer's with its level: ``🤖 Robo (hard)``."""
    if not seat.computer_level:
        return esc(seat.name)
    return f"{esc(seat.name)} ({esc(level_text(page._, seat.computer_level))})"
