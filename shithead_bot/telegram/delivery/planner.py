"""A plan's notices as the steps the sender will take: a pure function, tested without HTTP.

The rules it keeps (``tests/telegram/test_steps.py`` checks them over random notice sets):

- **The newest message matters.** What asks a player to act, or tells them how the game ended, is a
  new message (it notifies); what they did is told by editing the message they pressed on; a move
  the bot made for them is told in a new message that does not notify; a reminder goes once its
  turn is over.
- **One live keyboard.** A seat gets at most one new message with buttons in a plan, and every new
  one retires the seat's previous message (its buttons go, or it goes).
- **What asks a player to act goes last** (just before the report is written): a worker that dies
  mid-plan repeats edits and group posts after the restart, not a notification.
- **Nothing waits behind the group's rate.** A group step before the last ask never waits for the
  group's send rate: used up, it is put off (the table is edited later, an announcement posted
  later) and the private messages after it go now.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from shithead_bot.service import (
    Actor,
    Announcement,
    AnnouncePayload,
    GameSnapshot,
    GameStatus,
    MoveLine,
    Notice,
    NoticeKind,
    Notify,
    ReminderPayload,
    SeatSnapshot,
    TidyPayload,
)
from shithead_bot.service.report import Nudge, Plan
from shithead_bot.service.schedule import LOOKING, NUDGE_AFTER
from shithead_bot.telegram.delivery.steps import (
    DropReminder,
    EditInbox,
    EditLobby,
    EditPrivate,
    EditTable,
    PostGroup,
    Retire,
    SendInbox,
    SendPrivate,
    SendReminder,
    Skip,
    Step,
    Tidy,
)
from shithead_bot.telegram.render import Page, announce, inbox, lobby, private

# A seat's own message.
PRIVATE = (
    NoticeKind.TURN,
    NoticeKind.SWAP,
    NoticeKind.MOVED,
    NoticeKind.RESULT,
    NoticeKind.HAND,
    NoticeKind.REMOVED,
)
# The group hears a notification for a game's start and end, and when it waits on the group (the bot
# is back: Resume); everything else it is told quietly.
LOUD = frozenset(
    {
        Announcement.STARTED,
        Announcement.OVER,
        Announcement.ABORTED,
        Announcement.LOBBY_EXPIRED,
        Announcement.PAUSE_EXPIRED,
        Announcement.BOT_BACK,  # the game waits on someone pressing Resume
    }
)


# Every kind has its step; one of another version (unknown here) is delivered as nothing to do.
HANDLED = frozenset(
    {
        *PRIVATE,
        NoticeKind.LOBBY,
        NoticeKind.ANNOUNCE,
        NoticeKind.TABLE,
        NoticeKind.REMINDER,
        NoticeKind.TIDY,
        NoticeKind.INBOX,
    }
)
Pages = Callable[[GameSnapshot, SeatSnapshot | None], Page]  # a game rendered for a seat (None: the group)


def plan_steps(plan: Plan, pages: Pages) -> tuple[Step, ...]:
    """The steps that deliver ``plan``'s notices, in the order they are taken."""
    game, notices = plan.game, list(plan.notices)
    told, asked = _by_seat(notices)
    steps: list[Step] = _inbox_steps(plan, pages)  # first: an inbox edit never waits behind the group
    for number, mine in told:
        steps += seat_steps(game, number, mine, pages)
    steps += _group_steps(game, notices, pages)
    for number, mine in asked:
        steps += seat_steps(game, number, mine, pages)
    renewed = {step.seat for step in steps if step.asks}
    reminders = [n for n in notices if n.kind == NoticeKind.REMINDER and n.seat is not None]
    newest = {n.seat: n for n in reminders}  # the newest message matters: one reminder a seat
    for notice in reminders:
        if newest[notice.seat] is notice and notice.seat is not None:
            steps += _reminder(game, notice.seat, notice, pages, renewed)
        else:
            steps.append(Skip(_ids([notice])))
    steps += [Tidy(_ids([n]), payload=n.payload) for n in notices if isinstance(n.payload, TidyPayload)]
    steps += [Skip(_ids([n])) for n in notices if n.kind not in HANDLED]
    return _never_waiting_before_asks(_asks_last(steps))


