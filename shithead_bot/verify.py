"""A :class:`~shithead_bot.service.Verdict` in words, one line per check (✅ or ❌) and a last line
that says plainly whether everything matches — for ``shithead-bot verify FILE`` (English) and for
``/verify`` in a chat (the reader's language). Plain text: a Telegram renderer escapes it."""

from __future__ import annotations

import gettext
from collections.abc import Sequence

from shithead_bot.i18n import translations
from shithead_bot.narrate import ordinal
from shithead_bot.service import GameStatus
from shithead_bot.service.verification import Check, DealCheck, EndCheck, FingerprintCheck, MovesCheck, Verdict

OK, BAD = "✅", "❌"


def verdict_lines(verdict: Verdict, t: gettext.NullTranslations | None = None, language: str = "en") -> list[str]:
    """Every check in words, then the verdict."""
    t = t or translations(language)
    lines = [_line(verdict, check, t, language) for check in verdict.checks]
    lines += _more(verdict, t)
    _ = t.gettext
    if verdict.ok:
        matches = _("Everything matches: the deal was fixed before the first move, and every move was legal.")
        lines.append(f"{OK} {matches}")
    else:
        lines.append(f"{BAD} " + _("Something does not match: see the lines marked ❌."))
    return lines


def _line(verdict: Verdict, check: Check, t: gettext.NullTranslations, language: str) -> str:
    mark = OK if check.ok else BAD
    if isinstance(check, FingerprintCheck):
        return f"{mark} {_fingerprint(verdict, check, t)}"
    if isinstance(check, DealCheck):
        return f"{mark} {_deal(check, t)}"
    if isinstance(check, MovesCheck):
        return f"{mark} {_moves(verdict, check, t)}"
    return f"{mark} {_end(verdict, check, t, language)}"


def _fingerprint(verdict: Verdict, check: FingerprintCheck, t: gettext.NullTranslations) -> str:
    _ = t.gettext
    if check.committed is None:
        return _("Commitment: none was published for game {id} (dealt before the bot published them).").format(
            id=verdict.game
        )
    if check.computed is None:
        return _("Commitment: {committed} was published at the start, but the export has no salt.").format(
            committed=check.committed
        )
    args = {"id": verdict.game, "seed": verdict.seed, "salt": verdict.salt, "fp": check.computed}
    if check.ok:
        return _(
            "Commitment: SHA-256 of game {id}, seed {seed} and salt {salt} begins {fp}, the fingerprint published"
            " at the start."
        ).format(**args)
    return _(
        "Commitment: SHA-256 of game {id}, seed {seed} and salt {salt} begins {fp}, but the fingerprint"
        " published at the start was {committed}: this seed or salt is not the one committed to."
    ).format(committed=check.committed, **args)


def _deal(check: DealCheck, t: gettext.NullTranslations) -> str:
    _ = t.gettext
    if check.problem is not None:
        return _("Deal: the game's rules and players make no game ({problem}).").format(problem=check.problem)
    players = t.ngettext("{n} player", "{n} players", check.players).format(n=check.players)
    if not check.committed:
        return _(
            "Deal: dealt again from seed {seed} with the game's rules ({rules}, {players}), but seed and salt do not"
            " give the fingerprint published at the start: nothing shows this is the deal the players got."
        ).format(seed=check.seed, rules=check.rules, players=players)
    return _("Deal: dealt again from seed {seed} with the game's rules ({rules}, {players}).").format(
        seed=check.seed, rules=check.rules, players=players
    )


def _moves(verdict: Verdict, check: MovesCheck, t: gettext.NullTranslations) -> str:
    _ = t.gettext
    n = check.count
    if check.ok and n == 0:
        return _("Moves: no move was made.")
    if check.ok and check.with_events:
        return t.ngettext(
            "Moves: the {n} move is legal and gives the events recorded.",
            "Moves: all {n} moves are legal, and each gives the events recorded.",
            n,
        ).format(n=n)
    if check.ok:
        return t.ngettext(
            "Moves: the {n} move is legal (the export records no events to compare).",
            "Moves: all {n} moves are legal (the export records no events to compare).",
            n,
        ).format(n=n)
    seat = check.bad_seat if check.bad_seat is not None else -1
    who = verdict.names[seat] if 0 <= seat < len(verdict.names) else _("seat {n}").format(n=seat)
    args = {"seq": check.bad_seq, "name": who, "move": check.bad_move}
    if check.expected_seq is not None:
        what = _("Moves: the log has move {seq} where move {expected} should be.").format(
            seq=check.bad_seq, expected=check.expected_seq
        )
    elif check.reason is not None:
        reason = check.reason.rstrip(".") + "."  # the engine's refusal, as a sentence
        what = _("Move {seq} ({name}: {move}) is not legal there: {reason}").format(reason=reason, **args)
    else:
        what = _("Move {seq} ({name}: {move}) is legal but gives other events than the ones recorded.").format(**args)
    if check.unchecked:
        what += " " + t.ngettext(
            "The move after it was not checked.", "The {n} moves after it were not checked.", check.unchecked
        ).format(n=check.unchecked)
    return what


def _end(verdict: Verdict, check: EndCheck, t: gettext.NullTranslations, language: str) -> str:
    _ = t.gettext
    if check.status == GameStatus.ABORTED:
        if check.ok:
            return _("End: aborted after move {n}, as recorded; nobody won.").format(n=check.moves)
        return _("End: the moves finish the game, but it is recorded as aborted.")
    if not check.replayed_over or check.replayed_places is None:
        return _("End: the moves do not finish the game, but it is recorded as finished.")
    replayed = _ranking(verdict.names, check.replayed_places, check.replayed_loser, t, language)
    if check.ok:
        return _("Result: {ranking}, as recorded.").format(ranking=replayed)
    recorded = _ranking(verdict.names, check.recorded_places, check.recorded_loser, t, language)
    return _("Result: the moves give {replayed}, but the game recorded {recorded}.").format(
        replayed=replayed, recorded=recorded
    )


def _ranking(
    names: Sequence[str], places: Sequence[int | None], loser: int | None, t: gettext.NullTranslations, language: str
) -> str:
    """ "1st Ann, 2nd Bob, 3rd Cleo (loser)" — seats from best place to worst."""
    order = sorted(range(len(places)), key=lambda s: (places[s] or len(places) + 1, s))
    parts = []
    for seat in order:
        place = places[seat]
        name = names[seat] if seat < len(names) else "?"
        part = f"{ordinal(place, language)} {name}" if place is not None else f"– {name}"
        parts.append(part + (" " + t.gettext("(loser)") if seat == loser else ""))
    return ", ".join(parts)


def _more(verdict: Verdict, t: gettext.NullTranslations) -> list[str]:
    """What was not checked because an earlier check failed."""
    if any(isinstance(c, EndCheck) for c in verdict.checks):
        return []
    return ["   " + t.gettext("The end of the game was not checked.")]
