"""Checking a finished game against the commitment published at its deal: the fingerprint again
from game number, seed and salt; the deal again from the seed with the game's rules; every move of
the log again through the engine (each legal, each giving the events recorded); and the end as
recorded. The checks are plain values, said in words by :mod:`shithead_bot.verify`; they run on an
export, so ``/verify`` (from the database) and ``shithead-bot verify FILE`` (offline) agree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

import engine
from engine import AnyState, EngineError, rules_from_dict
from persistence import repo
from shithead_bot.service.archive import OVER, export_game
from shithead_bot.service.commitment import fingerprint
from shithead_bot.service.errors import GameNotFoundError, NotOverYetError
from shithead_bot.service.status import GameStatus
from shithead_bot.service.unit import Core


@dataclass(frozen=True)
class FingerprintCheck:
    """SHA-256 of game number, seed and salt against the commitment (None: the game has none)."""

    computed: str | None
    committed: str | None

    @property
    def ok(self) -> bool:
        return self.committed is not None and self.computed == self.committed


@dataclass(frozen=True)
class DealCheck:
    """The deal again from the seed; ``problem``: why the rules and seats make no game;
    ``committed``: False when seed and salt do not give the published fingerprint, so the deal
    dealt again here is not shown to be the one the players got."""

    seed: int
    players: int
    rules: str
    problem: str | None = None
    committed: bool = True

    @property
    def ok(self) -> bool:
        return self.problem is None and self.committed


@dataclass(frozen=True)
class MovesCheck:
    """The move log through the engine. On the first failure: which move, and why (``reason``: the
    engine's refusal; None: the move was legal but gave other events than recorded)."""

    count: int
    with_events: bool  # the export recorded each move's events, and they were compared
    bad_seq: int | None = None
    bad_seat: int | None = None
    bad_move: str = ""
    reason: str | None = None
    expected_seq: int | None = None  # the log skips or repeats a number here
    unchecked: int = 0  # moves after the failure

    @property
    def ok(self) -> bool:
        return self.bad_seq is None


@dataclass(frozen=True)
class EndCheck:
    """How the replayed moves end against how the game was recorded to end."""

    status: GameStatus  # as recorded: finished or aborted
    replayed_over: bool
    replayed_places: tuple[int, ...] | None
    recorded_places: tuple[int | None, ...]
    replayed_loser: int | None
    recorded_loser: int | None
    moves: int

    @property
    def ok(self) -> bool:
        if self.status == GameStatus.ABORTED:
            return not self.replayed_over
        return (
            self.replayed_over
            and self.replayed_places == self.recorded_places
            and self.replayed_loser == self.recorded_loser
        )


Check = FingerprintCheck | DealCheck | MovesCheck | EndCheck


@dataclass(frozen=True)
class Verdict:
    """Every check of one game, in order; ``ok`` when all of them match."""

    game: int
    kind: str
    names: tuple[str, ...]
    seed: int
    salt: str | None
    commitment: str | None
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)


def check_export(data: dict[str, Any]) -> Verdict:
    """Check an export of a game that is over (``seed`` present). Malformed data raises KeyError,
    TypeError or ValueError."""
    game_id, seed = int(data["game"]), int(data["seed"])
    salt = data.get("salt")
    commitment = data.get("commitment")
    names = tuple(str(p["name"]) for p in data["players"])
    computed = fingerprint(game_id, seed, str(salt)) if salt is not None else None
    printed = FingerprintCheck(computed, str(commitment) if commitment is not None else None)
    checks: list[Check] = [printed]
    committed = printed.ok or printed.committed is None  # a game dealt before commitments: nothing to tell
    verdict = Verdict(
        game=game_id, kind=str(data["kind"]), names=names, seed=seed, salt=salt, commitment=commitment, checks=()
    )
    try:
        rules = rules_from_dict(verdict.kind, data["rules"])
        state = engine.new_game(verdict.kind, rules, len(names), seed, int(data.get("dealer", 0)))
    except EngineError as exc:
        checks.append(DealCheck(seed, len(names), str(data["rules"].get("name", "")), str(exc)))
        return replace(verdict, checks=tuple(checks))
    checks.append(DealCheck(seed, len(names), rules.name, committed=committed))
    moves = checks_moves(state, data["moves"])
    checks.append(moves)
    if moves.ok:
        checks.append(check_end(state, data, moves.count))
    return replace(verdict, checks=tuple(checks))


def checks_moves(state: AnyState, moves: list[dict[str, Any]]) -> MovesCheck:
    """Apply every move in order; stop at the first one out of sequence, refused, or giving other
    events than recorded."""
    with_events = bool(moves) and all("events" in m for m in moves)
    for index, move in enumerate(moves):
        seq, seat, text = int(move["seq"]), int(move["seat"]), str(move["move"])
        bad = MovesCheck(len(moves), with_events, seq, seat, text, unchecked=len(moves) - index - 1)
        if seq != index + 1:
            return replace(bad, expected_seq=index + 1)
        try:
            events = state.apply(seat, text)
        except EngineError as exc:
            return replace(bad, reason=str(exc))
        if with_events and _plain([engine.event_to_dict(e) for e in events]) != _plain(move["events"]):
            return bad
    return MovesCheck(len(moves), with_events)


def _plain(value: Any) -> Any:
    """JSON's view of a value (tuples become lists), so stored and replayed events compare."""
    return json.loads(json.dumps(value, sort_keys=True))


def check_end(state: AnyState, data: dict[str, Any], moves: int) -> EndCheck:
    status = GameStatus(str(data["status"]))
    outcome = state.outcome
    recorded = tuple(p.get("place") for p in data["players"])
    losers = [int(p["seat"]) for p in data["players"] if p.get("loser")]
    return EndCheck(
        status,
        state.is_over,
        tuple(outcome.places) if outcome is not None else None,
        recorded,
        outcome.loser if outcome is not None else None,
        losers[0] if losers else None,
        moves,
    )


async def verify_game(core: Core, chat_id: int, game_id: int | None = None) -> Verdict:
    """``/verify``: the chat's game (the one numbered, or its latest dealt one) checked, once it is
    over. Before the end, :class:`NotOverYetError` (the seed and salt are still secret); a game of
    another chat, or never dealt, is not found."""
    async with core.sessions() as session:
        if game_id is None:
            game = await repo.last_dealt_game_in_chat(session=session, chat_id=chat_id)
        else:
            game = await repo.get_game(session=session, game_id=game_id)
        if game is None or game.chat_id != chat_id or game.started_at is None:
            raise GameNotFoundError(f"no game {game_id or ''} dealt in chat {chat_id}".replace("  ", " "))
        found, status, commitment = game.id or 0, GameStatus(game.status), game.deal_commitment
    if status not in OVER:
        raise NotOverYetError(found, commitment)
    return check_export(await export_game(core, found))