def _inbox_steps(plan: Plan, pages: Pages) -> list[Step]:
    """Each player's inbox, once a plan whatever the notices about it (only its newest state
    matters): edited in place; sent anew with a notification for a digest when a game waits on them;
    nothing while they keep no inbox message (they ask for one with /games)."""
    game = plan.game
    by_seat: dict[int, list[Notice]] = {}
    for notice in plan.notices:
        if notice.kind == NoticeKind.INBOX and notice.seat is not None:
            by_seat.setdefault(notice.seat, []).append(notice)
    steps: list[Step] = []
    for number, mine in by_seat.items():
        seat = game.seat(number)
        box = plan.inboxes.get(seat.player_id) if seat.player_id is not None else None
        if box is None:
            steps.append(Skip(_ids(mine)))
            continue
        page = pages(game, seat)
        rendered = inbox.inbox(box, page.codec, page.language)
        if any(n.digest for n in mine) and box.waiting:
            steps.append(SendInbox(_ids(mine), player_id=box.player_id, previous=box.message_id, rendered=rendered))
        elif box.message_id is not None:
            steps.append(EditInbox(_ids(mine), player_id=box.player_id, message_id=box.message_id, rendered=rendered))
        else:
            steps.append(Skip(_ids(mine)))
    return steps


def _asks_last(steps: list[Step]) -> list[Step]:
    """Every step that asks a player to act after every other step that sends (clean-ups stay where
    they are: they never fail, nor notify); each kind keeps its order."""
    first = next((i for i, step in enumerate(steps) if step.asks), None)
    if first is None:
        return steps
    later = {i for i in range(first, len(steps)) if not steps[i].asks and not _cleanup(steps[i])}
    kept = [step for i, step in enumerate(steps) if i not in later]
    return [*kept[:first], *(steps[i] for i in sorted(later)), *kept[first:]]


def _cleanup(step: Step) -> bool:
    return isinstance(step, DropReminder | Tidy | Skip)


def _ids(notices: Sequence[Notice]) -> tuple[int, ...]:
    return tuple(n.id for n in notices if n.id is not None)


def _by_seat(notices: Sequence[Notice]) -> tuple[list[tuple[int, list[Notice]]], list[tuple[int, list[Notice]]]]:
    """Each seat's turn, swap, result and "you moved" notices: the seats whose own moves are only
    told (an edit of the message they pressed), and the seats sent something new — a new turn
    first (the notification)."""
    by_seat: dict[int, list[Notice]] = {}
    for notice in notices:
        if notice.seat is not None and notice.kind in PRIVATE:
            by_seat.setdefault(notice.seat, []).append(notice)
    told = [item for item in by_seat.items() if all(n.kind == NoticeKind.MOVED and not n.auto for n in item[1])]
    rest = [item for item in by_seat.items() if item not in told]
    return told, sorted(rest, key=lambda item: all(n.kind != NoticeKind.TURN for n in item[1]))


def _group_steps(game: GameSnapshot, notices: Sequence[Notice], pages: Pages) -> list[Step]:
    """The lobby, the announcements and the table, in the game's chat."""
    steps: list[Step] = []
    lobbies = [n for n in notices if n.kind == NoticeKind.LOBBY]
    if lobbies:
        steps.append(EditLobby(_ids(lobbies), rendered=lobby.lobby(pages(game, None))))
    for notice in notices:
        if notice.kind == NoticeKind.ANNOUNCE:
            rendered = announce.announce(pages(game, None), notice)
            if rendered is None:
                steps.append(Skip(_ids([notice])))  # nothing to say (an unknown subject)
            else:
                loud = _loud(game, notice, lobby_posted=bool(lobbies))
                steps.append(PostGroup(_ids([notice]), rendered=rendered, loud=loud))
    tables = [n for n in notices if n.kind == NoticeKind.TABLE]
    if tables and _has_table(game):
        unpin = game.is_over and game.chat.kind != "private"
        steps.append(EditTable(_ids(tables), repost=any(n.repost for n in tables), unpin=unpin))
    elif tables:
        steps.append(Skip(_ids(tables)))  # a lobby, or a private game in play: no table to edit
    return steps


def _loud(game: GameSnapshot, notice: Notice, *, lobby_posted: bool) -> bool:
    """A game's start and end notify the group, nothing else. The start is the lobby, which asks the
    group to join: the deal after it is quiet (its players are asked in private); a game dealt without
    a lobby (a rematch) is started by the deal."""
    if notice.announcement == Announcement.STARTED:
        return game.game.lobby_message_id is None and not lobby_posted
    return notice.announcement in LOUD


def _has_table(game: GameSnapshot) -> bool:
    """A game shows a table: in a group once dealt; in a private chat only at the end (its ranking) —
    in play, the player's turn message is the table."""
    return game.status != GameStatus.LOBBY and (game.chat.kind != "private" or game.is_over)


