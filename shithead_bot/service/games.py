"""The use cases. Each takes plain ids, runs in one transaction, and returns the notices it wrote.

A transaction loads the game row with a lock (``FOR UPDATE`` on PostgreSQL, ``BEGIN IMMEDIATE`` on
SQLite), checks the version the caller's button carried, applies the move through the engine,
lets computer seats answer, appends every move to the log, writes the outbox, bumps ``version``
and commits. A stale button or a lost race raises :class:`StaleVersionError` and changes nothing.

Button versions are per seat: ``Seat.keyboard_version`` is the game version at which that seat's
current buttons were made, so players swapping at the same time do not invalidate each other.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm.exc import StaleDataError

import engine
from engine import AnyRules, AnyState, EngineError, Forfeit, Move, load_game, new_game, rules_from_dict
from engine import events as ev
from engine.ai import LEVELS
from persistence import repo
from persistence.models import Chat, Game, GameStatus, Player, Seat, utcnow
from persistence.models import Move as MoveRow
from shithead_bot.names import computer_name
from shithead_bot.service.autoplay import computer_move, timeout_moves
from shithead_bot.service.errors import (
    AlreadyDoneError,
    AlreadyJoinedError,
    AlreadyOpenError,
    GameNotFoundError,
    LobbyFullError,
    MoveRejectedError,
    NeedsPrivateChatError,
    NotAllowedError,
    NotAPlayerError,
    OpenRaceError,
    QuietHoursError,
    RateLimitedError,
    ServiceError,
    StaleVersionError,
    TooFewPlayersError,
    WrongStateError,
)
from shithead_bot.service.notices import Notice, NoticeKind
from shithead_bot.service.unit import retrying
from shithead_bot.settings import Settings
from shithead_bot.timers.policy import (
    QuietHours,
    deadline_after,
    grace,
    next_reminder,
    reminder_offsets,
)

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
ACTIVE = (GameStatus.SWAPPING, GameStatus.PLAYING)


@dataclass
class UserInfo:
    """A Telegram user as the caller knows them (the service keeps the player row up to date)."""

    id: int
    first_name: str
    username: str | None = None
    language: str | None = None


@dataclass
class Result:
    """What a use case did: the game it touched, its new version, and the notices it wrote."""

    game_id: int
    version: int
    notices: list[Notice] = field(default_factory=list)
    status: str = ""
    ignored_settings: str | None = None  # the chat's saved house rules were invalid: why (the preset was used)


@dataclass
class Ctx:
    """A loaded game inside one transaction, and what the use case is doing to it."""

    session: AsyncSession
    game: Game
    seats: list[Seat]
    chat: Chat
    now: datetime
    state: AnyState | None = None
    loaded_version: int = 0
    to_act_before: int | None = None
    moved: list[tuple[int, int]] = field(default_factory=list)  # (seat, seq) of human moves
    events: list[tuple[int, ev.Event]] = field(default_factory=list)  # (seq, event)
    move_rows: list[dict[str, Any]] = field(default_factory=list)  # the move log rows to insert
    quiet: dict[int, QuietHours] = field(default_factory=dict)  # seat number -> its player's quiet hours
    languages: dict[int, str] = field(default_factory=dict)  # seat number -> its player's Telegram language
    removed: set[int] = field(default_factory=set)  # seats removed for timing out (told once, not twice)
    notices: list[Notice] = field(default_factory=list)

    def seat_of(self, player_id: int) -> Seat | None:
        return next((s for s in self.seats if s.player_id == player_id), None)

    def seat(self, number: int) -> Seat:
        return self.seats[number]

    def notify(self, kind: NoticeKind, seat: int | None = None, **data: object) -> None:
        self.notices.append(Notice(kind, self.game.id or 0, seat, dict(data)))


@retrying
class GameService:
    """Every use case of both games, transport-free; each retried once on a transient database fault."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        settings: Settings | None = None,
        *,
        clock: Clock = utcnow,
        seed_source: Callable[[], int] | None = None,
    ) -> None:
        self.sessions = sessions
        self.settings = settings or Settings()
        self.clock = clock
        self.seed_source = seed_source or (lambda: secrets.randbits(62))
        bind = sessions.kw.get("bind")
        self.dialect = bind.dialect.name if bind is not None else "sqlite"
        self._write_lock = asyncio.Lock() if self.dialect == "sqlite" else None

    # ----------------------------------------------------------------- transactions

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """One transaction; a lost optimistic-lock race surfaces as StaleVersionError.

        On SQLite, writers in this process queue on an asyncio lock first (first come, first
        served) instead of polling SQLite's busy handler; other processes still wait on the file lock.
        """
        async with self._write_lock or contextlib.nullcontext(), self._transaction() as session:
            yield session

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[AsyncSession]:
        try:
            async with self.sessions() as session, session.begin():
                yield session
        except StaleDataError as exc:
            raise StaleVersionError("the game changed under this transaction") from exc
        except IntegrityError as exc:
            if "uq_game_open_per_chat" in str(exc.orig) or "game.chat_id" in str(exc.orig):
                raise OpenRaceError("another lobby was opened in this chat at the same time") from exc
            if "move" in str(exc.orig).lower():
                raise StaleVersionError("another change won the race") from exc
            raise

    async def _already_open(self, chat_id: int) -> AlreadyOpenError:
        """The refusal for a chat whose game is not over: which game, and its message to point at."""
        async with self.sessions() as session:
            game = await repo.open_game_in_chat(session=session, chat_id=chat_id)
        if game is None:  # the winner was closed in between: let the caller try again
            return AlreadyOpenError(0, GameStatus.ABORTED)
        return AlreadyOpenError(game.id or 0, game.status, game.lobby_message_id or game.table_message_id)

    async def _load(self, session: AsyncSession, game_id: int, *, write: bool = True) -> Ctx:
        ctx = await self._read(session, game_id, lock=write)
        if ctx is None:
            raise GameNotFoundError(f"no game {game_id}")
        if write:
            self._bump(ctx)
        return ctx

    async def _read(self, session: AsyncSession, game_id: int, *, lock: bool, skip_locked: bool = False) -> Ctx | None:
        found = await repo.get_game_and_chat(session=session, game_id=game_id, lock=lock, skip_locked=skip_locked)
        if found is None:
            return None
        game, chat = found
        rows = await repo.seats_with_players(session=session, game_id=game_id)
        ctx = Ctx(session, game, [row.seat for row in rows], chat, self.clock(), loaded_version=game.version)
        ctx.quiet = {
            row.seat.number: QuietHours(row.quiet_start, row.quiet_end, row.timezone or "UTC")
            for row in rows
            if row.quiet_start is not None and row.quiet_end is not None
        }
        ctx.languages = {row.seat.number: row.language for row in rows if row.language}
        if game.snapshot is not None:
            ctx.state = load_game(game.snapshot)
            ctx.to_act_before = ctx.state.to_act
        return ctx

    @staticmethod
    def _bump(ctx: Ctx) -> None:
        """One version bump per transaction; the flush checks the version loaded."""
        ctx.game.version = ctx.loaded_version + 1
        ctx.game.updated_at = ctx.now

    def _result(self, ctx: Ctx) -> Result:
        return Result(ctx.game.id or 0, ctx.game.version, ctx.notices, ctx.game.status)

    async def _commit(self, ctx: Ctx) -> Result:
        """Write the game, the new moves and the notices: a few statements, no per-row objects."""
        await ctx.session.flush()
        await repo.insert_moves(session=ctx.session, rows=ctx.move_rows)
        await repo.insert_outbox(
            session=ctx.session,
            rows=[
                {"game_id": n.game_id, "kind": str(n.kind), "payload": n.payload(), "created_at": ctx.now}
                for n in ctx.notices
            ],
        )
        return self._result(ctx)

    # ----------------------------------------------------------------- updates applied once

    async def take_update(self, update_id: int) -> bool:
        """Claim a Telegram update before handling it: False when any worker took it already (a
        webhook delivered twice, or an update fetched again after a crash)."""
        async with self.transaction() as session:
            return await repo.take_update(session=session, update_id=update_id, now=self.clock())

    async def forget_old_updates(self, keep: timedelta = timedelta(days=2)) -> None:
        """Drop claims older than ``keep`` (Telegram redelivers for a day at most) and idle send buckets."""
        async with self.transaction() as session:
            now = self.clock()
            await repo.purge_updates(session=session, before=now - keep)
            if self.dialect == "postgresql":
                await repo.purge_send_buckets(session=session, before=now - timedelta(hours=1))

    # ----------------------------------------------------------------- players and chats

    async def see_user(self, user: UserInfo, *, can_message: bool | None = None) -> Player:
        """Create or refresh a player; ``can_message`` records a /start (True) or a block (False)."""
        async with self.transaction() as session:
            player = await self._player(session, user)
            if can_message is not None:
                player.can_message = can_message
            return player

    async def set_can_message(self, player_id: int, value: bool) -> None:
        async with self.transaction() as session:
            player = await repo.get_player(session=session, player_id=player_id)
            if player is not None:
                player.can_message = value

    async def _player(self, session: AsyncSession, user: UserInfo) -> Player:
        return await repo.ensure_player(
            session=session,
            player_id=user.id,
            first_name=user.first_name,
            username=user.username,
            language=user.language,
        )

    async def ensure_chat(self, chat_id: int, kind: str, title: str) -> Chat:
        async with self.transaction() as session:
            return await self._chat(session, chat_id, kind, title)

    async def _chat(self, session: AsyncSession, chat_id: int, kind: str, title: str) -> Chat:
        """The chat row; a new chat gets the configured default turn time."""
        return await repo.ensure_chat(
            session=session, chat_id=chat_id, kind=kind, title=title, turn_seconds=self.settings.default_turn_seconds
        )

    async def update_chat(self, chat_id: int, **settings: object) -> Chat:
        """Change a chat's settings (game kind, preset, house rules, turn time, reminders…)."""
        async with self.transaction() as session:
            chat = await repo.get_chat(session=session, chat_id=chat_id)
            if chat is None:
                raise GameNotFoundError(f"unknown chat {chat_id}")
            for key, value in settings.items():
                if not hasattr(chat, key) or key in ("id", "created_at"):
                    raise ValueError(f"no chat setting {key!r}")
                setattr(chat, key, value)
            chat.updated_at = self.clock()
            return chat

    async def bot_removed(self, chat_id: int) -> Result | None:
        """The bot was removed from a group (or may no longer post there): its game is paused."""
        async with self.transaction() as session:
            chat = await repo.get_chat(session=session, chat_id=chat_id)
            if chat is not None:
                chat.bot_present = False
            game = await repo.open_game_in_chat(session=session, chat_id=chat_id)
        if game is None or game.status not in ACTIVE:
            return None
        async with self.transaction() as session:
            ctx = await self._load(session, game.id or 0)
            if ctx.game.status not in ACTIVE:
                return None
            self._pause(ctx)
            return await self._commit(ctx)

    async def bot_added(self, chat_id: int, kind: str, title: str) -> None:
        async with self.transaction() as session:
            chat = await self._chat(session, chat_id, kind, title)
            chat.bot_present = True

    async def migrate_chat(self, old_id: int, new_id: int) -> list[int]:
        """A group became a supergroup: its games follow. Returns the ids of its open games."""
        async with self.transaction() as session:
            await repo.migrate_chat(session=session, old_id=old_id, new_id=new_id)
            game = await repo.open_game_in_chat(session=session, chat_id=new_id)
            return [game.id] if game and game.id else []

    # ----------------------------------------------------------------- the lobby

    def rules_for(self, chat: Chat, kind: str | None = None, preset_name: str | None = None) -> AnyRules:
        """The rules a new game in this chat gets: the chat's choice, or the given kind and preset.
        Saved house rules that are no longer valid are left out (``open_lobby`` says why)."""
        return self._rules_for(chat, kind, preset_name)[0]

    @staticmethod
    def _rules_for(chat: Chat, kind: str | None, preset_name: str | None) -> tuple[AnyRules, str | None]:
        kind = kind or chat.game_kind
        base: AnyRules
        if kind == "neighbor":
            base, saved_applies = engine.NeighborRules(), chat.game_kind == "neighbor"
        else:
            base = engine.preset(preset_name or (chat.preset if chat.preset in engine.PRESETS else "standard"))
            saved_applies = chat.game_kind == "shithead" and (preset_name is None or preset_name == chat.preset)
        if not saved_applies or not chat.house_rules:
            return base, None
        try:
            return base.with_rules(chat.house_rules), None
        except EngineError as exc:  # saved by an older version, or edited by hand: play the preset
            return base, str(exc)

    async def open_lobby(
        self,
        chat_id: int,
        creator: UserInfo,
        *,
        kind: str | None = None,
        preset: str | None = None,
        house_rules: dict[str, str] | None = None,
        chat_kind: str = "group",
        chat_title: str = "",
    ) -> Result:
        """Open a lobby in a chat (one open game per chat); the creator joins if the bot can reach them.

        ``kind``/``preset``/``house_rules`` override the chat's settings for this game only. Two
        lobbies opened at the same moment: one wins, the other gets :class:`AlreadyOpenError`."""
        try:
            return await self._open_lobby(chat_id, creator, kind, preset, house_rules, chat_kind, chat_title)
        except OpenRaceError:
            raise await self._already_open(chat_id) from None

    async def _open_lobby(
        self,
        chat_id: int,
        creator: UserInfo,
        kind: str | None,
        preset: str | None,
        house_rules: dict[str, str] | None,
        chat_kind: str,
        chat_title: str,
    ) -> Result:
        async with self.transaction() as session:
            chat = await self._chat(session, chat_id, chat_kind, chat_title)
            existing = await repo.open_game_in_chat(session=session, chat_id=chat_id)
            if existing is not None:
                raise AlreadyOpenError(existing.id or 0, existing.status, existing.lobby_message_id)
            rules, ignored = self._rules_for(chat, kind, preset)
            rules = rules.with_rules(house_rules or {})  # refused with the reason (RulesError): nothing saved
            player = await self._player(session, creator)
            game = await repo.add_game(
                session=session,
                game=Game(
                    chat_id=chat_id,
                    kind=kind or chat.game_kind,
                    rules=rules.to_dict(),
                    created_by=creator.id,
                    turn_seconds=chat.turn_seconds,
                ),
            )
            ctx = Ctx(session, game, [], chat, self.clock())
            game.due_at = ctx.now + timedelta(days=self.settings.lobby_expiry_days)
            if player.can_message:
                await self._add_human(ctx, player)
            ctx.notify(NoticeKind.LOBBY)
            result = await self._commit(ctx)
            result.ignored_settings = ignored
            return result

    async def join(self, game_id: int, user: UserInfo) -> Result:
        async with self.transaction() as session:
            ctx = await self._load(session, game_id)
            self._require(ctx, GameStatus.LOBBY)
            player = await self._player(session, user)
            if ctx.seat_of(user.id) is not None:
                raise AlreadyJoinedError(f"{user.first_name} is already in game {game_id}")
            if not player.can_message:
                raise NeedsPrivateChatError(user.id, game_id)
            await self._add_human(ctx, player)
            ctx.notify(NoticeKind.LOBBY)
            return await self._commit(ctx)

    async def leave(self, game_id: int, user_id: int) -> Result:
        async with self.transaction() as session:
            ctx = await self._load(session, game_id)
            self._require(ctx, GameStatus.LOBBY)
            seat = self._seat_or_raise(ctx, user_id)
            await repo.delete_seat(session=session, seat=seat)
            ctx.seats.remove(seat)
            await self._renumber(ctx)
            if not any(s.player_id for s in ctx.seats):
                self._close(ctx, GameStatus.ABORTED)
                ctx.notify(NoticeKind.ANNOUNCE, what="lobby_closed")
            ctx.notify(NoticeKind.LOBBY)
            return await self._commit(ctx)

    async def add_computer(
        self, game_id: int, user_id: int, level: str = "heuristic", *, seen: int | None = None
    ) -> Result:
        """A computer seat. ``seen``: how many computers the presser's lobby showed — the press's
        idempotency key, so two taps on one lobby add one computer (the other: AlreadyDoneError)."""
        if level not in LEVELS:
            raise ValueError(f"unknown computer level {level!r}")
        async with self.transaction() as session:
            ctx = await self._load(session, game_id)
            self._require(ctx, GameStatus.LOBBY)
            self._seat_or_raise(ctx, user_id)
            self._check_seen_computers(ctx, seen)
            self._check_room(ctx)
            used = {s.name for s in ctx.seats}
            name = next(computer_name(i) for i in range(30) if f"🤖 {computer_name(i)}" not in used)
            seat = Seat(game_id=game_id, number=len(ctx.seats), computer_level=level, name=f"🤖 {name}")
            ctx.seats.append(await repo.add_seat(session=session, seat=seat))
            ctx.notify(NoticeKind.LOBBY)
            return await self._commit(ctx)

    async def remove_computer(self, game_id: int, user_id: int, *, seen: int | None = None) -> Result:
        """Remove the last computer seat; ``seen`` as for :meth:`add_computer`."""
        async with self.transaction() as session:
            ctx = await self._load(session, game_id)
            self._require(ctx, GameStatus.LOBBY)
            self._seat_or_raise(ctx, user_id)
            self._check_seen_computers(ctx, seen)
            computers = [s for s in ctx.seats if s.computer_level]
            if not computers:
                raise WrongStateError("there is no computer player to remove", ctx.game.status)
            await repo.delete_seat(session=session, seat=computers[-1])
            ctx.seats.remove(computers[-1])
            await self._renumber(ctx)
            ctx.notify(NoticeKind.LOBBY)
            return await self._commit(ctx)

    async def _add_human(self, ctx: Ctx, player: Player) -> None:
        self._check_room(ctx)
        seat = Seat(game_id=ctx.game.id or 0, number=len(ctx.seats), player_id=player.id, name=player.first_name)
        ctx.seats.append(await repo.add_seat(session=ctx.session, seat=seat))

    @staticmethod
    def _check_seen_computers(ctx: Ctx, seen: int | None) -> None:
        if seen is not None and seen != sum(1 for s in ctx.seats if s.computer_level):
            raise AlreadyDoneError("the lobby changed since that button was shown")

    def _check_room(self, ctx: Ctx) -> None:
        rules = rules_from_dict(ctx.game.kind, ctx.game.rules)
        if len(ctx.seats) >= rules.max_seats:
            raise LobbyFullError(f"the game is full ({rules.max_seats} players)")

    async def _renumber(self, ctx: Ctx) -> None:
        """Seat numbers stay 0..n-1 in the lobby (two steps: the unique index must hold throughout)."""
        for i, seat in enumerate(ctx.seats):
            seat.number = 1000 + i
        await ctx.session.flush()
        for i, seat in enumerate(ctx.seats):
            seat.number = i
        await ctx.session.flush()

    async def start(self, game_id: int, user_id: int) -> Result:
        """Deal. Shithead goes to the swap phase; Neighbor straight into its first hand."""
        async with self.transaction() as session:
            ctx = await self._load(session, game_id)
            self._require(ctx, GameStatus.LOBBY)
            self._seat_or_raise(ctx, user_id)
            await self._deal(ctx)
            return await self._commit(ctx)

    async def _deal(self, ctx: Ctx) -> None:
        rules = rules_from_dict(ctx.game.kind, ctx.game.rules)
        if len(ctx.seats) < rules.min_seats:
            raise TooFewPlayersError(f"a game needs at least {rules.min_seats} players")
        ctx.game.seed = self.seed_source()
        ctx.state = new_game(ctx.game.kind, rules, len(ctx.seats), ctx.game.seed, ctx.game.dealer)
        ctx.game.started_at = ctx.now
        ctx.notify(NoticeKind.LOBBY)
        ctx.notify(NoticeKind.ANNOUNCE, what="started")
        self._settle(ctx, fresh_keyboards=True)

    # ----------------------------------------------------------------- playing

    async def play(self, game_id: int, user_id: int, move: Move | str, version: int | None = None) -> Result:
        """A player's move (swap, ready, play, pick up, keep/swap…). ``version`` is their button's."""
        async with self.transaction() as session:
            ctx = await self._load(session, game_id)
            self._require(ctx, *ACTIVE)
            seat = self._seat_or_raise(ctx, user_id)
            if version is not None and version != seat.keyboard_version:
                raise StaleVersionError(f"button version {version}, seat is at {seat.keyboard_version}")
            self._apply(ctx, seat.number, move, "human")
            seat.timeouts_in_row = 0
            self._settle(ctx)
            return await self._commit(ctx)

    async def forfeit(self, game_id: int, user_id: int) -> Result:
        async with self.transaction() as session:
            ctx = await self._load(session, game_id)
            self._require(ctx, *ACTIVE, GameStatus.PAUSED)
            seat = self._seat_or_raise(ctx, user_id)
            if seat.forfeited or seat.place is not None:
                raise WrongStateError("you are no longer in this game", ctx.game.status)
            self._apply(ctx, seat.number, Forfeit(), "human")
            self._settle(ctx)
            return await self._commit(ctx)

    def _apply(self, ctx: Ctx, seat: int, move: Move | str, actor: str) -> list[ev.Event]:
        assert ctx.state is not None
        try:
            events = ctx.state.apply(seat, move)
        except EngineError as exc:
            raise MoveRejectedError(str(exc), type(exc).__name__) from exc
        ctx.game.move_count += 1
        seq = ctx.game.move_count
        text = str(move)
        ctx.move_rows.append(
            {
                "game_id": ctx.game.id,
                "seq": seq,
                "seat": seat,
                "move": text,
                "actor": actor,
                "events": [engine.event_to_dict(e) for e in events],
                "created_at": ctx.now,
            }
        )
        ctx.events.extend((seq, e) for e in events)
        if actor != "computer":
            ctx.moved.append((seat, seq))
        if isinstance(move, Forfeit) or text == "f":
            ctx.seat(seat).forfeited = True
        return events

    def _play_computers(self, ctx: Ctx) -> None:
        """Computer seats act until a human is to act or the game ends (capped against bugs)."""
        state = ctx.state
        assert state is not None
        for _ in range(self.settings.computer_move_cap):
            seat = next((s for s in state.seats_to_act() if ctx.seat(s).computer_level), None)
            if seat is None or state.is_over:
                return
            level = ctx.seat(seat).computer_level or "heuristic"
            move = computer_move(state, seat, level, ctx.game.seed * 7919 + ctx.game.move_count)
            self._apply(ctx, seat, move, "computer")
        log.warning("game %s: computer move cap reached; the sweep will carry on", ctx.game.id)

    def _settle(self, ctx: Ctx, *, fresh_keyboards: bool = False) -> None:
        """After moves: computers answer, the status follows the engine, and notices are written."""
        state = ctx.state
        assert state is not None
        status_before = ctx.game.status
        if status_before != GameStatus.PAUSED:  # a paused game waits, computers too
            self._play_computers(ctx)
        ctx.game.snapshot = state.to_dict()
        for seat, seq in ctx.moved:
            ctx.seat(seat).keyboard_version = ctx.game.version
            ctx.notify(NoticeKind.MOVED, seat, seq=seq, version=ctx.game.version)
        self._announce(ctx)
        if state.is_over:
            self._finish(ctx)
        elif status_before == GameStatus.PAUSED:
            ctx.game.paused_from = GameStatus.SWAPPING if state.phase.value == "swap" else GameStatus.PLAYING
        else:
            ctx.game.status = GameStatus.SWAPPING if state.phase.value == "swap" else GameStatus.PLAYING
            new_phase = ctx.game.status != status_before
            self._issue_keyboards(ctx, fresh=fresh_keyboards or new_phase)
            if new_phase or (ctx.game.status == GameStatus.PLAYING and self._table_changed(ctx)):
                self._restart_clock(ctx)
        ctx.notify(NoticeKind.TABLE)

    @staticmethod
    def _table_changed(ctx: Ctx) -> bool:
        """Did anything happen beyond other players leaving? (Then the seat to act needs new buttons.)"""
        return (
            any(not isinstance(e, ev.Forfeited) for _, e in ctx.events)
            or ctx.state is None
            or (ctx.state.to_act != ctx.to_act_before)
        )

    def _issue_keyboards(self, ctx: Ctx, *, fresh: bool) -> None:
        """New buttons for the human(s) who may act now."""
        state = ctx.state
        assert state is not None
        movers = {seat for seat, _ in ctx.moved}
        for number in state.seats_to_act():
            seat = ctx.seat(number)
            if seat.computer_level:
                continue
            if state.phase.value == "swap":
                if fresh or number in movers:
                    seat.keyboard_version = ctx.game.version
                    ctx.notify(NoticeKind.SWAP, number, version=ctx.game.version)
            elif fresh or self._table_changed(ctx):
                seat.keyboard_version = ctx.game.version
                ctx.notify(NoticeKind.TURN, number, version=ctx.game.version)

    def _announce(self, ctx: Ctx) -> None:
        """New group messages for what deserves a notification: someone goes out or leaves."""
        for seq, event in ctx.events:
            if isinstance(event, ev.WentOut) and ctx.state and not ctx.state.is_over:
                ctx.notify(NoticeKind.ANNOUNCE, event.seat, what="went_out", place=event.place, seq=seq)
            elif isinstance(event, ev.Eliminated) and ctx.state and not ctx.state.is_over:
                ctx.notify(NoticeKind.ANNOUNCE, event.seat, what="eliminated", place=event.place, seq=seq)
            elif isinstance(event, ev.Forfeited) and event.seat not in ctx.removed:
                ctx.notify(NoticeKind.ANNOUNCE, event.seat, what="forfeited", place=event.place, seq=seq)

    def _finish(self, ctx: Ctx) -> None:
        outcome = ctx.state.outcome if ctx.state else None
        assert outcome is not None
        for seat in ctx.seats:
            seat.place = outcome.places[seat.number]
            seat.is_loser = outcome.loser == seat.number
        self._close(ctx, GameStatus.FINISHED)
        ctx.notify(
            NoticeKind.ANNOUNCE,
            what="over",
            places=list(outcome.places),
            winners=list(outcome.winners),
            loser=outcome.loser,
        )

    def _close(self, ctx: Ctx, status: GameStatus) -> None:
        ctx.game.status = status
        ctx.game.finished_at = ctx.now
        ctx.game.deadline_at = ctx.game.due_at = None
        ctx.game.pause_votes = []

    def _restart_clock(self, ctx: Ctx) -> None:
        """Whoever must act now gets the full turn time (the swap phase has one for everybody);
        with the chat's "deadlines skip quiet hours", the time in the player's quiet hours is not counted."""
        game = ctx.game
        game.turn_started_at = ctx.now
        game.reminders_sent = 0
        if not game.turn_seconds:
            game.deadline_at = game.due_at = None
            return
        quiet = self._quiet_of_player_to_act(ctx) if ctx.chat.deadlines_skip_quiet else None
        game.deadline_at = deadline_after(ctx.now, game.turn_seconds, quiet)
        self._schedule_next(ctx)

    def _quiet_of_player_to_act(self, ctx: Ctx) -> QuietHours | None:
        to_act = ctx.state.to_act if ctx.state else None
        return None if to_act is None else ctx.quiet.get(to_act)

    def _schedule_next(self, ctx: Ctx) -> None:
        """``due_at``: the next reminder of this turn, else its deadline."""
        game = ctx.game
        assert game.deadline_at is not None and game.turn_seconds
        offsets = reminder_offsets(game.turn_seconds, ctx.chat.reminders)
        quiet = self._quiet_of_player_to_act(ctx)
        upcoming = next_reminder(game.deadline_at, offsets, game.reminders_sent, quiet, ctx.now)
        game.due_at = upcoming[0] if upcoming else game.deadline_at

    # ----------------------------------------------------------------- the rest of a game's life

    async def pause(self, game_id: int, user_id: int, *, is_admin: bool = False) -> Result:
        async with self.transaction() as session:
            ctx = await self._load(session, game_id)
            self._require(ctx, *ACTIVE)
            self._creator_or_admin(ctx, user_id, is_admin)
            self._pause(ctx)
            return await self._commit(ctx)

    def _pause(self, ctx: Ctx) -> None:
        game = ctx.game
        game.paused_from, game.status, game.paused_at = game.status, GameStatus.PAUSED, ctx.now
        game.pause_votes = []
        game.deadline_at = None
        game.due_at = ctx.now + timedelta(days=self.settings.paused_expiry_days)
        ctx.notify(NoticeKind.ANNOUNCE, what="paused")
        ctx.notify(NoticeKind.TABLE)

    async def resume(self, game_id: int, user_id: int, *, is_admin: bool = False) -> Result:
        """Resume a paused game; the current turn starts again with its full time."""
        async with self.transaction() as session:
            ctx = await self._load(session, game_id)
            self._require(ctx, GameStatus.PAUSED)
            if not is_admin and ctx.game.created_by != user_id and user_id not in self._players_still_in(ctx):
                raise NotAllowedError("only a player still in the game, its creator or a chat admin may resume")
            ctx.game.status = ctx.game.paused_from or GameStatus.PLAYING
            ctx.game.paused_at = ctx.game.paused_from = None
            self._restart_clock(ctx)
            self._issue_keyboards(ctx, fresh=True)
            ctx.notify(NoticeKind.ANNOUNCE, what="resumed")
            ctx.notify(NoticeKind.TABLE)
            return await self._commit(ctx)

    async def abort(self, game_id: int, user_id: int, *, is_admin: bool = False) -> Result:
        async with self.transaction() as session:
            ctx = await self._load(session, game_id)
            self._require(ctx, GameStatus.LOBBY, *ACTIVE, GameStatus.PAUSED)
            self._creator_or_admin(ctx, user_id, is_admin)
            was_lobby = ctx.game.status == GameStatus.LOBBY
            self._close(ctx, GameStatus.ABORTED)
            ctx.notify(NoticeKind.LOBBY if was_lobby else NoticeKind.TABLE)
            ctx.notify(NoticeKind.ANNOUNCE, what="aborted", by=user_id)
            for seat in ctx.seats:
                if seat.player_id and not was_lobby:
                    seat.keyboard_version = ctx.game.version
                    ctx.notify(NoticeKind.MOVED, seat.number, seq=0, version=ctx.game.version)
            return await self._commit(ctx)

    async def rematch(self, game_id: int, user_id: int) -> Result:
        """The same players again (but those who left), in a new game dealt by the loser (or the
        worst place). Two Rematch presses at once: one game; the other is told it is open."""
        try:
            return await self._rematch(game_id, user_id)
        except OpenRaceError:
            async with self.sessions() as session:
                game = await repo.get_game(session=session, game_id=game_id)
            raise await self._already_open(game.chat_id if game else 0) from None

    async def _rematch(self, game_id: int, user_id: int) -> Result:
        async with self.transaction() as session:
            old = await self._load(session, game_id, write=False)
            if old.game.status != GameStatus.FINISHED:
                raise WrongStateError("only a finished game can be played again", old.game.status)
            if old.seat_of(user_id) is None:
                raise NotAPlayerError(f"user {user_id} did not play game {game_id}")
            existing = await repo.open_game_in_chat(session=session, chat_id=old.game.chat_id)
            if existing is not None:
                raise AlreadyOpenError(existing.id or 0, existing.status, existing.table_message_id)
            kept = [s for s in old.seats if not s.forfeited]  # who left (or was removed) is not dealt in again
            if len(kept) < 2:
                raise TooFewPlayersError("fewer than two players are left for a rematch")
            worst = max(kept, key=lambda s: (s.is_loser, s.place or 0))
            game = await repo.add_game(
                session=session,
                game=Game(
                    chat_id=old.game.chat_id,
                    kind=old.game.kind,
                    rules=old.game.rules,
                    created_by=user_id,
                    dealer=kept.index(worst),
                    rematch_of=game_id,
                    turn_seconds=old.chat.turn_seconds,
                ),
            )
            ctx = Ctx(session, game, [], old.chat, self.clock())
            for number, seat in enumerate(kept):
                clone = Seat(
                    game_id=game.id or 0,
                    number=number,
                    player_id=seat.player_id,
                    computer_level=seat.computer_level,
                    name=seat.name,
                )
                ctx.seats.append(await repo.add_seat(session=session, seat=clone))
            await self._deal(ctx)
            return await self._commit(ctx)

    async def timeout(self, game_id: int, version: int) -> Result:
        """Act for whoever let the deadline pass. ``version`` is the game version the timer saw:
        if anything happened since, the timer lost the race and nothing is done."""
        async with self.transaction() as session:
            ctx = await self._load(session, game_id)
            if ctx.loaded_version != version:
                raise StaleVersionError(f"timer for version {version}, game is at {ctx.loaded_version}")
            self._require(ctx, *ACTIVE)
            state = ctx.state
            assert state is not None
            for number in list(state.seats_to_act()):
                if ctx.seat(number).computer_level:
                    continue
                self._time_out(ctx, number)
            self._settle(ctx)
            return await self._commit(ctx)

    def _time_out(self, ctx: Ctx, number: int) -> None:
        state = ctx.state
        assert state is not None
        seat = ctx.seat(number)
        seat.timeouts_in_row += 1
        limit = ctx.chat.max_timeouts
        if limit and seat.timeouts_in_row >= limit and state.phase.value != "swap":
            ctx.removed.add(number)
            self._apply(ctx, number, Forfeit(), "timeout")
            ctx.notify(NoticeKind.ANNOUNCE, number, what="removed", timeouts=seat.timeouts_in_row)
            return
        # The move log marks these moves "timeout": the table tells who timed out and what was done.
        for move in timeout_moves(state, number, ctx.game.seed + ctx.game.move_count):
            self._apply(ctx, number, move, "timeout")

    # ----------------------------------------------------------------- idle players: the timers' use cases

    async def due(self, limit: int = 100) -> list[tuple[int, int]]:
        """Games whose timer is due now, as (id, version) to fire with :meth:`fire_due`."""
        async with self.sessions() as session:
            return await repo.due_game_versions(session=session, now=self.clock(), limit=limit)

    async def leaderboard(self, chat_id: int, min_games: int = 3) -> list[repo.StatsRow]:
        """A chat's players with at least ``min_games`` finished games, best average place first."""
        async with self.sessions() as session:
            return await repo.chat_leaderboard(session=session, chat_id=chat_id, min_games=min_games)

    async def player_record(self, player_id: int) -> repo.StatsRow | None:
        """A player's finished games across every chat."""
        async with self.sessions() as session:
            return await repo.player_stats(session=session, player_id=player_id)

    async def games_per_preset(self, chat_id: int) -> list[repo.PresetRow]:
        async with self.sessions() as session:
            return await repo.preset_stats(session=session, chat_id=chat_id)

    async def next_due_at(self) -> datetime | None:
        async with self.sessions() as session:
            return await repo.next_due_at(session=session)

    async def fire_due(self, game_id: int, version: int) -> Result | None:
        """Whatever is due for this game: a reminder, the action at a deadline, a grace period for a
        deadline nobody was watching, or closing a stale lobby or pause.

        ``version`` is what the sweep saw: if the game moved since (a real move, or another worker's
        firing), the timer lost the race (StaleVersionError) — that is what makes a deadline fire
        once. On PostgreSQL the game row is locked FOR UPDATE SKIP LOCKED, so a worker does not even
        wait for a game another worker is firing: None (as when nothing is due any more)."""
        async with self.transaction() as session:
            ctx = await self._read(session, game_id, lock=True, skip_locked=self.dialect == "postgresql")
            if ctx is None:
                return None
            if ctx.loaded_version != version:
                raise StaleVersionError(f"timer for version {version}, game is at {ctx.loaded_version}")
            game = ctx.game
            if game.due_at is None or game.due_at > ctx.now:
                return None
            self._bump(ctx)
            if game.status == GameStatus.LOBBY:
                self._expire(ctx, "lobby_expired", NoticeKind.LOBBY, days=self.settings.lobby_expiry_days)
            elif game.status == GameStatus.PAUSED:
                self._expire(ctx, "pause_expired", NoticeKind.TABLE, days=self.settings.paused_expiry_days)
            elif game.status in ACTIVE:
                self._fire_turn_timer(ctx)
            else:
                game.due_at = None
            return await self._commit(ctx)

    def _expire(self, ctx: Ctx, what: str, kind: NoticeKind, days: int) -> None:
        self._close(ctx, GameStatus.ABORTED)
        ctx.notify(NoticeKind.ANNOUNCE, what=what, days=days)
        ctx.notify(kind)

    def _fire_turn_timer(self, ctx: Ctx) -> None:
        game = ctx.game
        if game.deadline_at is None or not game.turn_seconds:
            game.due_at = None
            return
        missed_after = timedelta(seconds=max(30.0, 3 * self.settings.sweep_seconds))
        if game.deadline_at > ctx.now:
            self._remind(ctx)
        elif ctx.now - game.deadline_at > missed_after:
            self._grant_grace(ctx)
        else:
            for number in list(ctx.state.seats_to_act() if ctx.state else []):
                if not ctx.seat(number).computer_level:
                    self._time_out(ctx, number)
            self._settle(ctx)

    @staticmethod
    def _players_still_in(ctx: Ctx) -> set[int]:
        """The people whose seats still hold cards (or lives): not out, not gone."""
        active = set(ctx.state.active_seats()) if ctx.state else set()
        return {s.player_id for s in ctx.seats if s.player_id is not None and s.number in active}

    def _humans_to_act(self, ctx: Ctx) -> list[Seat]:
        numbers = ctx.state.seats_to_act() if ctx.state else []
        return [ctx.seat(n) for n in numbers if ctx.seat(n).player_id is not None]

    def _remind(self, ctx: Ctx, what: str = "reminder", **extra: object) -> None:
        """A reminder to each player to act (not in their quiet hours); later ones already due are
        not sent again."""
        game = ctx.game
        assert game.deadline_at is not None and game.turn_seconds
        for seat in self._humans_to_act(ctx):
            quiet = ctx.quiet.get(seat.number)
            if quiet is not None and quiet.contains(ctx.now):
                continue
            ctx.notify(NoticeKind.REMINDER, seat.number, what=what, timeouts=seat.timeouts_in_row, **extra)
        offsets = reminder_offsets(game.turn_seconds, ctx.chat.reminders)
        passed = [i for i, offset in enumerate(offsets) if game.deadline_at - timedelta(seconds=offset) <= ctx.now]
        game.reminders_sent = max([game.reminders_sent, *(i + 1 for i in passed)])
        self._schedule_next(ctx)

    def _grant_grace(self, ctx: Ctx) -> None:
        """The deadline passed while no worker was running: not held against anyone. A short grace
        period and a fresh reminder instead of an instant penalty."""
        game = ctx.game
        assert game.turn_seconds
        extra = grace(game.turn_seconds, self.settings.grace_fraction, self.settings.grace_min_seconds)
        game.deadline_at = ctx.now + extra
        game.reminders_sent = len(reminder_offsets(game.turn_seconds, ctx.chat.reminders))
        game.due_at = game.deadline_at
        self._remind(ctx, "grace")
        ctx.notify(NoticeKind.TABLE)

    async def nudge(self, game_id: int, user_id: int) -> Result:
        """Another player asks the bot to remind whoever must act: at most once an hour per game."""
        async with self.transaction() as session:
            ctx = await self._load(session, game_id)
            self._require(ctx, *ACTIVE)
            nudger = self._seat_or_raise(ctx, user_id)
            targets = [s for s in self._humans_to_act(ctx) if s.player_id != user_id]
            if not targets:
                raise NotAllowedError("nobody else is to act")
            interval = timedelta(seconds=self.settings.nudge_interval_seconds)
            if ctx.game.last_nudge_at is not None and ctx.now < ctx.game.last_nudge_at + interval:
                left = int((ctx.game.last_nudge_at + interval - ctx.now).total_seconds())
                raise RateLimitedError("one nudge per hour per game", left)
            awake = [s for s in targets if not (q := ctx.quiet.get(s.number)) or not q.contains(ctx.now)]
            if not awake:
                raise QuietHoursError("the player to act is in their quiet hours")
            ctx.game.last_nudge_at = ctx.now
            for seat in awake:
                ctx.notify(NoticeKind.REMINDER, seat.number, what="nudge", by=nudger.name)
            return await self._commit(ctx)

    async def vote_pause(self, game_id: int, user_id: int, *, is_admin: bool = False) -> Result:
        """Pause at once for the creator or a chat admin; otherwise a vote, and a majority of the
        players still in pauses the game."""
        async with self.transaction() as session:
            ctx = await self._load(session, game_id)
            self._require(ctx, *ACTIVE)
            if is_admin or ctx.game.created_by == user_id:
                self._pause(ctx)
                return await self._commit(ctx)
            self._seat_or_raise(ctx, user_id)
            voters = self._players_still_in(ctx)
            if user_id not in voters:
                raise NotAllowedError("only a player still in the game may vote")
            votes = sorted({*ctx.game.pause_votes, user_id})
            ctx.game.pause_votes = votes
            if 2 * len([v for v in votes if v in voters]) > len(voters):
                self._pause(ctx)
            else:
                ctx.notify(NoticeKind.TABLE)
            return await self._commit(ctx)

    async def set_turn_time(self, chat_id: int, seconds: int | None) -> Chat:
        """A chat's turn time. Its open game uses it from the next turn; a game that had no time
        limit gets one for the current turn at once (else an absent player would hold it forever)."""
        async with self.transaction() as session:
            chat = await repo.get_chat(session=session, chat_id=chat_id)
            if chat is None:
                raise GameNotFoundError(f"unknown chat {chat_id}")
            chat.turn_seconds = seconds
            game = await repo.open_game_in_chat(session=session, chat_id=chat_id)
            if game is not None:
                ctx = await self._load(session, game.id or 0)
                ctx.game.turn_seconds = seconds
                if ctx.game.status in ACTIVE and (seconds is None or ctx.game.deadline_at is None):
                    self._restart_clock(ctx)
                    ctx.notify(NoticeKind.TABLE)
                await self._commit(ctx)
            return chat

    async def set_quiet_hours(self, player_id: int, quiet: QuietHours | None) -> None:
        async with self.transaction() as session:
            player = await repo.get_player(session=session, player_id=player_id)
            if player is None:
                raise GameNotFoundError(f"unknown player {player_id}")
            player.quiet_start = quiet.start if quiet else None
            player.quiet_end = quiet.end if quiet else None
            player.timezone = quiet.zone if quiet else None

    async def quiet_hours(self, player_id: int) -> QuietHours | None:
        async with self.sessions() as session:
            player = await repo.get_player(session=session, player_id=player_id)
        if player is None or player.quiet_start is None or player.quiet_end is None:
            return None
        return QuietHours(player.quiet_start, player.quiet_end, player.timezone or "UTC")

    # ----------------------------------------------------------------- reading

    async def game_view(self, game_id: int) -> Ctx:
        """A read-only snapshot of a game, its seats and chat (for rendering)."""
        async with self.sessions() as session:
            return await self._load(session, game_id, write=False)

    async def game_and_moves(self, game_id: int, count: int = 40) -> tuple[Ctx, list[MoveRow]]:
        """A read-only snapshot and its newest moves, in one session (for delivering notices)."""
        async with self.sessions() as session:
            ctx = await self._load(session, game_id, write=False)
            return ctx, await repo.last_moves(session=session, game_id=game_id, count=count)

    async def open_game(self, chat_id: int) -> Game | None:
        async with self.sessions() as session:
            return await repo.open_game_in_chat(session=session, chat_id=chat_id)

    async def games_of(self, player_id: int, *, open_only: bool = True) -> list[repo.PlayerGame]:
        async with self.sessions() as session:
            return await repo.games_of_player(session=session, player_id=player_id, open_only=open_only)

    async def recent_moves(self, game_id: int, count: int = 30) -> list[MoveRow]:
        async with self.sessions() as session:
            return await repo.last_moves(session=session, game_id=game_id, count=count)

    async def record_game_messages(self, game_id: int, **message_ids: int | None) -> None:
        """Remember the lobby/table message ids the front end keeps editing."""
        async with self.transaction() as session:
            await repo.set_game_messages(session=session, game_id=game_id, **message_ids)

    async def reserve_send(self, key: str, capacity: float, per_second: float) -> float:
        """A token from the fleet's send bucket ``key`` (PostgreSQL): the seconds to wait first."""
        async with self.sessions() as session, session.begin():
            return await repo.reserve_send(session=session, key=key, capacity=capacity, per_second=per_second)

    async def hold_sends(self, key: str, seconds: float, per_second: float) -> None:
        async with self.sessions() as session, session.begin():
            await repo.hold_sends(session=session, key=key, seconds=seconds, per_second=per_second)

    async def known_private_messages(self, player_id: int) -> set[int]:
        """Ids of the messages the bot keeps track of in a player's private chat (open games)."""
        async with self.sessions() as session:
            return await repo.private_message_ids(session=session, player_id=player_id)

    async def record_private_message(
        self, game_id: int, seat: int, message_id: int | None, version: int | None = None
    ) -> None:
        async with self.transaction() as session:
            await repo.set_seat_message(
                session=session, game_id=game_id, number=seat, message_id=message_id, version=version
            )

    async def record_reminder_message(self, game_id: int, seat: int, message_id: int | None) -> None:
        async with self.transaction() as session:
            await repo.set_reminder_message(session=session, game_id=game_id, number=seat, message_id=message_id)

    async def moves(self, game_id: int) -> list[MoveRow]:
        async with self.sessions() as session:
            return await repo.moves_of(session=session, game_id=game_id)

    async def rebuild(self, game_id: int) -> AnyState:
        """The game replayed from its seed and move log (equal to the stored snapshot)."""
        async with self.sessions() as session:
            game = await repo.get_game(session=session, game_id=game_id)
            if game is None or game.snapshot is None:
                raise GameNotFoundError(f"game {game_id} has not been dealt")
            seats = len(await repo.seats_of(session=session, game_id=game_id))
            moves = await repo.moves_of(session=session, game_id=game_id)
        rules = rules_from_dict(game.kind, game.rules)
        return engine.replay(game.kind, rules, seats, game.seed, [(m.seat, m.move) for m in moves], game.dealer)

    # ----------------------------------------------------------------- checks

    def _require(self, ctx: Ctx, *statuses: str) -> None:
        if ctx.game.status not in statuses:
            raise WrongStateError(f"game {ctx.game.id} is {ctx.game.status}", ctx.game.status)

    def _seat_or_raise(self, ctx: Ctx, user_id: int) -> Seat:
        seat = ctx.seat_of(user_id)
        if seat is None:
            raise NotAPlayerError(f"user {user_id} has no seat at game {ctx.game.id}")
        return seat

    def _creator_or_admin(self, ctx: Ctx, user_id: int, is_admin: bool) -> None:
        if not is_admin and ctx.game.created_by != user_id:
            raise NotAllowedError("only the game's creator or a chat admin may do this")


__all__: Sequence[str] = ["GameService", "Result", "ServiceError", "UserInfo"]
