"""The sender's plan as data: the planner's rules, checked over random notice sets without HTTP.

Each property fails when its rule is broken in ``delivery/planner.py`` (checked by hand by breaking
it: retiring a previous message with ``Retire.KEEP``, dropping ``_asks_last``, dropping
``_never_waiting_before_asks``, sending a reminder beside a new turn)."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import PRESETS, new_game
from engine.ai import make_player
from shithead_bot.service import (
    Announcement,
    AnnouncePayload,
    GameSnapshot,
    GameStatus,
    Inbox,
    InboxLine,
    InboxPayload,
    MovedPayload,
    Notice,
    NoticeKind,
    ReminderPayload,
    TablePayload,
    Tidy,
    TidyPayload,
    TurnPayload,
)
from shithead_bot.service.report import Plan
from shithead_bot.service.schedule import LOOKING, NUDGE_AFTER
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.delivery import steps as s
from shithead_bot.telegram.delivery.planner import plan_steps
from shithead_bot.telegram.render import Page
from tests.conftest import examples
from tests.telegram.test_texts import snapshot

CLEANUPS = (s.DropReminder, s.Tidy, s.Skip)
# Each property runs 100 plans under the ci profile (it ran 300, 9 properties, the file's whole cost).
# Enough to catch a broken rule: with 100, dropping _asks_last, dropping _never_waiting_before_asks,
# or not delivering a seat's notices by its last step each failed its property on every try (2026-12).


def pages(game: GameSnapshot, seat: object = None) -> Page:
    return Page(game, Codec(b"k"), "en", "bot")


@st.composite
def games(draw: st.DrawFn) -> GameSnapshot:
    """A Shithead game some random moves in, its seats with random message state."""
    players = draw(st.integers(2, 3))  # the names tests/telegram/test_texts.py has
    state = new_game("shithead", PRESETS["standard"], players, draw(st.integers(0, 10_000)))
    rng = random.Random(draw(st.integers(0, 10_000)))
    for _ in range(draw(st.integers(0, 40))):
        if state.is_over:
            break
        seat = rng.choice(state.seats_to_act())
        state.apply(seat, make_player("random", seed=rng.randrange(1 << 30)).choose(state.view(seat)))
    game = snapshot(state)
    if draw(st.booleans()):
        game = game.with_chat(kind="private")
    now = game.now
    for n in range(players):
        game = game.with_seat(
            n,
            private_message_id=draw(st.none() | st.integers(10, 50)),
            message_version=draw(st.sampled_from([0, 2, 3])),
            reminder_message_id=draw(st.none() | st.integers(60, 70)),
            computer_level=draw(st.sampled_from([None, None, "normal"])) if n else None,
            last_active_at=draw(st.none() | st.integers(0, 900).map(lambda x: now - timedelta(seconds=x))),
            notify=draw(st.sampled_from(["smart", "every", "digest"])),
        )
    return game


@st.composite
def notice_sets(draw: st.DrawFn, game: GameSnapshot) -> tuple[Notice, ...]:
    seats = st.integers(0, len(game.seats) - 1)
    versions = st.sampled_from([2, 3])
    kinds = st.one_of(
        st.builds(lambda n, v: (NoticeKind.TURN, n, TurnPayload(v)), seats, versions),
        st.builds(lambda n, v: (NoticeKind.SWAP, n, TurnPayload(v)), seats, versions),
        st.builds(lambda n, v, a: (NoticeKind.MOVED, n, MovedPayload(1, v, a)), seats, versions, st.booleans()),
        st.builds(lambda n: (NoticeKind.RESULT, n, None), seats),
        st.builds(lambda n: (NoticeKind.HAND, n, None), seats),
        st.builds(lambda n: (NoticeKind.REMINDER, n, ReminderPayload()), seats),
        st.builds(lambda r: (NoticeKind.TABLE, None, TablePayload(r)), st.booleans()),
        st.just((NoticeKind.LOBBY, None, None)),
        st.builds(
            lambda w: (NoticeKind.ANNOUNCE, None, AnnouncePayload(w, place=1, seq=1, timeouts=2, days=3)),
            st.sampled_from([Announcement.WENT_OUT, Announcement.PAUSED, Announcement.RESUMED, Announcement.STARTED]),
        ),
        st.builds(lambda m: (NoticeKind.TIDY, None, TidyPayload(Tidy.DELETE, 100, m)), st.integers(1, 9)),
        st.builds(lambda n, d: (NoticeKind.INBOX, n, InboxPayload(d)), seats, st.booleans()),
    )
    drawn = draw(st.lists(kinds, min_size=1, max_size=12))
    attempts = draw(st.integers(1, 3))
    return tuple(
        Notice(kind, 7, seat, payload or Notice(kind, 7).payload, id=i + 1, attempts=attempts)
        for i, (kind, seat, payload) in enumerate(drawn)
    )


@st.composite
def inboxes(draw: st.DrawFn, game: GameSnapshot) -> dict[int, Inbox]:
    """Some players' inboxes: with a message or none yet, a game waiting on them or none."""
    found = {}
    for seat in game.seats:
        if seat.player_id is None or not draw(st.booleans()):
            continue
        line = InboxLine(7, "Friends", game.now, None, True)
        waiting = (line,) if draw(st.booleans()) else ()
        message_id = draw(st.none() | st.integers(80, 90))
        found[seat.player_id] = Inbox(seat.player_id, message_id, "en", game.now, waiting, ())
    return found


