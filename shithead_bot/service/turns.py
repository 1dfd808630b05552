"""What happens to a game inside a transaction after moves: the engine applies them, computer seats
answer, the status follows the engine, seats to act get new buttons, the clock restarts, the log
and the notices are written. Every use case that moves a game goes through :func:`apply` and
:func:`settle`."""

from __future__ import annotations

import logging
from datetime import timedelta

import engine
from engine import EngineError, Forfeit, Move, Phase, new_game, rules_from_dict
from engine import events as ev
from shithead_bot.config import Settings
from shithead_bot.service.autoplay import computer_move, computer_seed, next_computer, next_forced, timeout_moves
from shithead_bot.service.commitment import seal
from shithead_bot.service.deadlines import drop_nudges, restart_clock
from shithead_bot.service.errors import MoveRejectedError, TooFewPlayersError
from shithead_bot.service.notices import Announcement, AnnouncePayload, MovedPayload, NoticeKind, TurnPayload
from shithead_bot.service.status import Actor, GameStatus
from shithead_bot.service.thinking import Chain, ThinkFirst
from shithead_bot.service.unit import GameTx

log = logging.getLogger(__name__)

ON_TIMEOUT_MINIMAL, ON_TIMEOUT_STANDIN = "minimal", "standin"  # a chat's on_timeout
AFTER_TIMEOUTS_REMOVE, AFTER_TIMEOUTS_COMPUTER = "remove", "computer"  # a chat's after_timeouts
STAND_IN_CAP = 12  # moves of one seat's timed-out turn, at most (the swap phase: up to six swaps)


def apply(tx: GameTx, seat: int, move: Move | str, actor: Actor) -> list[ev.Event]:
    """One move through the engine (validated: a refusal changes nothing) and into the log."""
    assert tx.state is not None
    try:
        events = tx.state.apply(seat, move)
    except EngineError as exc:
        raise MoveRejectedError(exc) from exc
    tx.game.move_count += 1
    seq = tx.game.move_count
    text = str(move)
    tx.move_rows.append(
        {
            "game_id": tx.game.id,
            "seq": seq,
            "seat": seat,
            "move": text,
            "actor": str(actor),
            "events": [engine.event_to_dict(e) for e in events],
            "created_at": tx.now,
        }
    )
    tx.events.extend((seq, e) for e in events)
    if actor != Actor.COMPUTER:
        tx.moved.append((seat, seq))
    if actor in (Actor.AUTOPLAY, Actor.STANDIN):  # the player's message tells it silently
        tx.autoplayed.add(seq)
    if isinstance(move, Forfeit) or text == "f":
        tx.seat(seat).forfeited = True
    return events


def play_computers(tx: GameTx, settings: Settings) -> None:
    """Computer seats act, stood-in seats too (their player is away, or timed out too often: the
    chat's stand-in level plays them, from their seat's view only), and humans' forced moves are
    made for them (as each player lets the bot), until a human has a choice to make or the game
    ends (capped against bugs).

    A decision not known yet that would take long raises :class:`ThinkFirst` (the use case runs
    again once it is thought out, off the event loop; see :mod:`thinking`) — or, where the use case
    hands the chain back (``tx.hand_back``: a press, answered first), stops there: the computers
    play on in a use case of their own (:func:`~shithead_bot.service.play.play_on`)."""
    state = tx.state
    assert state is not None
    levels = tx.chain_levels()
    spent = 0.0
    for _ in range(settings.computer_move_cap):
        found = next_computer(state, levels)
        if found is None:
            forced = next_forced(state, levels, tx.autoplay)
            if forced is None:
                return
            apply(tx, forced[0], forced[1], Actor.AUTOPLAY)
            continue
        seat, level = found
        seed = computer_seed(tx.game.seed, tx.game.move_count)
        if tx.thinker is None:
            move: Move | None = computer_move(state, seat, level, seed)
        else:
            move, seconds = tx.thinker.decide(state, seat, level, seed, spent)
            spent += seconds
        if move is None and tx.hand_back:
            tx.computers_pending = True
            return
        if move is None:
            raise ThinkFirst(Chain(state.copy(), levels, tx.game.seed, tx.game.move_count, dict(tx.autoplay)))
        apply(tx, seat, move, Actor.STANDIN if tx.stood_in(seat) else Actor.COMPUTER)
    log.warning("game %s: computer move cap reached; the sweep will carry on", tx.game.id)


def playing_status(tx: GameTx) -> GameStatus:
    assert tx.state is not None
    return GameStatus.SWAPPING if tx.state.phase is Phase.SWAP else GameStatus.PLAYING


