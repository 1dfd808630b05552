"""A player's private messages: their turn (cards and a button per legal move), the swap phase,
what they just did, reminders, and the group's call to open the private chat. Each is built from
that player's own view."""

from __future__ import annotations

from collections.abc import Sequence

from engine import NeighborView, PickUp, PlayFaceDown, Rules, ShitheadView, rank_text
from engine import events as ev
from shithead_bot.narrate import a_rank, ordinal
from shithead_bot.service import Actor, GameStatus, MoveLine, Reminder, ReminderPayload, SeatSnapshot
from shithead_bot.telegram.render import keyboards
from shithead_bot.telegram.render.commitment import commitment_lines
from shithead_bot.telegram.render.common import Page, Rendered, esc
from shithead_bot.telegram.render.table import seat_cards


def turn(page: Page, seat: SeatSnapshot) -> Rendered:
    """A seat's private game message, top-down: whose turn and until when, what happened since
    this player's last turn, their cards, then one button per legal move — none while the game is
    paused (it says so; resuming sends the buttons in a new message)."""
    rendered = _turn(page, seat)
    if page.game.status != GameStatus.PAUSED:
        return rendered
    paused = page._("⏸ The game is paused: your buttons come back when it resumes.")
    return Rendered(f"{rendered.text}\n{paused}")


def _turn(page: Page, seat: SeatSnapshot) -> Rendered:
    view = page.game.view(seat.number)
    if page.game.in_swap_phase:
        return swap(page, seat, None)
    header = [header_line(page, view), *since_last_turn(page, seat.number)]
    if isinstance(view, NeighborView):
        return neighbor_turn(page, view, header, seat.keyboard_version)
    lines = [*header, *others(page, view), *cards(page, view)]
    return Rendered("\n".join(lines), keyboards.moves(page, view, seat.keyboard_version))


def others(page: Page, view: ShitheadView) -> list[str]:
    """In a private game, whose only table is this message: the other seats' cards, as the table shows them."""
    if page.game.chat.kind != "private":
        return []
    _ = page._
    lines = []
    for info in view.seats:
        if info.seat == view.seat:
            continue
        name = esc(page.names[info.seat])
        if info.place is not None:
            lines.append(_("{name}: out, {place}").format(name=name, place=ordinal(info.place, page.language)))
        else:
            lines.append(_("{name}: {cards}").format(name=name, cards=seat_cards(page, info)))
    return lines


def header_line(page: Page, view: ShitheadView | NeighborView) -> str:
    _ = page._
    where = {"chat": page.chat_title(), "id": page.game_id, "deadline": page.deadline()}
    if view.to_act == view.seat:
        return _("🃏 <b>Your turn</b> — {chat} #{id} {deadline}").format(**where)
    if view.to_act is not None and page.game.is_active:
        name = esc(page.names[view.to_act])
        return _("🃏 {chat} #{id} — {name}'s turn {deadline}").format(name=name, **where)
    return _("🃏 {chat} #{id}").format(chat=where["chat"], id=where["id"])


def since_last_turn(page: Page, number: int, limit: int = 8) -> list[str]:
    """What happened since this seat's previous turn began: its own moves then (the message they
    were told in may be gone), the others' moves and the forced moves the bot made for this player,
    then this turn's own moves (a burn, a skip: the same player goes on), told to the reader."""
    moves = list(page.game.moves)
    start = len(moves)

    def own(move: MoveLine) -> bool:
        return move.seat == number and move.actor != Actor.AUTOPLAY

    while start and own(moves[start - 1]):
        start -= 1
    while start and not own(moves[start - 1]):
        start -= 1
    while start and own(moves[start - 1]):
        start -= 1
    return page.move_lines(moves[start:], me=number, play_only=True)[-limit:]


def cards(page: Page, view: ShitheadView) -> list[str]:
    _ = page._
    me = view.seats[view.seat or 0]
    lines = [page.pile_line(view), _("Stock: {stock}").format(stock=view.stock_count)]
    if view.required_rank:
        lines.append(_("Your first play must include {rank}.").format(rank=a_rank(view.required_rank, page.language)))
    lines.append(_("Your hand: {cards}").format(cards=page.cards(view.hand)))
    lines.append(_("Face-up: {cards} · face-down: {n}").format(cards=page.cards(me.face_up), n=me.face_down_count))
    return lines


