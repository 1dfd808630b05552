"""The rest of a game's life: pausing (at once, or by a majority's vote), resuming, aborting."""

from __future__ import annotations

from shithead_bot.service.deadlines import restart_clock
from shithead_bot.service.errors import NotAllowedError
from shithead_bot.service.notices import Announcement, AnnouncePayload, MovedPayload, NoticeKind
from shithead_bot.service.snapshot import ACTIVE
from shithead_bot.service.status import GameStatus
from shithead_bot.service.turns import close, pause, players_still_in, settle
from shithead_bot.service.unit import Core, Result


async def pause_game(core: Core, game_id: int, user_id: int, *, is_admin: bool = False) -> Result:
    """Pause at once: the game's creator or a chat admin."""
    async with core.transaction() as session:
        tx = await core.load(session, game_id)
        tx.require(*ACTIVE)
        tx.creator_or_admin(user_id, is_admin)
        pause(tx, core.settings)
        return await core.commit(tx)


async def vote_pause(core: Core, game_id: int, user_id: int, *, is_admin: bool = False) -> Result:
    """Pause at once for the creator or a chat admin; otherwise a vote, and a majority of the players
    still in pauses the game."""
    async with core.transaction() as session:
        tx = await core.load(session, game_id)
        tx.require(*ACTIVE)
        if is_admin or tx.game.created_by == user_id:
            pause(tx, core.settings)
            return await core.commit(tx)
        tx.seat_or_raise(user_id)
        voters = players_still_in(tx)
        if user_id not in voters:
            raise NotAllowedError("only a player still in the game may vote")
        votes = sorted({*tx.game.pause_votes, user_id})
        tx.game.pause_votes = votes
        if 2 * len([v for v in votes if v in voters]) > len(voters):
            pause(tx, core.settings)
        else:
            tx.notify(NoticeKind.TABLE)
        return await core.commit(tx)


async def resume(core: Core, game_id: int, user_id: int, *, is_admin: bool = False) -> Result:
    """Resume a paused game; the current turn starts again with its full time."""
    async with core.transaction() as session:
        tx = await core.load(session, game_id)
        tx.require(GameStatus.PAUSED)
        if not is_admin and tx.game.created_by != user_id and user_id not in players_still_in(tx):
            raise NotAllowedError("only a player still in the game, its creator or a chat admin may resume")
        tx.game.status = tx.game.paused_from or GameStatus.PLAYING
        tx.game.paused_at = tx.game.paused_from = None
        restart_clock(tx)
        tx.announce(Announcement.RESUMED)
        settle(tx, core.settings, fresh_keyboards=True)  # a seat stood in meanwhile plays now
        return await core.commit(tx)


async def abort(core: Core, game_id: int, user_id: int, *, is_admin: bool = False) -> Result:
    """End a game (its creator or a chat admin): nobody wins; everyone's buttons go."""
    async with core.transaction() as session:
        tx = await core.load(session, game_id)
        tx.require(GameStatus.LOBBY, *ACTIVE, GameStatus.PAUSED)
        tx.creator_or_admin(user_id, is_admin)
        was_lobby = tx.status == GameStatus.LOBBY
        close(tx, GameStatus.ABORTED)
        tx.notify(NoticeKind.LOBBY if was_lobby else NoticeKind.TABLE)
        tx.announce(AnnouncePayload(Announcement.ABORTED, by=user_id))
        for seat in tx.seats:
            if seat.player_id and not was_lobby:
                seat.keyboard_version = tx.game.version
                tx.notify(NoticeKind.MOVED, seat.number, MovedPayload(seq=0, version=tx.game.version))
        return await core.commit(tx)