def settle(tx: GameTx, settings: Settings, *, fresh_keyboards: bool = False) -> None:
    """After moves: computers answer, the status follows the engine, and notices are written."""
    state = tx.state
    assert state is not None
    status_before = tx.status
    if status_before != GameStatus.PAUSED:  # a paused game waits, computers too
        play_computers(tx, settings)
    tx.game.snapshot = state.to_dict()
    drop_nudges(tx, keep=set() if state.is_over else set(state.seats_to_act()) - {seat for seat, _ in tx.moved})
    for seat, seq in tx.moved:
        tx.seat(seat).keyboard_version = tx.game.version
        tx.notify(NoticeKind.MOVED, seat, MovedPayload(seq, tx.game.version, auto=seq in tx.autoplayed))
    announce(tx)
    if state.is_over:
        finish(tx)
    elif status_before == GameStatus.PAUSED:
        tx.game.paused_from = playing_status(tx)
    else:
        tx.game.status = playing_status(tx)
        new_phase = tx.status != status_before
        issue_keyboards(tx, fresh=fresh_keyboards or new_phase)
        if new_phase or (tx.status == GameStatus.PLAYING and table_changed(tx)):
            restart_clock(tx)
    if tx.computers_pending:  # due at once: if nobody carries the chain on, the timer sweep does
        tx.game.due_at = tx.now
    tx.notify(NoticeKind.TABLE)


def chain_waiting(tx: GameTx) -> bool:
    """A computer, or a human's forced move the bot makes, is to act now."""
    state = tx.state
    if state is None or tx.status not in (GameStatus.SWAPPING, GameStatus.PLAYING):
        return False
    levels = tx.chain_levels()
    return next_computer(state, levels) is not None or next_forced(state, levels, tx.autoplay) is not None


def table_changed(tx: GameTx) -> bool:
    """Did anything happen beyond other players leaving? (Then the seat to act needs new buttons.)"""
    return (
        any(not isinstance(e, ev.Forfeited) for _, e in tx.events)
        or tx.state is None
        or (tx.state.to_act != tx.to_act_before)
    )


def issue_keyboards(tx: GameTx, *, fresh: bool) -> None:
    """New buttons for the human(s) who may act now."""
    state = tx.state
    assert state is not None
    movers = {seat for seat, _ in tx.moved}
    for number in state.seats_to_act():
        seat = tx.seat(number)
        if seat.computer_level or tx.stood_in(number):  # a stand-in that must think first: no buttons
            continue
        if state.phase is Phase.SWAP:
            if fresh or number in movers:
                seat.keyboard_version = tx.game.version
                tx.notify(NoticeKind.SWAP, number, TurnPayload(tx.game.version))
        elif fresh or table_changed(tx):
            seat.keyboard_version = tx.game.version
            seat.nudge_at = None  # a new turn message: its delivery decides whether a nudge follows
            tx.notify(NoticeKind.TURN, number, TurnPayload(tx.game.version))


def announce(tx: GameTx) -> None:
    """New group messages for what deserves a notification: someone goes out or leaves."""
    going_on = tx.state is not None and not tx.state.is_over
    for seq, event in tx.events:
        if isinstance(event, ev.WentOut) and going_on:
            tx.announce(AnnouncePayload(Announcement.WENT_OUT, place=event.place, seq=seq), event.seat)
        elif isinstance(event, ev.Eliminated) and going_on:
            tx.announce(AnnouncePayload(Announcement.ELIMINATED, place=event.place, seq=seq), event.seat)
        elif isinstance(event, ev.Forfeited) and event.seat not in tx.removed:
            tx.announce(AnnouncePayload(Announcement.FORFEITED, place=event.place, seq=seq), event.seat)


def finish(tx: GameTx) -> None:
    outcome = tx.state.outcome if tx.state else None
    assert outcome is not None
    for seat in tx.seats:
        seat.place = outcome.places[seat.number]
        seat.is_loser = outcome.loser == seat.number
    close(tx, GameStatus.FINISHED)
    tx.finished = True
    tx.announce(
        AnnouncePayload(
            Announcement.OVER,
            places=tuple(outcome.places),
            winners=tuple(outcome.winners),
            loser=outcome.loser,
            looped=any(isinstance(e, ev.Looped) for _, e in tx.events),
        )
    )
    for seat in tx.seats:  # everybody hears how it ended, those who left included
        if seat.player_id is not None:
            tx.notify(NoticeKind.RESULT, seat.number)


def close(tx: GameTx, status: GameStatus) -> None:
    tx.game.status = status
    tx.game.finished_at = tx.now
    for seat in tx.seats:  # a player's open and recent seats are found by it
        seat.ended_at = tx.now
    tx.game.deadline_at = tx.game.due_at = None
    tx.game.pause_votes = []


