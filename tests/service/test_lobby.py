"""Lobby rules: one open game per chat, joining, leaving, computers, starting, who may do what."""

from __future__ import annotations

import asyncio

import pytest

from shithead_bot.service import (
    AlreadyJoinedError,
    AlreadyOpenError,
    GameService,
    LobbyFullError,
    NeedsPrivateChatError,
    NotAllowedError,
    NotAPlayerError,
    NoticeKind,
    TooFewPlayersError,
    UserInfo,
    WrongStateError,
)
from testkit.clock import FakeClock
from tests.service.helpers import GROUP, kinds, lobby_with, user


async def test_one_open_game_per_chat(service: GameService) -> None:
    game_id = await lobby_with(service, humans=1)
    with pytest.raises(AlreadyOpenError) as second:
        await service.open_lobby(GROUP, user(1))
    assert second.value.game_id == game_id
    assert second.value.status == "lobby"
    other = await service.open_lobby(GROUP - 1, user(1))
    assert other.game_id != game_id


async def test_creator_joins_only_when_the_bot_can_reach_them(service: GameService) -> None:
    stranger = UserInfo(id=555, first_name="Stranger")
    result = await service.open_lobby(GROUP, stranger)
    ctx = await service.game_view(result.game_id)
    assert ctx.seats == []
    with pytest.raises(NeedsPrivateChatError) as needs:
        await service.join(result.game_id, stranger)
    assert needs.value.player_id == 555
    await service.see_user(stranger, can_message=True)
    joined = await service.join(result.game_id, stranger)
    assert kinds(joined) == ["lobby"]


async def test_join_twice_and_full(service: GameService) -> None:
    game_id = await lobby_with(service, humans=2)
    with pytest.raises(AlreadyJoinedError):
        await service.join(game_id, user(1))
    for _ in range(3):
        await service.add_computer(game_id, user(0).id)
    await service.see_user(user(9), can_message=True)
    with pytest.raises(LobbyFullError):
        await service.join(game_id, user(9))
    with pytest.raises(LobbyFullError):
        await service.add_computer(game_id, user(0).id)


async def test_two_decks_take_ten(service: GameService) -> None:
    await service.ensure_chat(GROUP, "group", "Friends")
    await service.update_chat(GROUP, house_rules={"decks": "2"})
    game_id = await lobby_with(service, humans=1, computers=9)
    ctx = await service.game_view(game_id)
    assert len(ctx.seats) == 10
    with pytest.raises(LobbyFullError):
        await service.add_computer(game_id, user(0).id)


async def test_leave_renumbers_and_the_last_human_closes_the_lobby(service: GameService) -> None:
    game_id = await lobby_with(service, humans=3, computers=1)
    await service.leave(game_id, user(1).id)
    ctx = await service.game_view(game_id)
    assert [s.number for s in ctx.seats] == [0, 1, 2]
    assert [s.player_id for s in ctx.seats] == [user(0).id, user(2).id, None]
    with pytest.raises(NotAPlayerError):
        await service.leave(game_id, user(1).id)
    await service.leave(game_id, user(0).id)
    closed = await service.leave(game_id, user(2).id)
    assert closed.status == "aborted"
    assert (await service.open_game(GROUP)) is None


async def test_start_needs_two_players(service: GameService) -> None:
    game_id = await lobby_with(service, humans=1)
    with pytest.raises(TooFewPlayersError):
        await service.start(game_id, user(0).id)
    await service.add_computer(game_id, user(0).id, "random")
    started = await service.start(game_id, user(0).id)
    assert started.status == "swapping"
    assert NoticeKind.ANNOUNCE in {n.kind for n in started.notices}


