"""The lobby: opening a game, joining and leaving, computer seats, dealing, and playing again."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession

import engine
from engine import AnyRules, EngineError, GameKind, rules_from_dict
from engine.ai import DEFAULT_LEVEL, level_name
from persistence import repo
from persistence.models import Chat, Game, Player, Seat
from shithead_bot.names import computer_name
from shithead_bot.service.errors import (
    AlreadyDoneError,
    AlreadyJoinedError,
    AlreadyOpenError,
    LobbyFullError,
    NeedsPrivateChatError,
    NotAPlayerError,
    OpenRaceError,
    SupersededError,
    TooFewPlayersError,
    WrongStateError,
)
from shithead_bot.service.notices import Announcement, NoticeKind, Tidy, TidyPayload
from shithead_bot.service.status import GameStatus
from shithead_bot.service.turns import close, deal
from shithead_bot.service.unit import Core, GameTx, Result, UserInfo


def rules_for(chat: Chat, kind: str | None = None, preset_name: str | None = None) -> tuple[AnyRules, str | None]:
    """The rules a new game in this chat gets — the chat's choice, or the given kind and preset —
    and, when the chat's saved house rules can no longer be used, why (they are left out)."""
    kind = kind or chat.game_kind
    base: AnyRules
    if kind == GameKind.NEIGHBOR:
        base, saved_applies = engine.NeighborRules(), chat.game_kind == GameKind.NEIGHBOR
    else:
        base = engine.preset(preset_name or (chat.preset if chat.preset in engine.PRESETS else "standard"))
        saved_applies = chat.game_kind == GameKind.SHITHEAD and (preset_name is None or preset_name == chat.preset)
    if not saved_applies or not chat.house_rules:
        return base, None
    try:
        return base.with_rules(chat.house_rules), None
    except EngineError as exc:  # saved by an older version, or edited by hand: play the preset
        return base, str(exc)


async def open_lobby(
    core: Core,
    chat_id: int,
    creator: UserInfo | None,
    *,
    kind: str | None = None,
    preset: str | None = None,
    house_rules: dict[str, str] | None = None,
    chat_kind: str = "group",
    chat_title: str = "",
    thread_id: int | None = None,
) -> Result:
    """Open a lobby in a chat (one open game per chat); the creator joins if the bot can reach them.
    ``creator`` None: an anonymous admin opened it — no creator, nobody seated, a chat admin starts it.

    ``kind``/``preset``/``house_rules`` are for this game only (an invalid house rule is refused
    with its reason, RulesError, and nothing is written). ``thread_id``: the forum topic the game
    lives in. Two lobbies opened at the same moment: one wins, the other gets :class:`AlreadyOpenError`."""
    try:
        async with core.transaction() as session:
            tx, ignored = await _new_lobby(
                core, session, chat_id, creator, kind, preset, house_rules, chat_kind, chat_title
            )
            tx.game.message_thread_id = thread_id
            result = await core.commit(tx)
            result.ignored_settings = ignored
            return result
    except OpenRaceError:
        raise await core.already_open(chat_id) from None


async def open_private_game(
    core: Core,
    user: UserInfo,
    *,
    kind: str | None = None,
    preset: str | None = None,
    house_rules: dict[str, str] | None = None,
    computers: int = 2,
    level: str = DEFAULT_LEVEL,
    chat_title: str = "",
) -> Result:
    """A game in the player's private chat against computer players, dealt at once — one transaction."""
    try:
        async with core.transaction() as session:
            player = await core.player(session, user)
            player.can_message = True  # they are writing to the bot
            tx, _ = await _new_lobby(core, session, user.id, user, kind, preset, house_rules, "private", chat_title)
            for _ in range(computers):
                await _add_computer(tx, level)
            deal(tx, core.settings, core.seed_source())
            _dealt_in_private(tx)
            return await core.commit(tx)
    except OpenRaceError:
        raise await core.already_open(user.id) from None