@st.composite
def plans(draw: st.DrawFn) -> Plan:
    game = draw(games())
    return Plan(game, draw(notice_sets(game)), inboxes=draw(inboxes(game)))


def player_of(plan: Plan, step: s.Step) -> int | None:
    return None if step.seat is None else plan.game.seat(step.seat).player_id


@settings(max_examples=examples(100), deadline=None)
@given(plans())
def test_at_most_one_live_keyboard_per_player(plan: Plan) -> None:
    """Follow each seat's messages through the steps: a new message with buttons retires the
    previous one's; never two live keyboards for a player."""
    live = {seat.number: int(bool(seat.private_message_id and seat.message_version)) for seat in plan.game.seats}
    renewed: set[int] = set()
    for step in plan_steps(plan, pages):
        if isinstance(step, s.SendPrivate):
            if step.unless_sent and step.number in renewed:
                continue  # the executor skips a copy when the seat got a new message
            kept = live[step.number] if step.retire == s.Retire.KEEP else 0
            live[step.number] = kept + int(bool(step.rendered.buttons))
            renewed.add(step.number)
        elif isinstance(step, s.EditPrivate):
            live[step.number] = int(bool(step.rendered.buttons))
        assert all(count <= 1 for count in live.values()), (step, live)


@settings(max_examples=examples(100), deadline=None)
@given(plans())
def test_what_asks_a_player_to_act_goes_last(plan: Plan) -> None:
    """Every step that asks (a new message with buttons, a reminder) comes after every other step
    that sends; to each player, nothing but a clean-up follows what asks them."""
    steps = plan_steps(plan, pages)
    asking = [i for i, step in enumerate(steps) if step.asks]
    sending = [i for i, step in enumerate(steps) if not step.asks and not isinstance(step, CLEANUPS)]
    if asking and sending:
        assert max(sending) < min(asking), steps
    for i in asking:
        after = [step for step in steps[i + 1 :] if player_of(plan, step) == player_of(plan, steps[i])]
        skipped = [step for step in after if isinstance(step, s.SendPrivate) and step.unless_sent]  # not sent
        assert all(isinstance(step, CLEANUPS) or step in skipped for step in after), (steps[i], after)


@settings(max_examples=examples(100), deadline=None)
@given(plans())
def test_no_group_step_before_an_ask_waits_for_the_groups_rate(plan: Plan) -> None:
    steps = plan_steps(plan, pages)
    last_ask = max((i for i, step in enumerate(steps) if step.asks), default=0)
    for step in steps[:last_ask]:
        if isinstance(step, s.PostGroup | s.EditTable):
            assert not step.wait, steps


@settings(max_examples=examples(100), deadline=None)
@given(plans())
def test_every_notice_is_delivered_by_exactly_one_step(plan: Plan) -> None:
    delivered = [i for step in plan_steps(plan, pages) for i in step.notices]
    assert sorted(delivered) == sorted(n.id for n in plan.notices if n.id is not None)


@settings(max_examples=examples(100), deadline=None)
@given(plans())
def test_a_seat_gets_at_most_one_new_message_with_buttons(plan: Plan) -> None:
    """The newest message matters: one asking message a seat per plan (a copy asked for again is
    sent only when the plan gave the seat nothing new)."""
    steps = plan_steps(plan, pages)
    for seat in plan.game.seats:
        new = [
            step
            for step in steps
            if isinstance(step, s.SendPrivate) and step.number == seat.number and step.rendered.buttons
        ]
        assert len([step for step in new if not step.unless_sent]) <= 1, new
        reminders = [step for step in steps if isinstance(step, s.SendReminder) and step.number == seat.number]
        assert not (reminders and any(not step.unless_sent for step in new)), "a reminder beside a new turn"


