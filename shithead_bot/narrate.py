"""Engine events told in words: "Ann played Q♥ Q♠ — four Queens, the pile burns!".

Events carry only public facts, so every line here may be shown to the whole table. Used by the
terminal game and the Telegram table message alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine import Card, Outcome, rank_text
from engine import events as ev
from engine.rules import NeighborRules, Rules
from shithead_bot.i18n import translations

CardFormat = Callable[[Card], str]


def plain_card(card: Card) -> str:
    return str(card)


def cards_text(cards: Sequence[Card], fmt: CardFormat = plain_card) -> str:
    return " ".join(fmt(c) for c in cards)


def a_rank(rank: int, language: str = "en") -> str:
    """A rank with its article: "an 8", "an A", "a 3" (French: "un 8")."""
    if language == "fr":
        return f"un {rank_text(rank)}"
    return f"{'an' if rank in (8, 14) else 'a'} {rank_text(rank)}"


def ordinal(place: int, language: str = "en", *, feminine: bool = False) -> str:
    """1st, 2nd, 3rd… (French: 1er, 2e, 3e…; ``feminine``, before a feminine noun such as *place*: 1re)."""
    if language == "fr":
        return ("1re" if feminine else "1er") if place == 1 else f"{place}e"
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


class Narrator:
    """Turns events into short sentences for one language."""

    def __init__(
        self,
        names: Sequence[str],
        rules: Rules | NeighborRules,
        language: str = "en",
        card_format: CardFormat = plain_card,
        escape: Callable[[str], str] = str,
        me: int | None = None,
    ) -> None:
        """``escape`` is applied to every text that comes from people (names, a house rule's loser
        title) — ``html.escape`` for Telegram's HTML messages. ``me``: the seat of the reader, whose
        own moves are told in the second person ("You played 4♦")."""
        self.me = me
        self.escape = escape
        self.names = [escape(name) for name in names]
        self.rules = rules
        self.fmt = card_format
        self.language = language
        t = translations(language)
        self._ = t.gettext
        self._n = t.ngettext

    def name(self, seat: int | None) -> str:
        return self._("the deck") if seat is None else self.names[seat]

    def is_me(self, seat: int | None) -> bool:
        return seat is not None and seat == self.me

    def lines(self, events: Sequence[ev.Event]) -> list[str]:
        """One line per event worth telling; a burn joins the play that caused it."""
        out: list[str] = []
        for event in events:
            if isinstance(event, ev.Burned) and out:
                out[-1] = f"{out[-1]} — {self.burn(event)}"
                continue
            line = self.line(event)
            if line:
                out.append(line)
        return out

    def burn(self, event: ev.Burned) -> str:
        _ = self._
        if event.four:
            return _("four of a kind, the pile burns! 🔥")
        return _("the pile burns! 🔥")

    def line(self, event: ev.Event) -> str | None:
        handler = getattr(self, f"_{type(event).__name__}", None)
        return handler(event) if handler else None

    # ----------------------------------------------------------------- Shithead

    def _Swapped(self, e: ev.Swapped) -> str:
        if self.is_me(e.seat):
            return self._("You put {card} face-up and took {other} into hand").format(
                card=self.fmt(e.to_face_up), other=self.fmt(e.to_hand)
            )
        return self._("{name} put {card} face-up and took {other} into hand").format(
            name=self.name(e.seat), card=self.fmt(e.to_face_up), other=self.fmt(e.to_hand)
        )

    def _Readied(self, e: ev.Readied) -> str:
        if self.is_me(e.seat):
            return self._("You are ready")
        return self._("{name} is ready").format(name=self.name(e.seat))

    def _PlayStarted(self, e: ev.PlayStarted) -> str:
        _ = self._
        if e.rank is None:
            return _("You start") if self.is_me(e.seat) else _("{name} starts").format(name=self.name(e.seat))
        rank = a_rank(e.rank, self.language)
        if self.is_me(e.seat):
            return _("You start with {rank}").format(rank=rank)
        return _("{name} starts with {rank}").format(name=self.name(e.seat), rank=rank)

    def _Played(self, e: ev.Played) -> str:
        _ = self._
        cards = cards_text(e.cards, self.fmt)
        if self.is_me(e.seat):
            return self._my_play(e.source, cards)
        name = self.name(e.seat)
        if e.source == "d":
            return _("{name} turned over a face-down card: {cards}").format(name=name, cards=cards)
        if e.source == "g":
            return _("{name} played the top of the stock blind: {cards}").format(name=name, cards=cards)
        if e.source == "u":
            return _("{name} played {cards} from face-up").format(name=name, cards=cards)
        return _("{name} played {cards}").format(name=name, cards=cards)

    def _my_play(self, source: str, cards: str) -> str:
        _ = self._
        if source == "d":
            return _("You turned over a face-down card: {cards}").format(cards=cards)
        if source == "g":
            return _("You played the top of the stock blind: {cards}").format(cards=cards)
        if source == "u":
            return _("You played {cards} from face-up").format(cards=cards)
        return _("You played {cards}").format(cards=cards)

    def _BlindFailed(self, e: ev.BlindFailed) -> str:
        where = self._("face-down card") if e.source == "d" else self._("top of the stock")
        if self.is_me(e.seat):
            return self._("You turned over the {where}: {card} — it does not fit").format(
                where=where, card=self.fmt(e.card)
            )
        return self._("{name} turned over the {where}: {card} — it does not fit").format(
            name=self.name(e.seat), where=where, card=self.fmt(e.card)
        )

    def _Burned(self, e: ev.Burned) -> str:
        return self.burn(e)

    def _PickedUp(self, e: ev.PickedUp) -> str:
        if self.is_me(e.seat):
            text = self._n("You picked up the pile ({n} card)", "You picked up the pile ({n} cards)", e.amount).format(
                n=e.amount
            )
            if e.face_up is not None:
                text += self._(" and took your face-up {card} along").format(card=self.fmt(e.face_up))
            return text
        text = self._n(
            "{name} picked up the pile ({n} card)", "{name} picked up the pile ({n} cards)", e.amount
        ).format(name=self.name(e.seat), n=e.amount)
        if e.face_up is not None:
            text += self._(" and took face-up {card} along").format(card=self.fmt(e.face_up))
        return text

    def _Skipped(self, e: ev.Skipped) -> str:
        if self.me in e.seats:
            others = [self.name(s) for s in e.seats if s != self.me]
            if not others:
                return self._("You are skipped")
            return self._("{names} and you are skipped").format(names=", ".join(others))
        return self._("{names} skipped").format(names=", ".join(self.name(s) for s in e.seats))

    def _Reversed(self, e: ev.Reversed) -> str:
        return self._("the direction of play is reversed")

    def _WentOut(self, e: ev.WentOut) -> str:
        if self.is_me(e.seat):
            return self._("You are out — {place} place!").format(place=ordinal(e.place, self.language, feminine=True))
        return self._("{name} is out — {place} place!").format(
            name=self.name(e.seat), place=ordinal(e.place, self.language, feminine=True)
        )

    def _Forfeited(self, e: ev.Forfeited) -> str:
        if self.is_me(e.seat):
            return self._("You left the game")
        return self._("{name} left the game").format(name=self.name(e.seat))

    def _Looped(self, e: ev.Looped) -> str:
        return self._n(
            "every move was forced and the game came back to where it was {n} move ago: it ends here",
            "every move was forced and the game came back to where it was {n} moves ago: it ends here",
            e.moves,
        ).format(n=e.moves)

    def _GameOver(self, e: ev.GameOver) -> str:
        return self.result(Outcome(e.places, e.winners, e.loser))

    def result(self, outcome: Outcome) -> str:
        """The end in one line: the loser in the preset's words, or Neighbor's winner(s)."""
        _ = self._
        if isinstance(self.rules, NeighborRules):
            winners = [self.name(s) for s in outcome.winners]
            if len(winners) == 1:
                return _("You win!") if self.is_me(outcome.winners[0]) else _("{name} wins!").format(name=winners[0])
            if self.me in outcome.winners:
                others = [self.name(s) for s in outcome.winners if s != self.me]
                return _("You share the win with {names}!").format(names=", ".join(others))
            return _("{names} share the win!").format(names=", ".join(winners))
        if outcome.loser is None:
            return _("Game over — {name} wins!").format(name=self.name(outcome.winners[0]))
        title = self.escape(self.rules.loser_title)
        if self.is_me(outcome.loser):
            return _("You are the {title}! 💩").format(title=title)
        return _("{name} is the {title}! 💩").format(name=self.name(outcome.loser), title=title)

    # ----------------------------------------------------------------- Neighbor

    def _HandDealt(self, e: ev.HandDealt) -> str:
        if self.is_me(e.dealer):
            return self._("Hand {n}: you deal").format(n=e.hand)
        return self._("Hand {n}: {name} deals").format(n=e.hand, name=self.name(e.dealer))

    def _Kept(self, e: ev.Kept) -> str:
        if self.is_me(e.seat):
            return self._("You keep")
        return self._("{name} keeps").format(name=self.name(e.seat))

    def _Traded(self, e: ev.Traded) -> str:
        _ = self._
        if self.is_me(e.seat):
            if e.neighbour is None:
                return _("You trade with the deck")
            return _("You swap with {other}").format(other=self.name(e.neighbour))
        if self.is_me(e.neighbour):
            return _("{name} swaps with you").format(name=self.name(e.seat))
        if e.neighbour is None:
            return self._("{name} trades with the deck").format(name=self.name(e.seat))
        return self._("{name} swaps with {other}").format(name=self.name(e.seat), other=self.name(e.neighbour))

    def _Blocked(self, e: ev.Blocked) -> str:
        _, king = self._, self.fmt(e.king)
        if self.is_me(e.seat):
            if e.neighbour is None:
                return _("the deck blocks you with {card}!").format(card=king)
            return _("{other} blocks you with {card}!").format(other=self.name(e.neighbour), card=king)
        if self.is_me(e.neighbour):
            return _("You block {name} with {card}!").format(name=self.name(e.seat), card=king)
        if e.neighbour is None:
            return self._("the deck blocks {name} with {card}!").format(name=self.name(e.seat), card=self.fmt(e.king))
        return self._("{other} blocks {name} with {card}!").format(
            other=self.name(e.neighbour), name=self.name(e.seat), card=self.fmt(e.king)
        )

    def _Revealed(self, e: ev.Revealed) -> str:
        shown = [f"{self.name(s)} {self.fmt(c)}" for s, c in enumerate(e.cards) if c is not None]
        return self._("Cards: {cards}").format(cards=", ".join(shown))

    def _LifeLost(self, e: ev.LifeLost) -> str:
        if self.is_me(e.seat):
            return self._n("You lose a life ({n} left)", "You lose a life ({n} left)", e.lives).format(n=e.lives)
        return self._n("{name} loses a life ({n} left)", "{name} loses a life ({n} left)", e.lives).format(
            name=self.name(e.seat), n=e.lives
        )

    def _Eliminated(self, e: ev.Eliminated) -> str:
        if self.is_me(e.seat):
            return self._("You are out of lives")
        return self._("{name} is out of lives").format(name=self.name(e.seat))

    def _HandVoided(self, e: ev.HandVoided) -> str:
        return self._("the hand is dealt again")
