"""What grows with history is kept out of the way: delivered notices are pruned after a day, a
player's record is counted as games finish (and equals the one counted from the games), seats know
when their game ended, and the vitals count the open games at every scrape, the ended ones now and
then."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import case, func, insert, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlmodel import col

from persistence import repo
from persistence.models import Game, Move, Outbox, Player, Seat
from shithead_bot.service import GameService, chats
from testkit.clock import FakeClock
from tests.service.helpers import lobby_with, play_humans_to_end, user
from tests.service.test_away import present_play_to_end, started


async def outbox_ids(sessions: async_sessionmaker[AsyncSession]) -> set[str]:
    async with sessions() as session:
        return {str(p["tag"]) for p in (await session.execute(select(Outbox.payload))).scalars()}


async def test_delivered_notices_are_pruned_after_a_day_in_batches(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock, monkeypatch: Any
) -> None:
    monkeypatch.setattr(chats, "PURGE_BATCH", 2)  # several batches, a transaction each
    day = timedelta(days=1)
    old, recent = clock.now - day - timedelta(minutes=1), clock.now - day + timedelta(minutes=1)
    rows = [
        {"kind": "table", "payload": {"tag": f"old{n}"}, "created_at": old, "delivered_at": old} for n in range(5)
    ] + [
        {"kind": "table", "payload": {"tag": "recent"}, "created_at": old, "delivered_at": recent},
        {"kind": "table", "payload": {"tag": "pending"}, "created_at": clock.now - 3 * day, "delivered_at": None},
        {"kind": "tidy", "payload": {"tag": "deferred"}, "created_at": old, "not_before": clock.now + day},
    ]
    async with sessions() as session, session.begin():
        await session.execute(insert(Outbox), rows)
    assert await service.forget_old_updates() == 5
    assert await outbox_ids(sessions) == {"recent", "pending", "deferred"}
    assert await service.forget_old_updates() == 0  # nothing more: the next run finds it so


def reference_record(player_id: int) -> Any:
    """A player's record as /stats counted it from the games before (the oracle)."""
    stood_in = (
        select(func.count(), func.count(func.distinct(col(Move.game_id))))
        .select_from(Move)
        .join(Seat, (col(Seat.game_id) == col(Move.game_id)) & (col(Seat.number) == col(Move.seat)))
        .join(Game, col(Game.id) == col(Move.game_id))
        .where(col(Seat.player_id) == player_id, col(Move.actor) == "standin", col(Game.status) == "finished")
    )
    games = (
        select(
            func.count(),
            func.sum(case((col(Seat.place) == 1, 1), else_=0)),
            func.sum(case((col(Seat.is_loser), 1), else_=0)),
            func.avg(col(Seat.place)),
        )
        .join(Game, col(Game.id) == col(Seat.game_id))
        .join(Player, col(Player.id) == col(Seat.player_id))
        .where(col(Game.status) == "finished", col(Seat.player_id) == player_id)
    )
    return games, stood_in


async def records(sessions: async_sessionmaker[AsyncSession], players: list[int]) -> tuple[list[Any], list[Any]]:
    kept, counted = [], []
    async with sessions() as session:
        for player_id in players:
            row = await repo.player_stats(session=session, player_id=player_id)
            assert row is not None
            kept.append((row.games, row.firsts, row.losers, row.average_place, row.stood_in_moves, row.stood_in_games))
            games, stood_in = reference_record(player_id)
            n, firsts, losers, average = (await session.execute(games)).one()
            moves, stood_games = (await session.execute(stood_in)).one()
            counted.append((n, firsts, losers, round(float(average), 2), moves, stood_games))
    return kept, counted


async def test_a_players_record_is_counted_as_games_finish_as_it_was_from_the_games(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    players = [user(n).id for n in range(3)]
    for round_ in range(3):
        game_id = await lobby_with(service, humans=3, chat_id=-70 - round_)
        await service.start(game_id, user(0).id)
        await play_humans_to_end(service, game_id, seed=round_)
    away_game = await started(service, 3, chat_id=-80)  # user 2 away: a stand-in plays every turn of theirs
    await service.go_away(user(2), timedelta(days=3))
    await present_play_to_end(service, away_game, {0, 1})
    aborted = await lobby_with(service, humans=2, chat_id=-81)  # not finished: not counted
    await service.start(aborted, user(0).id)
    await service.abort(aborted, user(0).id)
    kept, counted = await records(sessions, players)
    assert kept == counted
    assert [k[0] for k in kept] == [4, 4, 4]
    assert kept[2][4] > 0
    assert kept[2][5] == 1
    async with sessions() as session, session.begin():  # rebuilt from the games: the same
        await repo.rebuild_player_records(session=session, status="finished", stand_in="standin")
    assert (await records(sessions, players))[0] == kept
    async with sessions() as session:
        assert await repo.player_stats(session=session, player_id=999_999) is None


async def test_seats_know_when_their_game_ended(
    service: GameService, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    finished = await lobby_with(service, humans=2, chat_id=-90)
    await service.start(finished, user(0).id)
    await play_humans_to_end(service, finished)
    clock.advance(hours=1)
    aborted = await lobby_with(service, humans=2, chat_id=-91)
    await service.abort(aborted, user(0).id)
    open_game = await lobby_with(service, humans=2, chat_id=-92)
    async with sessions() as session:
        ended = dict((await session.execute(select(Seat.game_id, Seat.ended_at))).all())
        assert ended[open_game] is None
        assert ended[aborted] == clock.now
        assert ended[finished] == clock.now - timedelta(hours=1)
        for game_id in (finished, aborted):
            assert ended[game_id] == (await session.get(Game, game_id)).finished_at  # type: ignore[union-attr]


async def test_vitals_count_open_games_at_once_and_ended_ones_every_ten_minutes(
    service: GameService, clock: FakeClock
) -> None:
    first = await lobby_with(service, humans=2, chat_id=-95)
    await service.start(first, user(0).id)
    assert (await service.vitals()).games == {"swapping": 1}
    await play_humans_to_end(service, first)
    second = await lobby_with(service, humans=2, chat_id=-96)
    clock.advance(minutes=9)
    assert (await service.vitals()).games == {"lobby": 1}  # the ended games as counted at the first scrape
    clock.advance(minutes=1)
    assert (await service.vitals()).games == {"lobby": 1, "finished": 1}
    await service.abort(second, user(0).id)
    assert (await service.vitals()).games == {"finished": 1}
