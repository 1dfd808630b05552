"""GameService: every use case of both games behind one object, transport-free — a terminal or a
web front end could call the same methods. Each is a function of its family's module (lobby,
play, clock, lifecycle, chats, queries, messages) taking the :class:`Core`; this class only lists
them, in one visible place, each with its unit of work's retry: :func:`plays` for those in which
computers may move (run again on a transient database fault, and after their computers thought
ahead), :func:`use_case` for the others that change a game and write notices (run again on a
transient database fault), :func:`write` for those that write but tell nobody (no notice), :func:`query` for those
that only read (likewise)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Self

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from persistence.models import utcnow
from shithead_bot.config import Settings
from shithead_bot.service import (
    archive,
    away,
    chats,
    inbox,
    lifecycle,
    lobby,
    messages,
    queries,
    standings,
    verification,
)
from shithead_bot.service import clock as timers
from shithead_bot.service import play as playing
from shithead_bot.service.kinds import plays, query, use_case, write
from shithead_bot.service.outbox import Outbox
from shithead_bot.service.unit import Clock, Core


class GameService:
    """Every use case, by family. Each takes plain ids and returns a Result or frozen snapshots.

    The service holds a :class:`Core` (sessions, the transaction, loading a game) and is not one: a
    front end calls use cases and reads a few plain properties, never a session. Tests that need raw
    sessions reach ``service.core``."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        settings: Settings | None = None,
        *,
        clock: Clock = utcnow,
        seed_source: Callable[[], int] | None = None,
    ) -> None:
        self.core = Core(sessions, settings, clock=clock, seed_source=seed_source)

    @classmethod
    def connect(cls, settings: Settings) -> Self:
        """A service on the database of ``settings`` (its own engine: :meth:`close` it at the end)."""
        service = cls.__new__(cls)
        service.core = Core.connect(settings)
        return service

    async def close(self) -> None:
        """Close the database connections of a service that :meth:`connect` made."""
        await self.core.close()

    def outbox(self, *, lease: timedelta = timedelta(seconds=30)) -> Outbox:
        """The outbox of this service's database, on its clock (it pauses a silenced chat's game)."""
        return Outbox(self.core.sessions, clock=self.core.clock, lease=lease, core=self.core)

    @property
    def settings(self) -> Settings:
        return self.core.settings

    @property
    def dialect(self) -> str:
        """The database's dialect name (``postgresql``: the fleet shares its send rate there)."""
        return self.core.dialect

    def clock(self) -> datetime:
        """Now, on the service's clock (the tests' is a fake one)."""
        return self.core.clock()

    # the lobby
    open_lobby = use_case(lobby.open_lobby)
    open_private_game = plays(lobby.open_private_game)
    join = use_case(lobby.join)
    leave = use_case(lobby.leave)
    add_computer = use_case(lobby.add_computer)
    remove_computer = use_case(lobby.remove_computer)
    start = plays(lobby.start)
    rematch = plays(lobby.rematch)

    # playing
    play = plays(playing.play)
    play_on = plays(playing.play_on)
    forfeit = plays(playing.forfeit)

    # idle players: the timers
    due = query(timers.due)
    next_due_at = query(timers.next_due_at)
    fire_due = plays(timers.fire_due)
    nudge = use_case(timers.nudge)
    set_turn_time = use_case(timers.set_turn_time)
    set_quiet_hours = write(timers.set_quiet_hours)
    quiet_hours = query(timers.quiet_hours)

    # away: a stand-in plays for an absent player
    go_away = plays(away.go_away)
    come_back = use_case(away.come_back)
    away_until = query(away.away_until)

    # the rest of a game's life
    pause = use_case(lifecycle.pause_game)
    vote_pause = use_case(lifecycle.vote_pause)
    resume = plays(lifecycle.resume)
    abort = use_case(lifecycle.abort)

    # players, chats, updates
    take_update = write(chats.take_update)
    note_messages = write(chats.note_messages)
    forget_old_updates = write(chats.forget_old_updates)
    see_user = write(chats.see_user)
    set_can_message = write(chats.set_can_message)
    set_autoplay = write(chats.set_autoplay)
    autoplay_of = query(chats.autoplay_of)
    set_notify = write(chats.set_notify)
    notify_of = query(chats.notify_of)
    ensure_chat = write(chats.ensure_chat)
    update_chat = write(chats.update_chat)
    chat_language = query(chats.chat_language)
    add_house_rule = write(chats.add_house_rule)
    chat_rules = write(chats.chat_rules)
    bot_removed = use_case(chats.bot_removed)
    bot_added = use_case(chats.bot_added)
    migrate_chat = write(chats.migrate_chat)

    # reading
    game_view = query(queries.game_view)
    game_and_moves = query(queries.game_and_moves)
    open_game = query(queries.open_game)
    games_of = query(queries.games_of)
    recent_moves = query(queries.recent_moves)
    moves = query(queries.moves)
    record = query(queries.record)
    rebuild = query(queries.rebuild)
    player_record = query(queries.player_record)
    games_per_preset = query(queries.games_per_preset)
    chat_ratings = query(standings.chat_ratings)
    player_ratings = query(standings.player_ratings)
    rebuild_ratings = write(standings.rebuild_ratings)
    export_game = query(archive.export_game)
    verify_game = query(verification.verify_game)
    vitals = query(queries.vitals)
    ping = query(queries.ping)

    # messages the front end keeps, and the fleet's send rate
    ask_again = use_case(messages.ask_again)
    may_message = query(messages.may_message)
    record_game_messages = write(messages.record_game_messages)
    record_private_message = write(messages.record_private_message)
    record_reminder_message = write(messages.record_reminder_message)
    known_private_messages = query(messages.known_private_messages)
    reserve_send = write(messages.reserve_send)
    hold_sends = write(messages.hold_sends)

    # the inbox (📥 Your games) and digest mode
    inbox_of = query(inbox.inbox_of)
    keep_inbox = write(inbox.keep_inbox)
    set_digest = write(inbox.set_digest)
    digest_of = query(inbox.digest_of)
