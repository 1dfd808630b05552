"""Rules as data (RULES.md §1.11 and Part 2).

A preset is a named :class:`Rules` value; a house rule is the same value with a field changed.
Behaviour always looks the rule up, never the preset's name.

Decided here: on a *lower* card, another rank whose power is *lower* and not wild (possible only as
a house rule with two lower ranks) is played by value like a plain card (RULES.md §1.6 names plain,
skip and reverse only).

>>> r = PRESETS["classic"].with_rule("four_burns", "on")
>>> r.power(7), r.four_burns, r.lowest_plain_rank
(<Power.LOWER: 'lower'>, True, 3)
>>> sorted(r.house_rules())
['four_burns']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from functools import lru_cache
from typing import Any, TypeVar, cast

from engine.cards import RANK_TEXTS, RANKS, parse_rank
from engine.errors import RulesError
from engine.frozen import Frozen


class Power(StrEnum):
    """What a rank does besides its value (RULES.md §1.7)."""

    RESET = "reset"
    INVISIBLE = "invisible"
    BURN = "burn"
    LOWER = "lower"
    SKIP = "skip"
    REVERSE = "reverse"


WILD_POWERS = frozenset({Power.RESET, Power.INVISIBLE, Power.BURN})
TOGGLES: tuple[str, ...] = (
    "lower_is_wild",
    "burn_on_lower",
    "four_burns",
    "pickup_then_play",
    "faceup_pickup_takes_one",
    "may_pickup_anytime",
    "stock_gamble",
)
_TRUE = {"on", "true", "yes", "1", "y"}
_FALSE = {"off", "false", "no", "0", "n"}
_PLAIN = {"plain", "none", "-", ""}


def _parse_bool(key: str, value: str | bool) -> bool:
    if isinstance(value, bool):
        return value
    text = value.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise RulesError(f"{key}={value!r}: expected on or off")


def _normalise_powers(
    powers: Mapping[int, Power] | Iterable[tuple[int, Power]],
) -> tuple[tuple[int, Power], ...]:
    items = powers.items() if isinstance(powers, Mapping) else powers
    result: dict[int, Power] = {}
    for rank, power in items:
        if rank not in RANK_TEXTS:
            raise RulesError(f"{rank!r} is not a rank")
        result[rank] = Power(power)
    return tuple(sorted(result.items()))


@dataclass(frozen=True)
class Rules(Frozen):
    """Shithead rules: a power per rank plus toggles (RULES.md §1.11).

    ``name`` is the preset this value started from; it is shown to people and never consulted by
    the rules themselves.
    """

    powers: tuple[tuple[int, Power], ...]
    lower_is_wild: bool = False
    burn_on_lower: bool = True
    four_burns: bool = True
    pickup_then_play: bool = False
    faceup_pickup_takes_one: bool = False
    may_pickup_anytime: bool = False
    stock_gamble: bool = False
    decks: int = 1
    loser_title: str = "Shithead"
    name: str = "custom"

    def __post_init__(self) -> None:
        object.__setattr__(self, "powers", _normalise_powers(self.powers))
        if self.decks not in (1, 2):
            raise RulesError(f"decks={self.decks}: one or two decks")

    def power(self, rank: int) -> Power | None:
        """The power of a rank, or None for a plain rank."""
        for r, p in self.powers:
            if r == rank:
                return p
        return None

    @property
    def lowest_plain_rank(self) -> int | None:
        """The rank the "who starts" search begins with (RULES.md §1.3)."""
        plain = self.plain_ranks
        return plain[0] if plain else None

    @property
    def plain_ranks(self) -> tuple[int, ...]:
        powered = {r for r, _ in self.powers}
        return tuple(r for r in RANKS if r not in powered)

    @property
    def min_seats(self) -> int:
        return 2

    @property
    def max_seats(self) -> int:
        """Five players with one deck, ten with two (RULES.md §1.1)."""
        return 5 if self.decks == 1 else 10

    def with_rule(self, key: str, value: str | bool | int) -> Rules:
        """A copy with one house rule changed: a toggle, ``decks``, ``loser_title`` or a rank's power.

        Rank keys take a power name or ``plain``: ``with_rule("8", "skip")``.
        """
        key = key.strip()
        if key in TOGGLES:
            return replace(self, **{key: _parse_bool(key, value)})  # type: ignore[arg-type]
        if key == "decks":
            try:
                return replace(self, decks=int(value))
            except ValueError as exc:
                raise RulesError(f"decks={value!r}: one or two decks") from exc
        if key == "loser_title":
            return replace(self, loser_title=_title(str(value)))
        try:
            rank = parse_rank(key)
        except ValueError as exc:
            raise RulesError(f"unknown house rule {key!r}") from exc
        return replace(self, powers=self._powers_with(rank, str(value)))

    def _powers_with(self, rank: int, value: str) -> tuple[tuple[int, Power], ...]:
        powers = dict(self.powers)
        text = value.strip().lower()
        if text in _PLAIN:
            powers.pop(rank, None)
        else:
            try:
                powers[rank] = Power(text)
            except ValueError as exc:
                names = ", ".join(p.value for p in Power)
                raise RulesError(f"{RANK_TEXTS[rank]}={value!r}: expected plain or one of {names}") from exc
        return _normalise_powers(powers)

    def with_rules(self, changes: Mapping[str, str | bool | int]) -> Rules:
        """A copy with several house rules changed (see :meth:`with_rule`)."""
        return _with_rules(self, changes)

    def house_rules(self) -> dict[str, str]:
        """What differs from the preset this value is named after, as ``KEY: VALUE`` texts."""
        base = PRESETS.get(self.name)
        if base is None:
            return {}
        diff: dict[str, str] = {}
        for f in fields(self):
            if f.name in ("powers", "name"):
                continue
            mine, theirs = getattr(self, f.name), getattr(base, f.name)
            if mine != theirs:
                diff[f.name] = _value_text(mine)
        for rank in RANKS:
            if self.power(rank) != base.power(rank):
                p = self.power(rank)
                diff[RANK_TEXTS[rank]] = p.value if p else "plain"
        return diff

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "powers"}
        data["powers"] = {RANK_TEXTS[r]: p.value for r, p in self.powers}
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        try:
            powers = {parse_rank(k): Power(v) for k, v in data["powers"].items()}
            known = {f.name for f in fields(cls)} - {"powers"}
            kwargs = {k: v for k, v in data.items() if k in known}
            return cls(powers=tuple(powers.items()), **kwargs)
        except (KeyError, ValueError, TypeError, AttributeError) as exc:
            raise RulesError(f"not a rules value: {exc}") from exc

    def matters(self, toggle: str) -> bool:
        """Can this toggle change anything under these powers? The lower card's toggles need a
        *lower* rank, and ``burn_on_lower`` a *burn* rank too."""
        has = {p for _, p in self.powers}
        if toggle == "lower_is_wild":
            return Power.LOWER in has
        if toggle == "burn_on_lower":
            return Power.LOWER in has and Power.BURN in has
        return True

    def ranks_with(self, power: Power) -> tuple[int, ...]:
        return tuple(r for r, p in self.powers if p is power)

    def describe(self) -> str:
        """One line: the powers and the toggles that are on and matter, e.g. for a terminal title."""
        parts = [f"{RANK_TEXTS[r]} {p.value}" for r, p in self.powers]
        on = [t.replace("_", " ") for t in TOGGLES if getattr(self, t) and self.matters(t)]
        if self.decks == 2:
            on.append("two decks")
        return ", ".join(parts + on)


def _title(text: str) -> str:
    """A loser title from a house rule: printable, one line, at most 40 characters."""
    title = " ".join("".join(ch for ch in text if ch.isprintable()).split())[:40]
    if not title:
        raise RulesError("loser_title: give a name, e.g. loser_title=Dishwasher")
    return title


def _value_text(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


PRESETS: dict[str, Rules] = {
    "smelly": Rules(
        powers=((2, Power.RESET), (3, Power.INVISIBLE), (10, Power.BURN)),
        four_burns=True,
        pickup_then_play=True,
        faceup_pickup_takes_one=True,
        loser_title="ShitSmelly Head",
        name="smelly",
    ),
    "classic": Rules(
        powers=((2, Power.RESET), (7, Power.LOWER), (8, Power.INVISIBLE), (10, Power.BURN)),
        lower_is_wild=False,
        burn_on_lower=False,
        four_burns=False,
        name="classic",
    ),
    "free": Rules(
        powers=((2, Power.RESET), (5, Power.LOWER), (10, Power.BURN)),
        lower_is_wild=True,
        burn_on_lower=True,
        four_burns=True,
        may_pickup_anytime=True,
        stock_gamble=True,
        name="free",
    ),
    "standard": Rules(
        powers=((2, Power.RESET), (10, Power.BURN)),
        four_burns=True,
        name="standard",
    ),
}
DEFAULT_PRESET = "standard"


def preset(name: str) -> Rules:
    """The preset of that name; raises RulesError listing the known ones."""
    try:
        return PRESETS[name.strip().lower()]
    except KeyError:
        raise RulesError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}") from None


@dataclass(frozen=True)
class NeighborRules(Frozen):
    """Shit On Your Neighbor (RULES.md Part 2): the number of lives each player starts with."""

    lives: int = 3
    name: str = field(default="neighbor")

    def __post_init__(self) -> None:
        if self.lives not in (3, 4):
            raise RulesError(f"lives={self.lives}: three or four")

    @property
    def min_seats(self) -> int:
        return 2

    @property
    def max_seats(self) -> int:
        return 20

    def with_rule(self, key: str, value: str | bool | int) -> NeighborRules:
        if key.strip() != "lives":
            raise RulesError(f"unknown house rule {key!r} (Neighbor has: lives)")
        try:
            return replace(self, lives=int(value))
        except ValueError as exc:
            raise RulesError(f"lives={value!r}: three or four") from exc

    def with_rules(self, changes: Mapping[str, str | bool | int]) -> NeighborRules:
        return _with_rules(self, changes)

    def house_rules(self) -> dict[str, str]:
        return {} if self.lives == 3 else {"lives": str(self.lives)}

    def to_dict(self) -> dict[str, Any]:
        return {"lives": self.lives, "name": self.name}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NeighborRules:
        try:
            return cls(lives=int(data.get("lives", 3)))
        except (TypeError, ValueError) as exc:
            raise RulesError(f"not a Neighbor rules value: {exc}") from exc

    def describe(self) -> str:
        return f"{self.lives} lives, Ace low, King blocks"


_R = TypeVar("_R", Rules, NeighborRules)


def _with_rules(rules: _R, changes: Mapping[str, str | bool | int]) -> _R:
    """``rules`` with each of ``changes`` made in turn by its ``with_rule`` (either game's rules)."""
    changed: Any = rules  # each with_rule returns its own class, which mypy cannot tell of _R
    for key, value in changes.items():
        changed = changed.with_rule(key, value)
    return cast(_R, changed)


@dataclass(frozen=True)
class CompiledRules(Frozen):
    """Lookup tables derived once from a :class:`Rules` value, indexed by rank (0 = no card)."""

    power: tuple[Power | None, ...]
    invisible: tuple[bool, ...]
    burns: tuple[bool, ...]
    skips: tuple[bool, ...]
    reverses: tuple[bool, ...]
    plain_move: tuple[bool, ...]  # neither skip nor reverse: the turn simply passes on
    legal: tuple[tuple[bool, ...], ...]
    legal_ranks: tuple[tuple[int, ...], ...]
    legal_mask: tuple[int, ...]  # bit r set when rank r is legal on that top
    start_ranks: tuple[int, ...]
    four_burns: bool  # Rules.four_burns, here beside the tables that the burn check reads


def _is_wild(rules: Rules, power: Power | None) -> bool:
    if power is None:
        return False
    if power is Power.LOWER:
        return rules.lower_is_wild
    return power in WILD_POWERS


def _legal_on(rules: Rules, top: int, rank: int) -> bool:
    """RULES.md §1.6: is ``rank`` legal when the effective top is ``top`` (0 = none)?"""
    if top == 0:
        return True
    top_power = rules.power(top)
    power = rules.power(rank)
    if top_power is Power.RESET:
        return True
    if top_power is Power.LOWER:
        if rank == top:
            return True
        if _is_wild(rules, power):
            return power is not Power.BURN or rules.burn_on_lower
        return rank <= top
    if _is_wild(rules, power):
        return True
    return rank >= top


@lru_cache(maxsize=256)
def compile_rules(rules: Rules) -> CompiledRules:
    """The lookup tables of a rules value (cached: rules are immutable)."""
    power = tuple(rules.power(r) if r >= 2 else None for r in range(15))
    legal = tuple(tuple(r >= 2 and _legal_on(rules, top, r) for r in range(15)) for top in range(15))
    return CompiledRules(
        power=power,
        invisible=tuple(p is Power.INVISIBLE for p in power),
        burns=tuple(p is Power.BURN for p in power),
        skips=tuple(p is Power.SKIP for p in power),
        reverses=tuple(p is Power.REVERSE for p in power),
        plain_move=tuple(p is not Power.SKIP and p is not Power.REVERSE for p in power),
        legal=legal,
        legal_ranks=tuple(tuple(r for r in RANKS if row[r]) for row in legal),
        legal_mask=tuple(sum(1 << r for r in RANKS if row[r]) for row in legal),
        start_ranks=rules.plain_ranks,
        four_burns=rules.four_burns,
    )