def _never_waiting_before_asks(steps: list[Step]) -> tuple[Step, ...]:
    """Group steps before the last ask do not wait for the group's rate (put off instead)."""
    last_ask = max((i for i, step in enumerate(steps) if step.asks), default=-1)
    out: list[Step] = []
    for i, step in enumerate(steps):
        if i < last_ask and isinstance(step, PostGroup | EditTable) and step.wait:
            step = replace(step, wait=False)
        out.append(step)
    return tuple(out)


# ----------------------------------------------------------------------------- a seat's messages


def seat_steps(game: GameSnapshot, number: int, notices: list[Notice], pages: Pages) -> list[Step]:
    """A seat's own notices; a copy asked for again (HAND) unless a new message went already; its
    reminder goes once the turn it was about is over. The notices are delivered with the seat's last
    step that sends (a step failing before it leaves them all to be tried again)."""
    seat = game.seat(number)
    if seat.player_id is None:
        return [Skip(_ids(notices))]
    others = [n for n in notices if n.kind not in (NoticeKind.HAND, NoticeKind.REMOVED)]
    copies = [n for n in notices if n.kind == NoticeKind.HAND]
    removals = [n for n in notices if n.kind == NoticeKind.REMOVED and isinstance(n.payload, AnnouncePayload)]
    steps = _seat(game, number, others, pages) if others else []
    for removal in removals[-1:]:  # after the edit that tells the timeout: news they must not miss
        timeouts = removal.payload.timeouts or 0 if isinstance(removal.payload, AnnouncePayload) else 0
        steps.append(SendPrivate((), number=number, rendered=private.removed(pages(game, seat), timeouts)))
    if copies:
        page = pages(game, seat)
        rendered = private.turn(page, seat) if game.state is not None else lobby.lobby(page)
        retried = any(n.attempts > 1 for n in notices)
        copy = SendPrivate(
            (),
            number=number,
            rendered=rendered,
            version=seat.keyboard_version if rendered.buttons else 0,
            orphans=retried and bool(rendered.buttons),
            unless_sent=True,
            contact=bool(others),  # a copy asked for: the asker is told, in the chat they asked in
        )
        steps.append(copy)
    kinds = {n.kind for n in others}
    if NoticeKind.RESULT in kinds or NoticeKind.TURN in kinds or not game.may_act(number):
        steps.append(DropReminder((), number=number))
    return delivered_by_last(steps, _ids(notices))


def delivered_by_last(steps: list[Step], ids: tuple[int, ...]) -> list[Step]:
    """``ids`` delivered by the last step that sends (a clean-up never fails; with none, first, by a
    step that sends nothing)."""
    sending = [i for i, step in enumerate(steps) if not isinstance(step, DropReminder)]
    if not sending:
        return [Skip(ids), *steps] if ids else steps
    last = sending[-1]
    return [
        *steps[:last],
        replace(steps[last], notices=tuple(sorted({*ids, *steps[last].notices}))),
        *steps[last + 1 :],
    ]


def _seat(game: GameSnapshot, number: int, notices: list[Notice], pages: Pages) -> list[Step]:
    """A seat's own messages. What asks the player to act, or tells them how the game ended, is a
    new message (it notifies); what they did is told by editing the message they pressed on; a move
    the bot made for them (it was forced) is told silently."""
    kinds = {n.kind for n in notices}
    version = max(n.version for n in notices)
    retried = any(n.attempts > 1 for n in notices)
    seat = game.seat(number)
    page = pages(game, seat)
    if game.status == GameStatus.PAUSED and kinds & {NoticeKind.TURN, NoticeKind.SWAP}:
        # Paused: the message that asked says so, its buttons gone; resuming sends new ones.
        return [EditPrivate((), number=number, rendered=private.turn(page, seat), version=0)]
    moved = [n for n in notices if n.kind == NoticeKind.MOVED]
    acted = any(not n.auto for n in moved)  # on their message: a press, or their time ran out
    wants_keyboard = (NoticeKind.TURN in kinds or NoticeKind.SWAP in kinds) and game.may_act(number)
    if wants_keyboard and seat.keyboard_version != version:
        wants_keyboard = False  # an older notice: a newer one will bring the buttons
    if wants_keyboard and seat.message_version >= version and not moved:
        return []  # this keyboard was delivered already (a retry after a crash)
    first = min((n.seq for n in moved), default=None)
    done = private.moved(page, seat, moves_since(game.moves, number, first))
    if NoticeKind.RESULT in kinds:  # the end: the game's last message to this player, a new one
        steps: list[Step] = []
        if acted or (seat.message_version and alone(game, number)):  # (a press left as it was)
            steps.append(EditPrivate((), number=number, rendered=done, version=0))
        result = private.result(page, seat)
        steps.append(SendPrivate((), number=number, rendered=result, version=0, digest=digest(seat)))
        return steps
    if wants_keyboard and acted and (goes_on(game, number) or swapped(game, kinds)):  # edited in place
        return [EditPrivate((), number=number, rendered=private.turn(page, seat), version=version)]
    if wants_keyboard:  # a new turn, or the swap phase's first message: a new message, it notifies
        # The new turn tells what happened since the last one, own moves included: the message the
        # player just pressed (or, in a private game, any older one) goes rather than being edited,
        # so a move against quick computers costs one send in the chat's one a second.
        retire_it = acted or game.chat.kind == "private" or alone(game, number)
        retire = Retire.DELETE if retire_it else Retire.TELL if acted else Retire.DROP_KEYBOARD
        turn = private.turn(page, seat)
        looks = NoticeKind.TURN in kinds and bool(turn.buttons) and looking(game, seat)
        return [
            SendPrivate(
                (),
                number=number,
                rendered=turn,
                version=version if turn.buttons else 0,
                retire=retire,
                done=done if acted else None,
                orphans=retried and bool(turn.buttons),
                nudge=Nudge(game.now + NUDGE_AFTER, version) if looks else None,
                digest=digest(seat),
            )
        ]
    if acted and comes_back(game, number):
        return []  # the computers think; the next turn (or the end) replaces the message pressed on
    if acted:
        return [EditPrivate((), number=number, rendered=done, version=version)]
    if moved:  # only moves the bot made for them: told in a new message that does not notify
        return [SendPrivate((), number=number, rendered=done, version=0, silent=True)]
    return []