def pause(tx: GameTx, settings: Settings) -> None:
    """The game waits: no deadline runs, and the buttons of whoever was to act go (their message
    says the game is paused; resuming gives them new ones, in a new message)."""
    game = tx.game
    game.paused_from, game.status, game.paused_at = game.status, GameStatus.PAUSED, tx.now
    game.pause_votes = []
    game.deadline_at = None
    game.due_at = tx.now + timedelta(days=settings.paused_expiry_days)
    tx.announce(Announcement.PAUSED)
    tx.notify(NoticeKind.TABLE)
    take_keyboards(tx)


def take_keyboards(tx: GameTx) -> None:
    """The seats that had buttons to act get a keyboard version that no button carries: their
    message is rendered again (paused: without buttons), and a press of an old one is stale."""
    state = tx.state
    if state is None:
        return
    kind = NoticeKind.SWAP if state.phase is Phase.SWAP else NoticeKind.TURN
    for number in state.seats_to_act():
        seat = tx.seat(number)
        if seat.player_id is None or seat.computer_level or tx.stood_in(number):
            continue
        seat.keyboard_version = tx.game.version
        tx.notify(kind, number, TurnPayload(tx.game.version))


def time_out(tx: GameTx, number: int) -> None:
    """Act for a seat whose time ran out (the chat's ``on_timeout``: the minimal move, or the
    stand-in's); after too many timeouts in a row (``after_timeouts``) the player is removed, or a
    computer takes the seat for the rest of the game. Either way a missed turn counts — but not the
    swap phase's deadline: a one-off choice, made for the player, that says nothing of whether they
    will play (and the announcement's number is the missed turns that counted)."""
    state = tx.state
    assert state is not None
    seat = tx.seat(number)
    counts = state.phase is not Phase.SWAP
    seat.timeouts_in_row += counts
    limit = tx.chat.max_timeouts
    out = counts and bool(limit) and seat.timeouts_in_row >= limit
    if out and tx.chat.after_timeouts == AFTER_TIMEOUTS_COMPUTER:
        seat.standin = True  # the chain plays the seat from now on (settle follows)
        tx.announce(
            AnnouncePayload(Announcement.TAKEN_OVER, timeouts=seat.timeouts_in_row, level=tx.chat.standin_level), number
        )
        return
    if out:
        tx.removed.add(number)
        apply(tx, number, Forfeit(), Actor.TIMEOUT)
        removed = AnnouncePayload(Announcement.REMOVED, timeouts=seat.timeouts_in_row)
        tx.announce(removed, number)
        tx.notify(NoticeKind.REMOVED, number, removed)  # and the player, in a message that notifies
        return
    # The move log marks these moves "timeout": the table tells who timed out and what was done.
    if tx.chat.on_timeout == ON_TIMEOUT_STANDIN:
        stand_in_for(tx, number)
        return
    for move in timeout_moves(state, number, tx.game.seed + tx.game.move_count):
        apply(tx, number, move, Actor.TIMEOUT)


def stand_in_for(tx: GameTx, number: int) -> None:
    """The stand-in's move(s) for a seat whose time ran out, at the chat's level and from the
    seat's view only: until the seat is no longer to act (the swap phase: its swaps, then ready;
    a burn: the lead after it). The turn that timed out ends with its phase: the first play after
    the swap phase is a new turn, its player's (or, when forced, the bot's autoplay)."""
    state = tx.state
    assert state is not None
    phase = state.phase
    for _ in range(STAND_IN_CAP):
        if state.is_over or state.phase is not phase or number not in state.seats_to_act():
            return
        seed = computer_seed(tx.game.seed, tx.game.move_count)
        apply(tx, number, computer_move(state, number, tx.chat.standin_level, seed), Actor.TIMEOUT)


def time_out_everyone(tx: GameTx) -> None:
    """Every human who was to act let the deadline pass (a stood-in seat is never late)."""
    for number in list(tx.state.seats_to_act() if tx.state else []):
        if not tx.seat(number).computer_level and not tx.stood_in(number):
            time_out(tx, number)


def players_still_in(tx: GameTx) -> set[int]:
    """The people whose seats still hold cards (or lives): not out, not gone."""
    active = set(tx.state.active_seats()) if tx.state else set()
    return {s.player_id for s in tx.seats if s.player_id is not None and s.number in active}


def deal(tx: GameTx, settings: Settings, seed: int) -> None:
    """Deal the seated players in: Shithead goes to the swap phase, Neighbor into its first hand."""
    rules = rules_from_dict(tx.game.kind, tx.game.rules)
    if len(tx.seats) < rules.min_seats:
        raise TooFewPlayersError(f"a game needs at least {rules.min_seats} players")
    tx.game.seed = seed
    seal(tx.game)
    tx.state = new_game(tx.game.kind, rules, len(tx.seats), tx.game.seed, tx.game.dealer)
    tx.game.started_at = tx.now
    tx.notify(NoticeKind.LOBBY)
    tx.announce(Announcement.STARTED)
    settle(tx, settings, fresh_keyboards=True)