def swap(page: Page, seat: SeatSnapshot, picked: int | None) -> Rendered:
    """Swap phase (everybody at once): what to do, my last swap, my cards; a button per card, Ready."""
    _ = page._
    view = page.game.view(seat.number)
    assert isinstance(view, ShitheadView)
    me = view.seats[seat.number]
    lines = [
        _("🔄 <b>Swap phase</b> — {chat} #{id} {deadline}").format(
            chat=page.chat_title(), id=page.game_id, deadline=page.deadline()
        )
    ]
    if page.game.chat.kind == "private":  # no table message until the end: the fingerprint is here
        lines += commitment_lines(page)
    if not view.legal_moves:
        lines.append(_("✅ You are ready — waiting for the others."))
    elif picked is None:
        lines.append(
            _("Put your best cards face-up, then press Ready: tap a hand card, then the face-up card to swap.")
        )
    else:
        lines.append(_("Put your {rank} face-up instead of…").format(rank=rank_text(picked)))
    last = next((m for m in reversed(page.game.moves) if m.seat == seat.number), None)
    if last is not None and any(isinstance(e, ev.Swapped) for e in last.events):
        lines += page.move_lines([last], me=seat.number)
    lines.append(_("Your hand: {cards}").format(cards=page.cards(view.hand)))
    lines.append(_("Face-up: {cards} · face-down: {n}").format(cards=page.cards(me.face_up), n=me.face_down_count))
    buttons = keyboards.swap(page, view, seat.keyboard_version, picked) if view.legal_moves else []
    return Rendered("\n".join(lines), buttons)


def neighbor_turn(page: Page, view: NeighborView, header: list[str], version: int) -> Rendered:
    _ = page._
    lines = list(header)
    lines.append(_("Your card: <b>{card}</b>").format(card=view.card))
    lives = view.seats[view.seat or 0].lives
    lines.append(page._n("You have {n} life.", "You have {n} lives.", lives).format(n=lives))
    for memory in view.swaps:
        other = _("the deck") if memory.other is None else esc(page.names[memory.other])
        lines.append(
            _("You swapped with {other}: gave {gave}, got {got}.").format(other=other, gave=memory.gave, got=memory.got)
        )
    if view.to_act != view.seat:
        return Rendered("\n".join(lines))
    neighbour = view.neighbour if view.neighbour is not None else view.seat or 0
    dealer = view.dealer == view.seat
    trade = _("Trade with the deck") if dealer else _("Swap with {name}").format(name=page.names[neighbour])
    return Rendered("\n".join(lines), keyboards.neighbor_turn(page, version, trade))


def moved(page: Page, seat: SeatSnapshot, moves: Sequence[MoveLine]) -> Rendered:
    """The mover's private message once the move is made: what happened, no buttons."""
    _ = page._
    state = page.game.state
    told = page.move_lines([m for m in moves if m.seat == seat.number], me=seat.number) or [_("Done.")]
    lines = [f"🃏 {esc(page.game.chat.title)} #{page.game_id}", *told]
    if page.game.status == GameStatus.ABORTED:
        lines.append(_("The game was aborted."))
    elif state is not None and not state.is_over:
        view = page.game.view(seat.number)
        if isinstance(view, ShitheadView):
            lines.append(_("Your hand: {cards}").format(cards=page.cards(view.hand)))
    if seat.away_until is not None and page.game.is_active:  # the way back, on the game message
        return Rendered("\n".join(lines), keyboards.back(page))
    return Rendered("\n".join(lines))


def reminder(page: Page, seat: SeatSnapshot, data: ReminderPayload) -> Rendered:
    """A private reminder: which game, how long is left, and what will happen at the deadline."""
    _ = page._
    why = data.what
    game = page.game.game
    chat, left = page.chat_title(), page.when(game.deadline_at) if game.deadline_at else ""
    if why is Reminder.NUDGE and page.game.in_swap_phase:  # nobody's turn: everybody swaps
        head = _("⏰ {name} nudges you: swap your cards and press Ready in {chat} #{id} — time is up {left}.").format(
            name=esc(data.by or ""), chat=chat, id=game.id, left=left
        )
    elif why is Reminder.NUDGE:
        head = _("⏰ {name} nudges you: it is your turn in {chat} #{id} — time is up {left}.").format(
            name=esc(data.by or ""), chat=chat, id=game.id, left=left
        )
    elif why is Reminder.LOOK:
        head = _("⏰ Your turn in {chat} #{id} is waiting for you — time is up {left}.").format(
            chat=chat, id=game.id, left=left
        )
    elif why is Reminder.GRACE:
        until = page.clock_tag(game.deadline_at) if game.deadline_at else ""
        head = _("⏰ I was away when your time ran out in {chat} #{id}: you have until {until}.").format(
            chat=chat, id=game.id, until=until
        )
    elif page.game.in_swap_phase:  # nobody's turn: everybody swaps, then presses Ready
        head = _("⏰ Reminder: swap your cards and press Ready in {chat} #{id} — time is up {left}.").format(
            chat=chat, id=game.id, left=left
        )
    else:
        head = _("⏰ Reminder: it is your turn in {chat} #{id} — time is up {left}.").format(
            chat=chat, id=game.id, left=left
        )
    lines = [head, at_deadline(page, seat)]
    limit = page.game.chat.max_timeouts
    timeouts = seat.timeouts_in_row if data.timeouts is None else data.timeouts
    if limit and timeouts + 1 >= limit and not page.game.in_swap_phase:  # the swap phase's deadline does not count
        lines.append(last_timeout(page, timeouts + 1))
    return Rendered("\n".join(lines), keyboards.show_my_cards(page))


