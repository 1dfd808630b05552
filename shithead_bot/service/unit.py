"""The unit of work around every use case: one transaction, and the game loaded in it.

:class:`Core` holds what every use case needs (sessions, settings, the clock) and opens the
transaction; :class:`GameTx` is a game loaded inside one — locked, its version bumped once, its
new moves and notices collected — and :meth:`Core.commit` writes it all in a few statements.
Nothing of this leaves the service: callers get a :class:`Result` and frozen snapshots.

The retry on a transient database fault is in :mod:`~shithead_bot.service.faults`, the rerun
after computers thought ahead in :mod:`~shithead_bot.service.thinking`, and the wrappers that
give each use case its kind in :mod:`~shithead_bot.service.kinds`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Self

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.orm.exc import StaleDataError

from engine import AnyState, load_game
from engine import events as ev
from persistence import repo
from persistence.db import make_engine, make_sessionmaker
from persistence.models import Chat, Game, Player, Seat, utcnow
from shithead_bot.config import Settings
from shithead_bot.service import ratings
from shithead_bot.service.errors import (
    AlreadyOpenError,
    GameNotFoundError,
    NotAllowedError,
    NotAPlayerError,
    OpenRaceError,
    StaleVersionError,
    WrongStateError,
)
from shithead_bot.service.notices import Announcement, AnnouncePayload, NoPayload, Notice, NoticeKind, Payload
from shithead_bot.service.schedule import QuietHours
from shithead_bot.service.snapshot import ChatSnapshot, GameInfo, GameSnapshot, MoveLine, Revealed, SeatSnapshot
from shithead_bot.service.status import Actor, GameStatus
from shithead_bot.service.thinking import Thinker, draw_seed
from shithead_bot.service.waiting import Waiting, look, watch

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]


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
    thinking: bool = False  # computers must think before they move: :func:`play_on` carries on
    ignored_settings: str | None = None  # the chat's saved house rules were invalid: why (the preset was used)


@dataclass
class GameTx:
    """A game loaded inside one transaction, and what the use case is doing to it."""

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
    autoplay: dict[int, str] = field(default_factory=dict)  # seat number -> its player's autoplay setting
    autoplayed: set[int] = field(default_factory=set)  # seqs of the forced moves made for humans
    away: dict[int, datetime] = field(default_factory=dict)  # seat number -> its away player's return time
    active: dict[int, datetime] = field(default_factory=dict)  # seat number -> its player's last press or command
    notify_modes: dict[int, str] = field(default_factory=dict)  # seat number -> when turns notify its player
    waiting: Waiting = field(default_factory=Waiting)  # who had to act when loaded, inboxes, digests (waiting.py)
    hand_back: bool = False  # a computer that must think first is left for later (see turns.play_computers)
    computers_pending: bool = False  # …and one was: the computers play on after this commits
    removed: set[int] = field(default_factory=set)  # seats removed for timing out (told once, not twice)
    notices: list[Notice] = field(default_factory=list)
    finished: bool = False  # the game ended in this transaction: it is rated when it commits
    thinker: Thinker | None = None  # computers' decisions known ahead (None: decided inline)
    hand_over: bool = False  # a press: its delivery may plan from this commit's snapshot (see Handed)
    delivery_pending: bool = False  # notices of the game were undelivered when its seats were read

    def seat_of(self, player_id: int) -> Seat | None:
        return next((s for s in self.seats if s.player_id == player_id), None)

    def seat(self, number: int) -> Seat:
        return self.seats[number]

    def stood_in(self, number: int) -> bool:
        """A human's seat a computer plays now: its player is away, or it took the seat for good."""
        seat = self.seats[number]
        return not seat.computer_level and (seat.standin or number in self.away)

    def chain_levels(self) -> dict[int, str]:
        """Who plays by themselves: computer seats at their level, stood-in seats at the chat's."""
        levels = {s.number: s.computer_level for s in self.seats if s.computer_level}
        levels.update({s.number: self.chat.standin_level for s in self.seats if self.stood_in(s.number)})
        return levels

    def notify(self, kind: NoticeKind, seat: int | None = None, payload: Payload | None = None) -> None:
        """A notice of this kind (its payload: that kind's, see ``notices.PAYLOADS``; None: its defaults)."""
        self.notices.append(Notice(kind, self.game.id or 0, seat, NoPayload() if payload is None else payload))

    def announce(self, what: Announcement | AnnouncePayload, seat: int | None = None) -> None:
        payload = what if isinstance(what, AnnouncePayload) else AnnouncePayload(what)
        self.notify(NoticeKind.ANNOUNCE, seat, payload)

    @property
    def status(self) -> GameStatus:
        return GameStatus(self.game.status)

    def require(self, *statuses: GameStatus) -> None:
        if self.game.status not in statuses:
            raise WrongStateError(f"game {self.game.id} is {self.game.status}", self.game.status)

    def seat_or_raise(self, user_id: int) -> Seat:
        seat = self.seat_of(user_id)
        if seat is None:
            raise NotAPlayerError(f"user {user_id} has no seat at game {self.game.id}")
        return seat

    def creator_or_admin(self, user_id: int, is_admin: bool) -> None:
        if not is_admin and self.game.created_by != user_id:
            raise NotAllowedError("only the game's creator or a chat admin may do this")

    def snapshot(self, moves: tuple[MoveLine, ...] = ()) -> GameSnapshot:
        """The frozen read model of this game as it is in the transaction."""
        return GameSnapshot(
            game=GameInfo.of(self.game),
            seats=[
                SeatSnapshot.of(
                    s,
                    language=self.languages.get(s.number),
                    away_until=self.away.get(s.number),
                    stood_in=self.stood_in(s.number),
                    last_active_at=self.active.get(s.number),
                    notify=self.notify_modes.get(s.number, "smart"),
                )
                for s in self.seats
            ],
            chat=ChatSnapshot.of(self.chat),
            now=self.now,
            state=self.state.copy() if self.state is not None else None,
            moves=moves,
            revealed=Revealed.of(self.game),
        )


