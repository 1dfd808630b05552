"""The ratings as people read them: a chat's leaderboard, one player's ratings with their trend,
and rebuilding every rating from the finished games (the use cases over ``ratings``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from persistence import repo
from shithead_bot.service.ratings import record_game
from shithead_bot.service.status import Actor, GameStatus
from shithead_bot.service.unit import Core


@dataclass(frozen=True)
class RatingLine:
    """One rating as people read it: whose, how good (ordinal and mu ± sigma), games, losses, and
    ``trend``: the ordinal's change over the last few games."""

    subject: str
    name: str
    chat_id: int
    chat_title: str
    mu: float
    sigma: float
    games: int
    losses: int
    trend: float = 0.0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def level(self) -> str | None:
        """The computer level, for a computer's rating."""
        return self.subject[2:] if self.subject.startswith("c:") else None


def plays_like(player: RatingLine, computers: Sequence[RatingLine]) -> str | None:
    """The computer level whose skill is nearest this player's (a scale every human understands)."""
    rated = [c for c in computers if c.level is not None]
    if not rated:
        return None
    return min(rated, key=lambda c: abs(c.mu - player.mu)).level


async def chat_ratings(core: Core, chat_id: int, limit: int = 20) -> list[RatingLine]:
    """A chat's leaderboard (``OVERALL``: across chats), best first; computers included."""
    async with core.sessions() as session:
        rows = await repo.top_ratings(session=session, chat_id=chat_id, limit=limit)
        names = await _names(session, [r.subject for r in rows])
    return [
        RatingLine(
            subject=r.subject,
            name=names[r.subject],
            chat_id=chat_id,
            chat_title="",
            mu=r.mu,
            sigma=r.sigma,
            games=r.games,
            losses=r.losses,
        )
        for r in rows
    ]


async def player_ratings(core: Core, player_id: int, trend_games: int = 5) -> list[RatingLine]:
    """A player's rating in each chat they played in and overall (``chat_id`` 0), with its trend."""
    subject = f"p:{player_id}"
    lines = []
    async with core.sessions() as session:
        names = await _names(session, [subject])
        for rating, title in await repo.ratings_of_subject(session=session, subject=subject):
            changes = await repo.recent_changes(
                session=session, chat_id=rating.chat_id, subject=subject, count=trend_games
            )
            trend = 0.0
            if changes:
                first = changes[0]
                trend = rating.mu - 3 * rating.sigma - (first.mu_before - 3 * first.sigma_before)
            lines.append(
                RatingLine(
                    subject=subject,
                    name=names[subject],
                    chat_id=rating.chat_id,
                    chat_title=title,
                    mu=rating.mu,
                    sigma=rating.sigma,
                    games=rating.games,
                    losses=rating.losses,
                    trend=round(trend, 2),
                )
            )
    return lines


async def rebuild_ratings(core: Core) -> int:
    """Recompute every rating from the finished games, in the order they were rated, and every
    player's record; returns how many games were rated. The result equals what was stored game by game."""
    async with core.transaction() as session:
        games = await repo.finished_games(session=session, status=GameStatus.FINISHED)
        await repo.clear_ratings(session=session)
        for game, seats in games:
            when = game.finished_at or game.updated_at
            await record_game(session, game_id=game.id or 0, chat_id=game.chat_id, seats=seats, when=when)
        await repo.rebuild_player_records(session=session, status=GameStatus.FINISHED, stand_in=Actor.STANDIN)
        return len(games)


async def _names(session: AsyncSession, subjects: Sequence[str]) -> dict[str, str]:
    players = {int(s[2:]) for s in subjects if s.startswith("p:")}
    found = await repo.player_names(session=session, player_ids=sorted(players))
    return {s: found.get(int(s[2:]), s) if s.startswith("p:") else f"🤖 {s[2:]}" for s in subjects}
