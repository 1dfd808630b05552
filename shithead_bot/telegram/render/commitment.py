"""The deal's commitment in the group: its fingerprint from the deal on (the start announcement, the
table's text and the picture's caption), the seed and salt revealed by the game's last message, and
``/verify``'s answers. Seed and salt are shown only once the game is over."""

from __future__ import annotations

import gettext

from shithead_bot.service import NotOverYetError, Verdict
from shithead_bot.telegram.render.common import Page, esc
from shithead_bot.verify import verdict_lines


def commitment_lines(page: Page) -> list[str]:
    """ "🔐 Deal fingerprint: 3f9a…" once the cards are dealt (none for an older game without one)."""
    fingerprint = page.game.game.deal_commitment
    if fingerprint is None or page.game.state is None:
        return []
    return [page._("🔐 Deal fingerprint: <code>{fingerprint}</code>").format(fingerprint=esc(fingerprint))]


def reveal_lines(page: Page) -> list[str]:
    """The seed and salt behind the fingerprint — only once the game is over."""
    revealed, fingerprint = page.game.revealed, page.game.game.deal_commitment
    if not page.game.is_over or revealed is None or revealed.salt is None or fingerprint is None:
        return []
    return [
        page._(
            "🔓 The deal, revealed: seed <code>{seed}</code>, salt <code>{salt}</code> (fingerprint"
            " <code>{fingerprint}</code>). /verify deals again from them and replays every move."
        ).format(seed=revealed.seed, salt=esc(revealed.salt), fingerprint=esc(fingerprint))
    ]


def verdict_text(verdict: Verdict, t: gettext.NullTranslations, language: str) -> str:
    """``/verify``'s answer: a heading, then every check in words."""
    heading = t.gettext("🔍 <b>Game #{id}</b>: its deal and every move, checked").format(id=verdict.game)
    return "\n".join([heading, *(esc(line) for line in verdict_lines(verdict, t, language))])


def not_over_text(exc: NotOverYetError, t: gettext.NullTranslations) -> str:
    """``/verify`` before the end: the seed and salt are still secret."""
    _ = t.gettext
    text = _(
        "⏳ Game #{id} is not over: its deal can be verified only once it is, when its seed and salt are revealed."
    )
    lines = [text.format(id=exc.game_id)]
    if exc.commitment is not None:
        lines.append(
            _("Its fingerprint, to compare then: <code>{fingerprint}</code>").format(fingerprint=esc(exc.commitment))
        )
    return "\n".join(lines)


def verify_help_text(t: gettext.NullTranslations) -> str:
    """``/verify`` where no game was dealt (e.g. in private): what it does, and where to send it."""
    _ = t.gettext
    return "\n".join(
        [
            _(
                "🔍 /verify checks a game that is over: that the deal was fixed before the first move, and that"
                " every move was legal."
            ),
            _(
                "At the start of a game I show a fingerprint of its deal (🔐); at the end I reveal the seed and"
                " salt behind it (🔓)."
            ),
            _("Send /verify in the chat where the game was played, once it is over (/verify 12 for game #12)."),
        ]
    )
