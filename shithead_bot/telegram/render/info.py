"""Texts that answer questions: what the bot does, your games, the leaderboard and your record."""

from __future__ import annotations

import gettext
import re
from collections.abc import Sequence

from shithead_bot.i18n import N_
from shithead_bot.service import PlayerRecord, PresetCount, RatingLine, plays_like
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
    ("away", N_("away for a while: a computer plays for you, e.g. /away 3d")),
    ("back", N_("back from /away: your turns are yours again")),
    ("verify", N_("check a finished game: its deal and every move")),
    ("help", N_("what I can do")),
]


PRIVATE_ONLY = frozenset({"quiet", "away", "back"})  # answered in our private chat only: never /cmd@bot
COMMAND_NAMES = frozenset(["start", *(name for name, _ in COMMANDS)]) - PRIVATE_ONLY
BARE_COMMAND = re.compile(r"(?<![\w/.:@<])/([a-z]+)\b(?![@\w])")


def addressed(text: str, bot_username: str) -> str:
    """Every command of ours in a group text, written ``/cmd@botname``: with privacy mode on, a bare
    ``/cmd`` reaches the bot only when no other bot posted after it (Bot API FAQ). Not those meant
    for our private chat only (/quiet, /away, /back), which are written there, bare."""
    if not bot_username:
        return text

    def name(found: re.Match[str]) -> str:
        return f"/{found.group(1)}@{bot_username}" if found.group(1) in COMMAND_NAMES else found.group(0)

    return BARE_COMMAND.sub(name, text)


def greeting(t: gettext.NullTranslations, bot_username: str) -> str:
    """The one line the bot says when it is added to a group: how to call it."""
    return addressed(
        t.gettext(
            "👋 Hello! Open a game with /newgame — here, write my commands with my name, as shown; /help lists them."
        ),
        bot_username,
    )


def help_text(t: gettext.NullTranslations) -> str:
    _ = t.gettext
    lines = [
        _("🃏 I run games of <b>Shithead</b> and <b>Shit On Your Neighbor</b> in your group, at your own pace."),
        _("Your cards and buttons come in our private chat; the group sees one table message."),
        _(
            "To play: add me to a group, send /newgame there, and tap Join; "
            "whoever opened it, or a chat admin, taps Start."
        ),
        "",
    ]
    computers = _(
        "🤖 Against the computer: /newgame in our private chat, with a level — easy, normal or hard — "
        "and how many opponents, e.g. /newgame hard 3 (or /newgame smelly easy 1)."
    )
    return "\n".join([*lines, *(f"/{name} — {_(text)}" for name, text in COMMANDS), "", computers])


def record_text(mine: PlayerRecord | None, t: gettext.NullTranslations) -> str:
    _ = t.gettext
    if mine is None:
        return _("No finished game yet.")
    games = t.ngettext("{n} game", "{n} games", mine.games).format(n=mine.games)
    losers = t.ngettext("{n} time the loser", "{n} times the loser", mine.losers).format(n=mine.losers)
    text = _("🏆 Your record: {games}, {wins} won, {losers}, average place {average:.2f}.").format(
        games=games, wins=mine.firsts, losers=losers, average=mine.average_place
    )
    if mine.stood_in_moves:
        moves = t.ngettext("{n} move", "{n} moves", mine.stood_in_moves).format(n=mine.stood_in_moves)
        games = t.ngettext("{n} game", "{n} games", mine.stood_in_games).format(n=mine.stood_in_games)
        text += "\n" + _("🤖 A stand-in made {moves} for you, in {games} (they count as yours).").format(
            moves=moves, games=games
        )
    return text


def ratings_text(board: Sequence[RatingLine], presets: Sequence[PresetCount], t: gettext.NullTranslations) -> str:
    """A group's /stats: the players (and computer levels) by rating, best first."""
    _, _n = t.gettext, t.ngettext
    if not board:
        lines = [_("No rated game yet: every finished game here rates its players.")]
    else:
        lines = [
            _("🏆 <b>Ratings</b> (rating · games · times the loser)"),
            *(
                f"{i}. {esc(_level_name(line, t))} — {line.ordinal:.1f} · "
                + _n("{n} game", "{n} games", line.games).format(n=line.games)
                + f" · 💩{line.losses}"
                for i, line in enumerate(board, 1)
            ),
            rating_note(t),
        ]
    if presets:
        played = " · ".join(f"{esc(p.preset)} {p.games}" for p in presets)
        lines.append(_("Games played: {presets}").format(presets=played))
    return "\n".join(lines)


def rating_note(t: gettext.NullTranslations) -> str:
    """What the number is: openskill's ordinal, which a first loss takes below 0."""
    return t.gettext(
        "A rating is the skill minus three times its uncertainty: it starts at 0, rises as you play and "
        "win, and may go below 0 after early losses."
    )


def my_ratings_text(
    mine: Sequence[RatingLine],
    computers: Sequence[RatingLine],
    record: PlayerRecord | None,
    t: gettext.NullTranslations,
) -> str:
    """A player's /stats in private: their rating in each chat and overall, its trend, and the
    computer level they play like."""
    _, _n = t.gettext, t.ngettext
    if not mine:
        return _("No finished game yet.")
    lines = [_("🏆 <b>Your ratings</b>")]
    for line in sorted(mine, key=lambda r: (r.chat_id == 0, r.chat_title)):
        where = _("Overall") if line.chat_id == 0 else esc(line.chat_title or _("private game"))
        games = _n("{n} game", "{n} games", line.games).format(n=line.games)
        trend = f" · {'▲' if line.trend > 0 else '▼'} {abs(line.trend):.1f}" if line.trend else ""
        lines.append(f"{where}: {line.ordinal:.1f} · {games}{trend}")
    overall = next((r for r in mine if r.chat_id == 0), None)
    level = plays_like(overall, computers) if overall is not None else None
    if level is not None:
        lines.append(_("You play like the {level} computer.").format(level=level_label(level, t)))
    if record is not None:
        lines.append(record_text(record, t))
    lines.append(rating_note(t))
    return "\n".join(lines)


def level_label(level: str, t: gettext.NullTranslations) -> str:
    labels = {"easy": N_("easy"), "normal": N_("normal"), "hard": N_("hard")}
    return t.gettext(labels.get(level, level))


def _level_name(line: RatingLine, t: gettext.NullTranslations) -> str:
    if line.level is None:
        return line.name
    return t.gettext("🤖 computer ({level})").format(level=level_label(line.level, t))