def _reminder(game: GameSnapshot, number: int, notice: Notice, pages: Pages, renewed: set[int | None]) -> list[Step]:
    """A reminder, only while that seat still has to act, and not beside a new message that asks it
    (the newest message matters: that one is the reminder)."""
    seat = game.seat(number)
    stale = seat.player_id is None or not game.may_act(number) or number in renewed
    if stale or not isinstance(notice.payload, ReminderPayload):
        return [Skip(_ids([notice]))]
    rendered = private.reminder(pages(game, seat), seat, notice.payload)
    return [SendReminder(_ids([notice]), number=number, rendered=rendered)]


def alone(game: GameSnapshot, number: int) -> bool:
    """Every other seat is a computer's: this player's messages are the only ones that ask."""
    return all(s.computer_level for s in game.seats if s.number != number)


def looking(game: GameSnapshot, seat: SeatSnapshot) -> bool:
    """The player pressed or wrote in their private chat within :data:`LOOKING` of the plan's time,
    and wants turns to notify only when they are not there (``smart``, the default): they see the
    new turn come in, a notification would only buzz a phone in their hand."""
    last = seat.last_active_at
    return seat.notify == Notify.SMART and last is not None and game.now - last <= LOOKING


def digest(seat: SeatSnapshot) -> bool:
    """The player chose digest mode: their turns and results come silently (their inbox notifies,
    at most once an interval; reminders before a deadline still notify)."""
    return seat.notify == Notify.DIGEST


def swapped(game: GameSnapshot, kinds: set[NoticeKind]) -> bool:
    """A tap in the swap phase (a swap, a pick): the player is looking at the swap message, which
    shows the new layout in place — only the phase's first message notifies."""
    return NoticeKind.SWAP in kinds and NoticeKind.TURN not in kinds and game.in_swap_phase


def comes_back(game: GameSnapshot, number: int) -> bool:
    """A press against computers only, in play: they move until this seat's next turn or the end,
    whose new message replaces the one pressed on — editing it first would cost a second send of
    the private chat's one a second before the player may act again."""
    seat = game.seat(number)
    return game.is_active and not game.in_swap_phase and seat.place is None and alone(game, number)


def goes_on(game: GameSnapshot, number: int) -> bool:
    """The seat's own press is the log's last move, in play (a burn, a 10…): the same player goes
    on, on the message they pressed. Not after the swap phase, a timeout or a move made for them."""
    last = game.moves[-1] if game.moves else None
    swapping = last is not None and (last.move == "r" or last.move.startswith("x:"))
    return last is not None and last.seat == number and last.actor == Actor.HUMAN and not swapping


def moves_since(moves: Sequence[MoveLine], number: int, first: int | None = None) -> list[MoveLine]:
    """This seat's moves from ``first`` (a seq) on; without it, those of its last turn: everything
    it did since the previous player's move."""
    if first is not None:
        return [m for m in moves if m.seat == number and m.seq >= first]
    mine: list[MoveLine] = []
    for move in reversed(moves):
        if move.seat != number:
            if mine:
                break
            continue
        mine.append(move)
    return list(reversed(mine))
