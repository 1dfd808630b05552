"""The group's table as a photo: the picture (drawn by ``shithead_bot.picture`` from the spectator
view only) and its short caption — the title and game number, whose turn and until when, the last
action. At the end, the final ranking. Every word comes from the reader's catalog."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine import NeighborView, Phase, ShitheadView
from shithead_bot.narrate import ordinal
from shithead_bot.picture import Labels, Picture, TableInfo, render_ranking, render_table
from shithead_bot.service import GameStatus
from shithead_bot.telegram.render import keyboards
from shithead_bot.telegram.render.commitment import commitment_lines
from shithead_bot.telegram.render.common import Page, Rendered, esc, fit_lines, visible_text

MAX_CAPTION = 1024


@dataclass(frozen=True)
class Photo:
    """A picture to upload and the caption (with the table's buttons) that goes with it."""

    picture: Picture
    caption: Rendered


def labels(page: Page) -> Labels:
    """The picture's words in the page's language."""
    _ = page._
    return Labels(
        pile=_("Pile {n}"), empty_pile=_("Empty pile"), stock=_("Stock {n}"), burned=_("Burned {n}"),
        need_any=_("any card"), need_beat=_("beat {rank}"), need_lower=_("{rank} or lower"), to_beat=_("to beat"),
        to_play=_("to play"), swapping=_("swapping"), swap_phase=_("Swap phase"), ready=_("ready"),
        out=_("out, {place}"), left=_("left the game"), dealer=_("dealer"), dealer_short=_("D"),
        nameless=_("Player {n}"), hand_number=_("Hand {n}"), deck=_("Deck {n}"), the_deck=_("the deck"),
        acted=_("done"), blocked=_("blocked"), last_hand=_("last hand"), game_over=_("Game over"),
        loser=_("{name} is the {title}!"), winners=_("{names} won!"),
        ordinal=lambda place: ordinal(place, page.language),
    )  # fmt: skip


def info(page: Page, told: Sequence[str]) -> TableInfo:
    """The picture's words besides the view; ``told``: the moves in words, oldest first."""
    game = page.game
    status = {GameStatus.PAUSED: page._("Paused"), GameStatus.ABORTED: page._("Game aborted")}.get(game.game.status, "")
    return TableInfo(
        names=list(page.names),
        title=f"{visible_text(page.title())} · #{page.game_id}",
        deadline=page.picture_deadline(),
        actions=[visible_text(line) for line in told[-3:]],
        status=status,
        ended=game.game.status == GameStatus.ABORTED,
    )


def table_photo(page: Page) -> Photo:
    """The table during the game; the final ranking once it is finished."""
    view = page.game.view(None)
    told = page.move_lines(page.game.moves)
    draw = render_ranking if page.game.is_over and view.outcome is not None else render_table
    picture = draw(view, info(page, told), labels(page))
    return Photo(picture, Rendered(caption(page, view, told), keyboards.table(page)))


def caption(page: Page, view: ShitheadView | NeighborView, told: Sequence[str]) -> str:
    """Title and number; whose turn and until when (or the swap phase, or the result); the last action."""
    _ = page._
    lines = [f"{page.title()} · #{page.game_id}"]
    if view.outcome is not None:
        lines.append(page.narrator.result(view.outcome))
    elif page.game.is_over:
        lines.append(_("🛑 Game aborted."))
    elif not isinstance(view, NeighborView) and view.phase is Phase.SWAP:
        swap = _("Swap phase: choose your face-up cards in your private chat. {deadline}")
        lines.append(swap.format(deadline=page.deadline()).rstrip())
    elif view.to_act is not None:
        name = f"<b>{esc(page.names[view.to_act])}</b>"
        lines.append(_("▶ {name} to play {deadline}").format(name=name, deadline=page.deadline()).rstrip())
    lines += commitment_lines(page)
    return fit_lines(lines, [f"· {line}" for line in told[-1:]], limit=MAX_CAPTION)
