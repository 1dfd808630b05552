"""A game's clock inside a transaction: the current turn's deadline, the next reminder, grace after
downtime. The arithmetic is in :mod:`schedule`; this sets the game's timer fields from it."""

from __future__ import annotations

from datetime import datetime, timedelta

from shithead_bot.config import Settings
from shithead_bot.service.notices import NoticeKind, Reminder, ReminderPayload
from shithead_bot.service.schedule import QuietHours, deadline_after, grace, next_reminder, reminder_offsets
from shithead_bot.service.unit import GameTx


def restart_clock(tx: GameTx) -> None:
    """Whoever must act now gets the full turn time (the swap phase has one for everybody); with the
    chat's "deadlines skip quiet hours", the time in the player's quiet hours is not counted."""
    game = tx.game
    game.turn_started_at = tx.now
    game.reminders_sent = 0
    if not game.turn_seconds:
        game.deadline_at = None
        game.due_at = next_nudge(tx)
        return
    quiet = quiet_of_player_to_act(tx) if tx.chat.deadlines_skip_quiet else None
    game.deadline_at = deadline_after(tx.now, game.turn_seconds, quiet)
    schedule_next(tx)


def quiet_of_player_to_act(tx: GameTx) -> QuietHours | None:
    to_act = tx.state.to_act if tx.state else None
    return None if to_act is None else tx.quiet.get(to_act)


def schedule_next(tx: GameTx) -> None:
    """``due_at``: the next reminder of this turn, else its deadline."""
    tx.game.due_at = earliest(turn_due(tx), next_nudge(tx))


def turn_due(tx: GameTx) -> datetime:
    """The turn's next reminder, else its deadline."""
    game = tx.game
    assert game.deadline_at is not None and game.turn_seconds
    offsets = reminder_offsets(game.turn_seconds, tx.chat.reminders)
    upcoming = next_reminder(game.deadline_at, offsets, game.reminders_sent, quiet_of_player_to_act(tx), tx.now)
    return upcoming[0] if upcoming else game.deadline_at


def turn_timer_due(tx: GameTx) -> bool:
    """Is the turn's reminder or deadline due now (not only a nudge)?"""
    return turn_due(tx) <= tx.now


def earliest(*moments: datetime | None) -> datetime | None:
    return min((m for m in moments if m is not None), default=None)


def next_nudge(tx: GameTx) -> datetime | None:
    """The soonest nudge of a turn sent silently (``seat.nudge_at``): the game's ``due_at`` brings it."""
    return earliest(*(s.nudge_at for s in tx.seats))


def drop_nudges(tx: GameTx, keep: set[int]) -> None:
    """Seats whose turn is over (or anew) wait for no nudge."""
    for seat in tx.seats:
        if seat.nudge_at is not None and seat.number not in keep:
            seat.nudge_at = None


def fire_nudges(tx: GameTx) -> bool:
    """The nudges due now: one notifying reminder to each player who still has to act (in their quiet
    hours, it waits until they end). True when one was due."""
    due = [s for s in tx.seats if s.nudge_at is not None and s.nudge_at <= tx.now]
    to_act = set(humans_to_act(tx))
    for seat in due:
        quiet = tx.quiet.get(seat.number)
        if seat.number in to_act and quiet is not None and quiet.contains(tx.now):
            seat.nudge_at = quiet.ends_after(tx.now)
            continue
        seat.nudge_at = None
        if seat.number in to_act:
            tx.notify(NoticeKind.REMINDER, seat.number, ReminderPayload(Reminder.LOOK, timeouts=seat.timeouts_in_row))
    return bool(due)


def humans_to_act(tx: GameTx) -> list[int]:
    """The people who must act themselves now (a stood-in seat's player is not reminded)."""
    numbers = tx.state.seats_to_act() if tx.state else []
    return [n for n in numbers if tx.seat(n).player_id is not None and not tx.stood_in(n)]


def remind(tx: GameTx, what: Reminder = Reminder.REMINDER) -> None:
    """A reminder to each player to act (not in their quiet hours); later ones already due are not
    sent again."""
    game = tx.game
    assert game.deadline_at is not None and game.turn_seconds
    for number in humans_to_act(tx):
        quiet = tx.quiet.get(number)
        if quiet is not None and quiet.contains(tx.now):
            continue
        tx.notify(NoticeKind.REMINDER, number, ReminderPayload(what, timeouts=tx.seat(number).timeouts_in_row))
    offsets = reminder_offsets(game.turn_seconds, tx.chat.reminders)
    passed = [i for i, offset in enumerate(offsets) if game.deadline_at - timedelta(seconds=offset) <= tx.now]
    game.reminders_sent = max([game.reminders_sent, *(i + 1 for i in passed)])
    schedule_next(tx)


def grant_grace(tx: GameTx, settings: Settings) -> None:
    """The deadline passed while no worker was running: not held against anyone. A short grace
    period and a fresh reminder instead of an instant penalty."""
    game = tx.game
    assert game.turn_seconds
    game.deadline_at = tx.now + grace(game.turn_seconds, settings.grace_fraction, settings.grace_min_seconds)
    game.reminders_sent = len(reminder_offsets(game.turn_seconds, tx.chat.reminders))
    game.due_at = game.deadline_at
    remind(tx, Reminder.GRACE)
    tx.notify(NoticeKind.TABLE)
