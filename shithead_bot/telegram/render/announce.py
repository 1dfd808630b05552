"""New group messages, for what deserves a notification: someone goes out or leaves, the end, a
pause, an abort, a lobby closed. One function per :class:`Announcement`."""

from __future__ import annotations

from collections.abc import Callable

from engine import Rules
from shithead_bot.narrate import ordinal
from shithead_bot.service import Announcement, AnnouncePayload, Notice
from shithead_bot.telegram.render import keyboards
from shithead_bot.telegram.render.commitment import commitment_lines, reveal_lines
from shithead_bot.telegram.render.common import Page, Rendered, esc
from shithead_bot.telegram.render.info import addressed


def announce(page: Page, notice: Notice) -> Rendered | None:
    """The group message for an ANNOUNCE notice (None for one this version does not know)."""
    data = notice.payload
    if not isinstance(data, AnnouncePayload) or data.what is None:
        return None
    what = data.what
    seats = page.game.seats  # the seat's own name: a stand-in's 🤖 is the table's, not the news'
    name = esc(seats[notice.seat].name) if notice.seat is not None and notice.seat < len(seats) else ""
    if what is Announcement.OVER:
        return game_over(page, data)
    if what is Announcement.STARTED:
        return started(page)
    text = _TEXTS[what](page, name, data)
    return Rendered(for_the_chat(page, "\n".join([text, *reveal_lines(page)]) if what in REVEALING else text))


def for_the_chat(page: Page, text: str) -> str:
    """In a group, every command written /cmd@bot: in privacy mode a bare /command may not reach it."""
    return addressed(text, page.bot_username) if page.game.chat.kind != "private" else text


def game_over(page: Page, data: AnnouncePayload) -> Rendered:
    _ = page._
    places = data.places or ()
    ranking = sorted(range(len(places)), key=lambda s: (places[s], s))
    lines = [_("🏁 <b>Game over</b> — #{id}").format(id=page.game_id)]
    lines += [f"{ordinal(places[s], page.language)}  {esc(page.names[s])}" for s in ranking]
    if data.looped:
        lines.append(_("🔁 Nobody had a choice and the game kept coming back to the same cards: ranked by cards held."))
    loser = data.loser
    if isinstance(page.rules, Rules) and loser is not None:
        lines.append(
            _("💩 {name} is the {title}!").format(name=esc(page.names[loser]), title=esc(page.rules.loser_title))
        )
    else:
        winners = [esc(page.names[s]) for s in data.winners or ()]
        lines.append(_("👑 {names} won!").format(names=", ".join(winners)))
    lines += reveal_lines(page)
    return Rendered(for_the_chat(page, "\n".join(lines)), keyboards.rematch(page))


def started(page: Page) -> Rendered:
    """The deal: who plays, and where their cards are (a notification for everyone in the group)."""
    _ = page._
    names = ", ".join(esc(name) for name in page.names)
    if page.game.in_swap_phase:
        what = _("🃏 Game #{id} is dealt: {names}. Your cards are in our private chat — swap, then Ready.")
    else:
        what = _("🃏 Game #{id} is dealt: {names}. Your cards are in our private chat.")
    link = keyboards.open_private_chat(_("🃏 My cards"), page.deep_link("hand"))
    text = "\n".join([what.format(id=page.game_id, names=names), *commitment_lines(page)])
    return Rendered(text, list(map(list, link.inline_keyboard)))


def topic_gone(page: Page) -> Rendered:
    """In General, once: the game's forum topic was closed or deleted."""
    return Rendered(
        page._("📌 The topic of game #{id} was closed or deleted: the game goes on here.").format(id=page.game_id)
    )


def _went_out(page: Page, name: str, data: AnnouncePayload) -> str:
    place = ordinal(data.place or 0, page.language, feminine=True)  # "1re place"
    return page._("🎉 {name} is out — {place} place!").format(name=name, place=place)


def _eliminated(page: Page, name: str, data: AnnouncePayload) -> str:
    return page._("💀 {name} is out of lives.").format(name=name)


def _forfeited(page: Page, name: str, data: AnnouncePayload) -> str:
    return page._("🏳 {name} left the game.").format(name=name)


def _removed(page: Page, name: str, data: AnnouncePayload) -> str:
    n = data.timeouts or 0
    return page._n(
        "⏰ {name} was removed after {n} missed turn.", "⏰ {name} was removed after {n} missed turns in a row.", n
    ).format(name=name, n=n)


def _taken_over(page: Page, name: str, data: AnnouncePayload) -> str:
    n = data.timeouts or 0
    return page._n(
        "⏰ {name} missed {n} turn: a computer plays their seat for the rest of the game.",
        "⏰ {name} missed {n} turns in a row: a computer plays their seat for the rest of the game.",
        n,
    ).format(name=name, n=n)


def _away(page: Page, name: str, data: AnnouncePayload) -> str:
    until = data.until
    if until is None:
        return page._("🌴 {name} is away — a computer plays in their place.").format(name=name)
    return page._("🌴 {name} is away until {when} — a computer plays in their place.").format(
        name=name, when=page.clock_tag(until)
    )


def _aborted(page: Page, name: str, data: AnnouncePayload) -> str:
    return page._("🛑 Game #{id} was aborted.").format(id=page.game_id)


def _paused(page: Page, name: str, data: AnnouncePayload) -> str:
    return page._("⏸ Game #{id} is paused. /resume to go on.").format(id=page.game_id)


def _resumed(page: Page, name: str, data: AnnouncePayload) -> str:
    return page._("▶️ Game #{id} goes on.").format(id=page.game_id)


def _bot_back(page: Page, name: str, data: AnnouncePayload) -> str:
    return page._("👋 I am back. Game #{id} is paused: ▶️ Resume on the table, and it goes on.").format(id=page.game_id)


def _lobby_closed(page: Page, name: str, data: AnnouncePayload) -> str:
    return page._("The lobby was closed: everybody left.")


def _lobby_expired(page: Page, name: str, data: AnnouncePayload) -> str:
    days = 7 if data.days is None else data.days
    return page._n(
        "Game #{id} was never started and is closed after {days} day.",
        "Game #{id} was never started and is closed after {days} days.",
        days,
    ).format(id=page.game_id, days=days)


def _pause_expired(page: Page, name: str, data: AnnouncePayload) -> str:
    days = 30 if data.days is None else data.days
    return page._n(
        "Game #{id} was paused for {days} day and is closed.",
        "Game #{id} was paused for {days} days and is closed.",
        days,
    ).format(id=page.game_id, days=days)


REVEALING = (Announcement.ABORTED, Announcement.PAUSE_EXPIRED)  # a game's last message (OVER: game_over)
_TEXTS: dict[Announcement, Callable[[Page, str, AnnouncePayload], str]] = {
    Announcement.WENT_OUT: _went_out,
    Announcement.ELIMINATED: _eliminated,
    Announcement.FORFEITED: _forfeited,
    Announcement.REMOVED: _removed,
    Announcement.TAKEN_OVER: _taken_over,
    Announcement.AWAY: _away,
    Announcement.ABORTED: _aborted,
    Announcement.PAUSED: _paused,
    Announcement.RESUMED: _resumed,
    Announcement.BOT_BACK: _bot_back,
    Announcement.LOBBY_CLOSED: _lobby_closed,
    Announcement.LOBBY_EXPIRED: _lobby_expired,
    Announcement.PAUSE_EXPIRED: _pause_expired,
}
