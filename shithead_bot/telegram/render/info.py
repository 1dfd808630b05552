"""Texts that answer questions: what the bot does, your games, the leaderboard and your record."""

from __future__ import annotations

import gettext
from collections.abc import Sequence

from persistence.repo import PresetRow, StatsRow
from shithead_bot.i18n import N_
from shithead_bot.service import PlayerGame
from shithead_bot.telegram.render.common import esc

COMMANDS = [
    ("newgame", N_("start a game here (add a preset: smelly, classic, free, standard, or neighbor)")),
    ("hand", N_("send me my cards again")),
    ("games", N_("my games, to jump back in")),
    ("rules", N_("the rules of this chat's game")),
    ("forfeit", N_("leave the game you are playing")),
    ("abort", N_("end this chat's game (creator or admin)")),
    ("stats", N_("this chat's leaderboard")),
    ("pause", N_("pause this chat's game (creator or admin; others vote)")),
    ("resume", N_("go on with a paused game")),
    ("settings", N_("this chat's game, rules and turn time")),
    ("quiet", N_("your quiet hours, e.g. /quiet 23:00-08:00 Europe/Paris")),
    ("help", N_("what I can do")),
]


def help_text(t: gettext.NullTranslations) -> str:
    _ = t.gettext
    lines = [
        _("🃏 I run games of <b>Shithead</b> and <b>Shit On Your Neighbor</b> in your group, at your own pace."),
        _("Your cards and buttons come in our private chat; the group sees one table message."),
        "",
    ]
    computers = _(
        "🤖 Against the computer: /newgame in our private chat, with a level — easy, normal or hard — "
        "and how many opponents, e.g. /newgame hard 3 (or /newgame smelly easy 1)."
    )
    return "\n".join([*lines, *(f"/{name} — {_(text)}" for name, text in COMMANDS), "", computers])


def games_text(games: Sequence[PlayerGame], t: gettext.NullTranslations) -> str:
    _ = t.gettext
    if not games:
        return _("You have no game going on. Start one with /newgame.")
    lines = [_("Your games:")]
    for found in games:
        title = esc(found.chat.title or _("private game"))
        lines.append(f"#{found.game.id} · {title} · {found.game.kind} · {found.game.status}")
    return "\n".join(lines)


def record_text(mine: StatsRow | None, t: gettext.NullTranslations) -> str:
    _ = t.gettext
    if mine is None:
        return _("No finished game yet.")
    return _(
        "🏆 Your record: {games} games, {wins} won, {losers} times the loser, average place {average:.2f}."
    ).format(games=mine.games, wins=mine.firsts, losers=mine.losers, average=mine.average_place)


def leaderboard_text(board: Sequence[StatsRow], presets: Sequence[PresetRow], t: gettext.NullTranslations) -> str:
    _ = t.gettext
    lines = (
        [_("🏆 <b>Leaderboard</b> (average place, wins, times loser)")]
        if board
        else [_("No leaderboard yet: it takes 3 finished games per player.")]
    )
    for i, row in enumerate(board, 1):
        lines.append(f"{i}. {esc(row.name)} — {row.average_place:.2f} · {row.firsts}/{row.games} · 💩{row.losers}")
    if presets:
        played = " · ".join(f"{esc(p.preset)} {p.games}" for p in presets)
        lines.append(_("Games played: {presets}").format(presets=played))
    return "\n".join(lines)