def last_timeout(page: Page, nth: int) -> str:
    """The warning before the timeout that ends a player's part: they leave the game, or (the chat's
    ``after_timeouts computer``) a computer plays their seat to the end."""
    _ = page._
    taken_over = page.game.chat.after_timeouts == "computer"
    if nth == 1:
        if taken_over:
            return _("If your time runs out, a computer plays your seat for the rest of the game.")
        return _("If your time runs out, you leave the game.")
    if taken_over:
        return _(
            "That would be your {nth} timeout in a row: a computer would play your seat for the rest of the game."
        ).format(nth=ordinal(nth, page.language))
    return _("That would be your {nth} timeout in a row: you would leave the game.").format(
        nth=ordinal(nth, page.language)
    )


def at_deadline(page: Page, seat: SeatSnapshot) -> str:
    """What the bot will do for this seat if its time runs out."""
    _ = page._
    if page.game.state is None:
        return ""
    if isinstance(page.game.view(seat.number), NeighborView):
        return _("If you do not choose, I will keep your card.")
    if page.game.in_swap_phase:
        return _("If you do not press Ready, I will make a sensible swap and make you ready.")
    if page.game.chat.on_timeout == "standin":
        return _("If you do not play, a computer will play your turn for you.")
    move = page.game.timeout_plan(seat.number)
    if isinstance(move, PickUp):
        return _("If you do not play, I will pick up the pile for you.")
    if isinstance(move, PlayFaceDown):
        return _("If you do not play, I will turn over one of your face-down cards.")
    return _("If you do not play, I will play your lowest card for you.")


def contact(page: Page, seat: SeatSnapshot) -> Rendered:
    """In the group: a player the bot cannot message is asked to open the private chat."""
    _ = page._
    mention = f'<a href="tg://user?id={seat.player_id}">{esc(seat.name)}</a>'  # it notifies them
    text = _("📬 {name}, I cannot message you. Tap below to open our private chat — your game waits.").format(
        name=mention
    )
    link = keyboards.open_private_chat(_("Open the bot"), page.deep_link("hand"))
    return Rendered(text, list(map(list, link.inline_keyboard)))


def removed(page: Page, timeouts: int) -> Rendered:
    """To a player removed after missing their turns: what happened, and that the next game is
    theirs to join (a new message: it notifies)."""
    text = page._n(
        "🚪 You were removed from {chat} #{id} after {n} missed turn.",
        "🚪 You were removed from {chat} #{id} after {n} missed turns in a row.",
        timeouts,
    ).format(chat=page.chat_title(), id=page.game_id, n=timeouts)
    back = page._("The others play on. You are welcome in the next game: join its lobby when it opens.")
    return Rendered(f"{text}\n{back}")


def result(page: Page, seat: SeatSnapshot, intro: Sequence[str] = ()) -> Rendered:
    """The end, as this player lived it: their place, the loser (or the winners), and Rematch for
    those who would be dealt in again."""
    _ = page._
    state = page.game.state
    told = page.narrator_for(seat.number).result(state.outcome) if state and state.outcome else None
    left = page.narrator_for(seat.number).line(ev.Forfeited(seat.number, seat.place or 0)) if seat.forfeited else None
    intro = [line for line in intro if line not in (told, left)]  # the loser, and who left, are told below
    lines = [_("🏁 <b>Game over</b> — {chat} #{id}").format(chat=page.chat_title(), id=page.game_id), *intro]
    place = ordinal(seat.place or 0, page.language)
    if seat.forfeited:
        lines.append(_("You left the game: you are {place} of {n}.").format(place=place, n=len(page.names)))
    else:
        lines.append(_("You are {place} of {n}.").format(place=place, n=len(page.names)))
    loser = next((s for s in page.game.seats if s.is_loser), None)
    if isinstance(page.rules, Rules) and loser is not None:
        title = esc(page.rules.loser_title)
        if loser.number == seat.number:
            lines.append(_("💩 You are the {title}!").format(title=title))
        else:
            lines.append(_("💩 {name} is the {title}!").format(name=esc(loser.name), title=title))
    else:
        winners = [s for s in page.game.seats if s.place == 1]
        names = ", ".join(esc(s.name) for s in winners)
        lines.append(_("👑 You won!") if seat in winners else _("👑 {names} won!").format(names=names))
    return Rendered("\n".join(lines), [] if seat.forfeited else keyboards.rematch(page))