async def _new_lobby(
    core: Core,
    session: AsyncSession,
    chat_id: int,
    creator: UserInfo | None,
    kind: str | None,
    preset: str | None,
    house_rules: dict[str, str] | None,
    chat_kind: str,
    chat_title: str,
) -> tuple[GameTx, str | None]:
    chat = await core.chat(session, chat_id, chat_kind, chat_title)
    existing = await repo.open_game_in_chat(session=session, chat_id=chat_id)
    if existing is not None:
        raise AlreadyOpenError(existing.id or 0, existing.status, existing.lobby_message_id)
    rules, ignored = rules_for(chat, kind, preset)
    rules = rules.with_rules(house_rules or {})
    player = None if creator is None else await core.player(session, creator)
    game = Game(
        chat_id=chat_id,
        kind=kind or chat.game_kind,
        rules=rules.to_dict(),
        created_by=None if creator is None else creator.id,
        turn_seconds=chat.turn_seconds,
    )
    tx = core.new_tx(session, await repo.add_game(session=session, game=game), chat)
    game.due_at = tx.now + timedelta(days=core.settings.lobby_expiry_days)
    if player is not None and player.can_message:
        await _add_human(tx, player)
    tx.notify(NoticeKind.LOBBY)
    return tx, ignored


async def join(core: Core, game_id: int, user: UserInfo) -> Result:
    async with core.transaction() as session:
        tx = await core.load(session, game_id)
        tx.require(GameStatus.LOBBY)
        player = await core.player(session, user)
        if tx.seat_of(user.id) is not None:
            raise AlreadyJoinedError(f"{user.first_name} is already in game {game_id}")
        if not player.can_message:
            raise NeedsPrivateChatError(user.id, game_id)
        await _add_human(tx, player)
        tx.notify(NoticeKind.LOBBY)
        return await core.commit(tx)


async def leave(core: Core, game_id: int, user_id: int) -> Result:
    async with core.transaction() as session:
        tx = await core.load(session, game_id)
        tx.require(GameStatus.LOBBY)
        seat = tx.seat_or_raise(user_id)
        await repo.delete_seat(session=session, seat=seat)
        tx.seats.remove(seat)
        await _renumber(tx)
        if not any(s.player_id for s in tx.seats):
            close(tx, GameStatus.ABORTED)
            tx.announce(Announcement.LOBBY_CLOSED)
        tx.notify(NoticeKind.LOBBY)
        return await core.commit(tx)


async def add_computer(
    core: Core, game_id: int, user_id: int, level: str = DEFAULT_LEVEL, *, seen: int | None = None
) -> Result:
    """A computer seat. ``seen``: how many computers the presser's lobby showed — the press's
    idempotency key, so two taps on one lobby add one computer (the other: AlreadyDoneError)."""
    async with core.transaction() as session:
        tx = await core.load(session, game_id)
        tx.require(GameStatus.LOBBY)
        tx.seat_or_raise(user_id)
        _check_seen_computers(tx, seen)
        await _add_computer(tx, level)
        tx.notify(NoticeKind.LOBBY)
        return await core.commit(tx)


async def remove_computer(core: Core, game_id: int, user_id: int, *, seen: int | None = None) -> Result:
    """Remove the last computer seat; ``seen`` as for :func:`add_computer`."""
    async with core.transaction() as session:
        tx = await core.load(session, game_id)
        tx.require(GameStatus.LOBBY)
        tx.seat_or_raise(user_id)
        _check_seen_computers(tx, seen)
        computers = [s for s in tx.seats if s.computer_level]
        if not computers:
            raise WrongStateError("there is no computer player to remove", tx.game.status)
        await repo.delete_seat(session=session, seat=computers[-1])
        tx.seats.remove(computers[-1])
        await _renumber(tx)
        tx.notify(NoticeKind.LOBBY)
        return await core.commit(tx)


async def start(core: Core, game_id: int, user_id: int, *, is_admin: bool = False) -> Result:
    """Deal: the lobby's creator or a chat admin (a lobby an anonymous admin opened has no creator).
    Shithead goes to the swap phase; Neighbor straight into its first hand."""
    async with core.transaction() as session:
        tx = await core.load(session, game_id)
        tx.require(GameStatus.LOBBY)
        tx.creator_or_admin(user_id, is_admin)
        previous = await repo.last_dealt_game_in_chat(session=session, chat_id=tx.game.chat_id)
        deal(tx, core.settings, core.seed_source())
        if previous is not None and previous.status == GameStatus.FINISHED:
            retire_rematch(tx, await core.load(session, previous.id or 0, write=False))
        return await core.commit(tx)


async def rematch(core: Core, game_id: int, user_id: int) -> Result:
    """The same players again (but those who left), in a new game dealt by the loser (or the worst
    place). Two Rematch presses at once: one game; the other is told it is open."""
    try:
        async with core.transaction() as session:
            return await core.commit(await _rematch(core, session, game_id, user_id))
    except OpenRaceError:
        async with core.sessions() as session:
            game = await repo.get_game(session=session, game_id=game_id)
        raise await core.already_open(game.chat_id if game else 0) from None


