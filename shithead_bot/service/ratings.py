"""Skill ratings (openskill's Plackett-Luce model): each finished game is a full ranking — the
winner first, the loser last, who left the game below everyone still in — and updates a rating per
player in that chat and across chats. Computer players are rated per level (``c:hard``; older
names count as their level's), which gives every human a scale. Ratings are rebuilt exactly from
the finished games, in order.

Several computers of one level in one game: each seat is rated from the level's rating, and the
level takes the average of their results.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce
from sqlalchemy.ext.asyncio import AsyncSession

from engine.ai import DEFAULT_LEVEL, level_name
from persistence import repo
from persistence.models import Seat

OVERALL = 0  # the chat id of ratings across every chat
MODEL = PlackettLuce()


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """A conservative score: mu - 3 sigma (who is best, allowing for what we do not know yet)."""
        return self.mu - 3 * self.sigma


START = Skill(MODEL.mu, MODEL.sigma)


def subject_of(seat: Seat) -> str:
    return (
        f"p:{seat.player_id}" if seat.player_id is not None else f"c:{level_name(seat.computer_level or DEFAULT_LEVEL)}"
    )


def rate(places: Sequence[tuple[str, int]], current: dict[str, Skill]) -> dict[str, Skill]:
    """New skills after one game: ``places`` is (subject, place) per seat, place 1 best."""
    teams = [[MODEL.rating(mu=current.get(s, START).mu, sigma=current.get(s, START).sigma)] for s, _ in places]
    rated = MODEL.rate(teams, ranks=[place for _, place in places])
    results: dict[str, list[Skill]] = defaultdict(list)
    for (subject, _), (after,) in zip(places, rated, strict=True):
        results[subject].append(Skill(after.mu, after.sigma))
    return {s: Skill(sum(k.mu for k in ks) / len(ks), sum(k.sigma for k in ks) / len(ks)) for s, ks in results.items()}


async def record_game(
    session: AsyncSession, *, game_id: int, chat_id: int, seats: Sequence[Seat], when: object
) -> None:
    """Rate a finished game, in the chat and overall, in the caller's transaction."""
    places = [(subject_of(s), s.place or len(seats)) for s in seats]
    losers = {subject_of(s) for s in seats if s.is_loser}
    subjects = sorted({s for s, _ in places})
    for scope in (chat_id, OVERALL):
        stored = await repo.ratings_of(session=session, chat_id=scope, subjects=subjects)
        current = {s: Skill(r.mu, r.sigma) for s, r in stored.items()}
        after = rate(places, current)
        best_place = {s: min(p for t, p in places if t == s) for s in subjects}
        await repo.save_ratings(
            session=session,
            game_id=game_id,
            chat_id=scope,
            changes=[
                repo.RatingUpdate(
                    subject, best_place[subject], current.get(subject, START).mu, current.get(subject, START).sigma,
                    after[subject].mu, after[subject].sigma, subject in losers,
                )
                for subject in subjects
            ],
            when=when,
        )  # fmt: skip