@settings(max_examples=examples(100), deadline=None)
@given(plans())
def test_a_turn_is_silent_only_when_its_player_is_looking_and_then_a_nudge_follows(plan: Plan) -> None:
    """A new turn with buttons notifies, unless its player pressed or wrote in their private chat
    within LOOKING of the plan's time (and did not choose ``every``): then — and only then — it goes
    silently and carries one nudge, NUDGE_AFTER later, for its own keyboard: a silent turn is never
    missed, and a player who is there is not buzzed."""
    for step in plan_steps(plan, pages):
        if not (isinstance(step, s.SendPrivate) and step.asks and not step.unless_sent):
            continue
        seat = plan.game.seat(step.number)
        if seat.notify == "digest":  # digest mode: every turn silent, and no nudge (the inbox tells)
            assert step.muted
            assert step.nudge is None
            continue
        last = seat.last_active_at
        looking = seat.notify == "smart" and last is not None and plan.now - last <= LOOKING
        kinds = {n.kind for n in plan.notices if n.id in step.notices}
        turn = NoticeKind.TURN in kinds and NoticeKind.RESULT not in kinds  # not the swap's first, not the end
        if step.nudge is None:
            assert not step.muted
            assert not (looking and turn), "a turn notified a player who pressed a moment ago"
            continue
        assert step.muted
        assert seat.notify != "every"
        assert seat.last_active_at is not None
        assert plan.now - seat.last_active_at <= LOOKING
        assert step.nudge.at == plan.now + NUDGE_AFTER
        assert step.nudge.version == step.version


@settings(max_examples=examples(100), deadline=None)
@given(plans())
def test_an_inbox_is_touched_once_a_plan_before_any_group_step_and_notifies_only_for_a_digest(plan: Plan) -> None:
    """Only the newest inbox state matters: one step a player; it never waits behind the group's rate
    (it comes before every group step); an edit never notifies, and a new inbox (which does) is a
    digest's, sent only when a game waits on its player; none while they keep no inbox message."""
    steps = plan_steps(plan, pages)
    touched = [step for step in steps if isinstance(step, s.EditInbox | s.SendInbox)]
    players = [step.player_id for step in touched]
    assert len(players) == len(set(players)), touched
    first_group = min((i for i, step in enumerate(steps) if step.group), default=len(steps))
    assert all(steps.index(step) < first_group for step in touched)
    for step in touched:
        box = plan.inboxes[step.player_id]
        seat = next(seat for seat in plan.game.seats if seat.player_id == step.player_id)
        digest = [n for n in plan.notices if n.kind == NoticeKind.INBOX and n.seat == seat.number and n.digest]
        if isinstance(step, s.SendInbox):
            assert digest
            assert box.waiting
            assert step.previous == box.message_id
        else:
            assert box.message_id == step.message_id
            assert not (digest and box.waiting)


@settings(max_examples=examples(100), deadline=None)
@given(plans())
def test_a_swap_tap_never_sends_a_new_message(plan: Plan) -> None:
    """In the swap phase, a seat's own tap (a swap) edits its swap message: only the phase's first
    swap message is new (and notifies)."""
    if not plan.game.in_swap_phase:
        return
    for number in range(len(plan.game.seats)):
        mine = [n for n in plan.notices if n.seat == number]
        tapped = any(n.kind == NoticeKind.MOVED and not n.auto for n in mine)
        if not tapped or not any(n.kind == NoticeKind.SWAP for n in mine):
            continue
        if any(n.kind in (NoticeKind.TURN, NoticeKind.RESULT, NoticeKind.HAND) for n in mine):
            continue
        sends = [st for st in plan_steps(plan, pages) if isinstance(st, s.SendPrivate) and st.number == number]
        assert not sends, sends


def test_the_planner_is_a_value() -> None:
    """The same plan gives the same steps (rendered the same)."""
    game = snapshot(new_game("shithead", PRESETS["standard"], 3, 5))
    notices = (Notice(NoticeKind.SWAP, 7, 0, TurnPayload(3), id=1), Notice(NoticeKind.TABLE, 7, None, id=2))
    plan = Plan(game, notices)
    assert plan_steps(plan, pages) == plan_steps(replace(plan), pages)


@settings(max_examples=examples(100), deadline=None)
@given(plans())
def test_a_paused_games_private_messages_carry_no_buttons(plan: Plan) -> None:
    """Nothing can be played while the game waits: whatever its notices, no private message gets
    buttons (the end's Rematch aside: a paused game has no end)."""
    game = plan.game.with_game(status=GameStatus.PAUSED, deadline_at=None)
    notices = tuple(n for n in plan.notices if n.kind != NoticeKind.RESULT)
    for step in plan_steps(Plan(game, notices), pages):
        if isinstance(step, s.SendPrivate | s.EditPrivate | s.SendReminder):
            assert not step.rendered.buttons, step