async def _rematch(core: Core, session: AsyncSession, game_id: int, user_id: int) -> GameTx:
    old = await core.load(session, game_id, write=False)
    if old.status != GameStatus.FINISHED:
        raise WrongStateError("only a finished game can be played again", old.game.status)
    if old.seat_of(user_id) is None:
        raise NotAPlayerError(f"user {user_id} did not play game {game_id}")
    existing = await repo.open_game_in_chat(session=session, chat_id=old.game.chat_id)
    if existing is not None:
        raise AlreadyOpenError(existing.id or 0, existing.status, existing.table_message_id)
    last = await repo.last_dealt_game_in_chat(session=session, chat_id=old.game.chat_id)
    if last is not None and last.id != game_id:
        raise SupersededError(f"game {last.id} was dealt after game {game_id}")
    kept = [s for s in old.seats if not s.forfeited]  # who left (or was removed) is not dealt in again
    if len(kept) < 2:
        raise TooFewPlayersError("fewer than two players are left for a rematch")
    worst = max(kept, key=lambda s: (s.is_loser, s.place or 0))
    game = Game(
        chat_id=old.game.chat_id,
        kind=old.game.kind,
        rules=old.game.rules,
        created_by=user_id,
        dealer=kept.index(worst),
        rematch_of=game_id,
        turn_seconds=old.chat.turn_seconds,
        message_thread_id=old.game.message_thread_id,
    )
    tx = core.new_tx(session, await repo.add_game(session=session, game=game), old.chat)
    for number, seat in enumerate(kept):
        clone = Seat(
            game_id=game.id or 0,
            number=number,
            player_id=seat.player_id,
            computer_level=seat.computer_level,
            name=seat.name,
        )
        tx.seats.append(await repo.add_seat(session=session, seat=clone))
    deal(tx, core.settings, core.seed_source())
    _dealt_in_private(tx)
    retire_rematch(tx, old)
    return tx


def retire_rematch(tx: GameTx, previous: GameTx) -> None:
    """A new game is dealt in the chat: the previous game's result messages (the last message of each
    of its players) lose their Rematch."""
    for seat in previous.seats:
        if seat.player_id is not None and seat.private_message_id is not None:
            payload = TidyPayload(Tidy.DROP_KEYBOARD, seat.player_id, seat.private_message_id)
            tx.notify(NoticeKind.TIDY, None, payload)


def _dealt_in_private(tx: GameTx) -> None:
    """A game in a private chat opens with its table and the player's cards, nothing else: no lobby
    message, and no deal announcement with a link to the very chat it is posted in."""
    if tx.chat.kind != "private":
        return
    tx.notices = [n for n in tx.notices if n.kind != NoticeKind.LOBBY and n.announcement != Announcement.STARTED]


async def _add_human(tx: GameTx, player: Player) -> None:
    _check_room(tx)
    seat = Seat(game_id=tx.game.id or 0, number=len(tx.seats), player_id=player.id, name=player.first_name)
    tx.seats.append(await repo.add_seat(session=tx.session, seat=seat))


async def _add_computer(tx: GameTx, level: str) -> None:
    level = level_name(level)  # RulesError when unknown; the old names give the new
    _check_room(tx)
    used = {s.name for s in tx.seats}
    name = next(computer_name(i) for i in range(30) if f"🤖 {computer_name(i)}" not in used)
    seat = Seat(game_id=tx.game.id or 0, number=len(tx.seats), computer_level=level, name=f"🤖 {name}")
    tx.seats.append(await repo.add_seat(session=tx.session, seat=seat))


def _check_seen_computers(tx: GameTx, seen: int | None) -> None:
    if seen is not None and seen != sum(1 for s in tx.seats if s.computer_level):
        raise AlreadyDoneError("the lobby changed since that button was shown")


def _check_room(tx: GameTx) -> None:
    rules = rules_from_dict(tx.game.kind, tx.game.rules)
    if len(tx.seats) >= rules.max_seats:
        raise LobbyFullError(f"the game is full ({rules.max_seats} players)", rules.max_seats)


async def _renumber(tx: GameTx) -> None:
    """Seat numbers stay 0..n-1 in the lobby (two steps: the unique index must hold throughout)."""
    for i, seat in enumerate(tx.seats):
        seat.number = 1000 + i
    await tx.session.flush()
    for i, seat in enumerate(tx.seats):
        seat.number = i
    await tx.session.flush()
