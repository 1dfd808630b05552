"""Forced moves play themselves: a human whose only move everybody can see is forced never gets a
keyboard for it; a forced play from a hand of several cards stays theirs unless they chose `all`."""

from __future__ import annotations

from collections import Counter

from engine.ai import make_player
from engine.forced import Forced, forced_move
from shithead_bot.service import Autoplay, GameService, NoticeKind
from tests.service.helpers import lobby_with, user


async def play_through(service: GameService, game_id: int, seed: int) -> Counter[str]:
    """Humans play heuristic moves to the end; counts the kinds of forced moves they were asked to tap."""
    asked: Counter[str] = Counter()
    players = {}
    for _ in range(3000):
        game = await service.game_view(game_id)
        if game.is_over:
            return asked
        assert game.state is not None
        number = game.state.seats_to_act()[0]
        view = game.state.view(number)
        found = forced_move(view)
        asked[str(found[1]) if found else "choice"] += 1
        seat = game.seat(number)
        assert seat.player_id is not None
        player = players.setdefault(number, make_player("heuristic", seed + number))
        await service.play(game_id, seat.player_id, player.choose(view), seat.keyboard_version)
    raise AssertionError("the game did not end")


async def test_no_human_is_asked_to_tap_a_move_everybody_can_see_is_forced(service: GameService) -> None:
    asked: Counter[str] = Counter()
    for n in range(3):
        game_id = await lobby_with(service, humans=3, chat_id=-500 - n)
        await service.start(game_id, user(0).id)
        asked += await play_through(service, game_id, n)
    assert asked[Forced.PUBLIC] == 0
    assert asked[Forced.PRIVATE] > 0  # a forced play from a hand of several: still the player's tap
    moves = await service.moves(game_id)
    assert any(m.actor == "autoplay" for m in moves)


async def test_all_plays_every_forced_move_and_off_none(service: GameService) -> None:
    for setting, chat in ((Autoplay.ALL, -600), (Autoplay.OFF, -601)):
        for n in range(3):
            await service.set_autoplay(user(n), setting)
        game_id = await lobby_with(service, humans=3, chat_id=chat)
        await service.start(game_id, user(0).id)
        asked = await play_through(service, game_id, 7)
        if setting is Autoplay.ALL:
            assert asked[Forced.PUBLIC] == asked[Forced.PRIVATE] == 0
        else:
            assert asked[Forced.PUBLIC] > 0
            assert all(m.actor != "autoplay" for m in await service.moves(game_id))
    assert await service.autoplay_of(user(0).id) is Autoplay.OFF


async def test_a_forced_move_made_for_a_player_is_told_to_them_as_such(service: GameService) -> None:
    game_id = await lobby_with(service, humans=2)
    result = await service.start(game_id, user(0).id)
    notices = list(result.notices)
    players = {}
    for _ in range(3000):
        game = await service.game_view(game_id)
        if game.is_over:
            break
        assert game.state is not None
        number = game.state.seats_to_act()[0]
        seat = game.seat(number)
        assert seat.player_id is not None
        player = players.setdefault(number, make_player("heuristic", number))
        move = player.choose(game.state.view(number))
        result = await service.play(game_id, seat.player_id, move, seat.keyboard_version)
        notices += result.notices
    autoplayed = {m.seq for m in await service.moves(game_id) if m.actor == "autoplay"}
    assert autoplayed
    told = {n.seq for n in notices if n.kind == NoticeKind.MOVED and n.auto}
    assert told == autoplayed