async def test_non_members_may_not_act(service: GameService) -> None:
    game_id = await lobby_with(service, humans=2)
    await service.see_user(user(7), can_message=True)
    outsider = user(7).id
    for action in (service.add_computer, service.remove_computer, service.leave):
        with pytest.raises(NotAPlayerError):
            await action(game_id, outsider)
    with pytest.raises(NotAllowedError):
        await service.start(game_id, outsider)
    await service.start(game_id, user(0).id)
    with pytest.raises(NotAPlayerError):
        await service.play(game_id, outsider, "r", None)
    with pytest.raises(NotAllowedError):
        await service.abort(game_id, user(1).id)  # neither creator nor admin
    with pytest.raises(NotAPlayerError):
        await service.forfeit(game_id, outsider)


async def test_only_the_creator_or_a_chat_admin_starts(service: GameService) -> None:
    game_id = await lobby_with(service, humans=2)
    with pytest.raises(NotAllowedError):
        await service.start(game_id, user(1).id)  # joined, but neither creator nor admin
    assert (await service.start(game_id, user(1).id, is_admin=True)).status == "swapping"


async def test_an_anonymous_admins_lobby_has_no_creator_and_an_admin_starts_it(service: GameService) -> None:
    opened = await service.open_lobby(GROUP, None, chat_title="Friends")
    game = await service.game_view(opened.game_id)
    assert game.game.created_by is None
    assert game.seats == []
    for n in (0, 1):
        await service.see_user(user(n), can_message=True)
        await service.join(opened.game_id, user(n))
    with pytest.raises(NotAllowedError):
        await service.start(opened.game_id, user(0).id)
    assert (await service.start(opened.game_id, user(0).id, is_admin=True)).status == "swapping"


async def test_lobby_actions_after_start(service: GameService, game_id: int) -> None:
    await service.see_user(user(5), can_message=True)
    with pytest.raises(WrongStateError):
        await service.join(game_id, user(5))
    with pytest.raises(WrongStateError):
        await service.start(game_id, user(0).id)
    with pytest.raises(WrongStateError):
        await service.leave(game_id, user(1).id)


async def test_chat_settings_make_the_rules(service: GameService) -> None:
    await service.ensure_chat(GROUP, "group", "Friends")
    await service.update_chat(GROUP, preset="smelly", house_rules={"8": "skip"})
    game_id = await lobby_with(service, humans=2)
    ctx = await service.game_view(game_id)
    assert ctx.game.rules["name"] == "smelly"
    assert ctx.game.rules["powers"]["8"] == "skip"
    with pytest.raises(ValueError, match="no chat setting"):
        await service.update_chat(GROUP, colour="red")


async def test_group_migration_moves_games(service: GameService) -> None:
    game_id = await lobby_with(service, humans=2)
    moved = await service.migrate_chat(GROUP, -100777)
    assert moved == [game_id]
    ctx = await service.game_view(game_id)
    assert ctx.game.chat_id == -100777
    assert (await service.open_game(-100777)) is not None


async def test_two_taps_of_add_computer_on_one_lobby_add_one(
    db_url: str, service: GameService, clock: FakeClock
) -> None:
    """Both taps were made on a lobby showing no computer: one adds it, the other is already done."""
    from persistence.db import make_engine, make_sessionmaker
    from shithead_bot.service import AlreadyDoneError

    game_id = await lobby_with(service, humans=1)
    engines = [make_engine(db_url), make_engine(db_url)]
    racers = [GameService(make_sessionmaker(e), clock=clock) for e in engines]
    results = await asyncio.gather(
        *(r.add_computer(game_id, user(0).id, "heuristic", seen=0) for r in racers), return_exceptions=True
    )
    assert sorted(type(r).__name__ for r in results) == ["AlreadyDoneError", "Result"], results
    assert len((await service.game_view(game_id)).seats) == 2
    removed = await asyncio.gather(
        *(r.remove_computer(game_id, user(0).id, seen=1) for r in racers), return_exceptions=True
    )
    assert sorted(type(r).__name__ for r in removed) == ["AlreadyDoneError", "Result"], removed
    assert len((await service.game_view(game_id)).seats) == 1
    with pytest.raises(AlreadyDoneError):
        await service.remove_computer(game_id, user(0).id, seen=1)
    for engine in engines:
        await engine.dispose()
