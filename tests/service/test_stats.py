"""Statistics: per-chat leaderboard, a player across chats, per preset."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from persistence import repo
from shithead_bot.service import GameService, GameStatus
from tests.service.helpers import lobby_with, play_humans_to_end, user

FINISHED = GameStatus.FINISHED


async def test_leaderboard_player_and_preset_stats(
    sessions: async_sessionmaker[AsyncSession], service: GameService
) -> None:
    for round_ in range(3):
        game_id = await lobby_with(service, humans=2, computers=1, chat_id=-77, preset="smelly")
        await service.start(game_id, user(0).id)
        await play_humans_to_end(service, game_id, seed=round_)
    other = await lobby_with(service, humans=1, computers=1, chat_id=-78, kind="neighbor")
    await service.start(other, user(0).id)
    await play_humans_to_end(service, other)
    async with sessions() as session:
        board = await repo.chat_leaderboard(session=session, chat_id=-77, status=FINISHED, min_games=3)
        assert [r.player_id for r in board] == sorted(
            [user(0).id, user(1).id], key=lambda p: next(r.average_place for r in board if r.player_id == p)
        )
        assert all(r.games == 3 for r in board)
        assert all(1 <= r.average_place <= 3 for r in board)
        assert sum(r.firsts for r in board) <= 3
        assert await repo.chat_leaderboard(session=session, chat_id=-77, status=FINISHED, min_games=4) == []
        me = await repo.player_stats(session=session, player_id=user(0).id)
        assert me is not None
        assert me.games == 4  # three in one chat, one Neighbor game in another
        presets = {(p.kind, p.preset): p.games for p in await repo.preset_stats(session=session, status=FINISHED)}
        assert presets == {("shithead", "smelly"): 3, ("neighbor", "neighbor"): 1}
        assert await repo.player_stats(session=session, player_id=999_999) is None
