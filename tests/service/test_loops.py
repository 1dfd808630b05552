"""A game that can only go round for ever ends, and the group is told why (engine: Looped)."""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from persistence.models import Game
from shithead_bot.service import Announcement, AnnouncePayload, GameService
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.render import Page
from shithead_bot.telegram.render.announce import announce
from tests.engine.test_loops import two_fives_going_round
from tests.service.helpers import lobby_with, user


async def test_a_forced_loop_finishes_the_game_and_says_why(
    sessions: async_sessionmaker[AsyncSession], service: GameService
) -> None:
    game_id = await lobby_with(service, humans=3, preset="free")
    await service.start(game_id, user(0).id)
    async with sessions.begin() as session:  # the table as the e2e game found it, mid-play
        snapshot = two_fives_going_round().to_dict()
        await session.execute(update(Game).where(Game.id == game_id).values(snapshot=snapshot, status="playing"))
    over = None
    for _ in range(20):
        ctx = await service.game_view(game_id)
        if ctx.game.status == "finished":
            break
        assert ctx.state is not None
        assert ctx.state.to_act is not None
        number = ctx.state.to_act
        (move,) = ctx.state.legal_moves(number)
        seat = ctx.seat(number)
        assert seat.player_id is not None
        result = await service.play(game_id, seat.player_id, move, seat.keyboard_version)
        over = next((n for n in result.notices if n.announcement is Announcement.OVER), over)
    ctx = await service.game_view(game_id)
    assert ctx.game.status == "finished"
    assert [s.place for s in ctx.seats] == [3, 1, 2]
    assert over is not None
    assert isinstance(over.payload, AnnouncePayload)
    assert over.payload.looped is True
    page = Page(ctx, Codec(b"k"), "en")
    rendered = announce(page, over)
    assert rendered is not None
    assert "🔁 Nobody had a choice" in rendered.text
    assert f"💩 {ctx.seats[0].name} is the Shithead!" in rendered.text