@dataclass(frozen=True)
class Handed:
    """A press's committed game, handed to the first plan of its delivery (``Outbox``) so that the
    delivery does not read the same game, seats and chat again milliseconds later. It stands for the
    game only while the notices that plan claims are exactly the ones this commit wrote, on their
    first try: any other change of the game since (another press, a computer, a timer, another
    worker) writes notices of its own, and the plan reads the game instead. What tells nobody — a
    sender's report recording the message ids it sent — must not land in between: a press made
    while a delivery of the game was pending hands nothing over (that report may record ids after
    the press read the seats, and a plan from its snapshot would retire and edit the wrong
    messages, leaving a turn's keyboard live beside the new one)."""

    snapshot: GameSnapshot
    notices: frozenset[int]  # the ids of the outbox rows this commit wrote

    def stands_for(self, claimed: list[tuple[int, int]]) -> bool:
        """Whether it still is the game for these claimed notices, ``(id, attempts)`` each."""
        return {i for i, _ in claimed} == self.notices and all(attempts == 1 for _, attempts in claimed)


HANDED = "handed"  # the session's info key of a commit's Handed, published once it committed
MAX_HANDED = 256  # games whose last press's snapshot waits for its delivery, at most (the oldest go)


class Core:
    """What every use case needs, and the transaction they run in."""

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
        self._seed_source = seed_source or (lambda: secrets.randbits(62))
        self.thinker = Thinker()
        bind = sessions.kw.get("bind")
        self.dialect = bind.dialect.name if bind is not None else "sqlite"
        self._write_lock = asyncio.Lock() if self.dialect == "sqlite" else None
        self._engine: AsyncEngine | None = None
        self.ended_games: tuple[datetime, dict[str, int]] | None = None  # the vitals' count of ended games, when
        self._handed: OrderedDict[int, Handed] = OrderedDict()  # game id -> its last press, committed

    @classmethod
    def connect(cls, settings: Settings) -> Self:
        """A service on the database of ``settings`` (its own engine: :meth:`close` it at the end)."""
        engine = make_engine(settings.database_url)
        service = cls(make_sessionmaker(engine), settings)
        service._engine = engine
        return service

    async def close(self) -> None:
        """Close the database connections of a service that :meth:`connect` made."""
        if self._engine is not None:
            await self._engine.dispose()

    def seed_source(self) -> int:
        """A new game's seed (the same again when the use case runs again: see
        :func:`~shithead_bot.service.thinking.think_first`)."""
        return draw_seed(self._seed_source)

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
            async with self.sessions() as session:
                async with session.begin():
                    yield session
                self._publish(session.info.pop(HANDED, None))
        except StaleDataError as exc:
            raise StaleVersionError("the game changed under this transaction") from exc
        except IntegrityError as exc:
            if "uq_game_open_per_chat" in str(exc.orig) or "game.chat_id" in str(exc.orig):
                raise OpenRaceError("another lobby was opened in this chat at the same time") from exc
            if "move" in str(exc.orig).lower():
                raise StaleVersionError("another change won the race") from exc
            raise

    def _publish(self, handed: Handed | None) -> None:
        if handed is None:
            return
        self._handed.pop(handed.snapshot.game.id, None)
        self._handed[handed.snapshot.game.id] = handed
        while len(self._handed) > MAX_HANDED:
            self._handed.popitem(last=False)

    def take_handed(self, game_id: int) -> Handed | None:
        """The snapshot the game's last press committed, if no delivery took it yet (once)."""
        return self._handed.pop(game_id, None)

    async def load(self, session: AsyncSession, game_id: int, *, write: bool = True) -> GameTx:
        """The game, its seats and chat; for writing, its row is locked and its version bumped."""
        tx = await self.read(session, game_id, lock=write)
        if tx is None:
            raise GameNotFoundError(f"no game {game_id}")
        if write:
            self.bump(tx)
        return tx

    async def read(
        self, session: AsyncSession, game_id: int, *, lock: bool, skip_locked: bool = False
    ) -> GameTx | None:
        if lock:  # the locked read refreshes what the session read before: its changes are written first
            await session.flush()
        found = await repo.get_game_and_chat(session=session, game_id=game_id, lock=lock, skip_locked=skip_locked)
        if found is None:
            return None
        game, chat = found
        rows = await repo.seats_with_players(session=session, game_id=game_id, fresh=lock)
        tx = GameTx(
            session,
            game,
            [row.seat for row in rows],
            chat,
            self.clock(),
            loaded_version=game.version,
            thinker=self.thinker,
        )
        tx.quiet = {
            row.seat.number: QuietHours(row.quiet_start, row.quiet_end, row.timezone or "UTC")
            for row in rows
            if row.quiet_start is not None and row.quiet_end is not None
        }
        # A delivery pending as the seats were read may record message ids in them after: this
        # commit's snapshot is then not handed over (Handed).
        tx.delivery_pending = any(row.delivery_pending for row in rows)
        tx.languages = {row.seat.number: row.language for row in rows if row.language}
        tx.autoplay = {row.seat.number: row.autoplay for row in rows if row.autoplay}
        tx.active = {row.seat.number: row.last_active_at for row in rows if row.last_active_at is not None}
        tx.notify_modes = {row.seat.number: row.notify for row in rows if row.notify}
        tx.away = {
            row.seat.number: row.away_until
            for row in rows
            if row.away_until is not None and row.away_until > tx.now and not row.seat.forfeited
        }
        if game.snapshot is not None:
            tx.state = load_game(game.snapshot)
            tx.to_act_before = tx.state.to_act
        tx.waiting = look(tx, rows)
        return tx

    @staticmethod
    def bump(tx: GameTx) -> None:
        """One version bump per transaction; the flush checks the version loaded."""
        tx.game.version = tx.loaded_version + 1
        tx.game.updated_at = tx.now

    async def commit(self, tx: GameTx) -> Result:
        """Write the game, the new moves and the notices: a few statements, no per-row objects."""
        watch(tx)  # inboxes to edit, digests to arm
        await tx.session.flush()
        await repo.insert_moves(session=tx.session, rows=tx.move_rows)
        ids = await repo.insert_outbox(
            session=tx.session,
            rows=[
                {"game_id": n.game_id, "kind": str(n.kind), "payload": n.to_json(), "created_at": tx.now}
                for n in tx.notices
            ],
        )
        # (a finished game's ratings are written apart)
        if tx.hand_over and ids and not tx.finished and not tx.delivery_pending:
            tx.session.info[HANDED] = Handed(tx.snapshot(), frozenset(ids))
        if tx.finished:
            await ratings.record_game(
                tx.session, game_id=tx.game.id or 0, chat_id=tx.game.chat_id, seats=tx.seats, when=tx.now
            )
            await repo.count_finished_game(session=tx.session, game_id=tx.game.id or 0, stand_in=Actor.STANDIN)
        return Result(tx.game.id or 0, tx.game.version, tx.notices, tx.game.status, tx.computers_pending)

    async def player(self, session: AsyncSession, user: UserInfo) -> Player:
        """The player row of a user, created on first sight (an upsert) and kept up to date."""
        return await repo.ensure_player(
            session=session,
            player_id=user.id,
            first_name=user.first_name,
            username=user.username,
            language=user.language,
        )

    async def chat(self, session: AsyncSession, chat_id: int, kind: str, title: str) -> Chat:
        """The chat row (an upsert); a new chat gets the configured default turn time."""
        return await repo.ensure_chat(
            session=session, chat_id=chat_id, kind=kind, title=title, turn_seconds=self.settings.default_turn_seconds
        )

    async def already_open(self, chat_id: int) -> AlreadyOpenError:
        """The refusal for a chat whose game is not over: which game, and its message to point at."""
        async with self.sessions() as session:
            game = await repo.open_game_in_chat(session=session, chat_id=chat_id)
        if game is None:  # the winner was closed in between
            return AlreadyOpenError(0, GameStatus.ABORTED)
        return AlreadyOpenError(game.id or 0, game.status, game.lobby_message_id or game.table_message_id)

    def new_tx(self, session: AsyncSession, game: Game, chat: Chat) -> GameTx:
        """A game created in this transaction (no seats yet)."""
        return GameTx(session, game, [], chat, self.clock(), thinker=self.thinker)
