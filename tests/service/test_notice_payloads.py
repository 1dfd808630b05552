"""Typed notice payloads: each kind's payload is a small frozen value, converted to and from the
outbox row's JSON in one place (``notices.py``). The JSON keeps the keys the bot has always written,
so notices already in the outbox when the bot is upgraded still load."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from persistence import repo
from shithead_bot.service import (
    Announcement,
    AnnouncePayload,
    GameService,
    MovedPayload,
    NoPayload,
    Notice,
    NoticeKind,
    Outbox,
    Reminder,
    ReminderPayload,
    TablePayload,
    TurnPayload,
)
from shithead_bot.service.report import Plan, Report
from testkit.clock import FakeClock

AWAY_UNTIL = datetime(2026, 1, 5, 12, tzinfo=UTC)

# (kind, the payload as the bot wrote it before payloads were typed, the typed value it loads as)
OLD_ROWS: list[tuple[NoticeKind, dict[str, Any], object]] = [
    (NoticeKind.LOBBY, {"seat": None}, NoPayload()),
    (NoticeKind.RESULT, {"seat": 2}, NoPayload()),
    (NoticeKind.TABLE, {"seat": None}, TablePayload()),
    (NoticeKind.TABLE, {"seat": None, "repost": True}, TablePayload(repost=True)),
    (NoticeKind.TURN, {"seat": 1, "version": 7}, TurnPayload(7)),
    (NoticeKind.SWAP, {"seat": 0, "version": 3}, TurnPayload(3)),
    (NoticeKind.MOVED, {"seat": 1, "seq": 12, "version": 7}, MovedPayload(12, 7)),
    (NoticeKind.MOVED, {"seat": 1, "seq": 13, "version": 8, "auto": True}, MovedPayload(13, 8, auto=True)),
    (NoticeKind.MOVED, {"seat": 0, "seq": 0, "version": 9}, MovedPayload(0, 9)),
    (
        NoticeKind.REMINDER,
        {"seat": 0, "what": "reminder", "timeouts": 1},
        ReminderPayload(Reminder.REMINDER, timeouts=1),
    ),
    (NoticeKind.REMINDER, {"seat": 0, "what": "grace", "timeouts": 0}, ReminderPayload(Reminder.GRACE, timeouts=0)),
    (NoticeKind.REMINDER, {"seat": 1, "what": "nudge", "by": "Bob"}, ReminderPayload(Reminder.NUDGE, by="Bob")),
    (NoticeKind.ANNOUNCE, {"seat": None, "what": "started"}, AnnouncePayload(Announcement.STARTED)),
    (
        NoticeKind.ANNOUNCE,
        {"seat": 1, "what": "went_out", "place": 1, "seq": 40},
        AnnouncePayload(Announcement.WENT_OUT, place=1, seq=40),
    ),
    (
        NoticeKind.ANNOUNCE,
        {"seat": 2, "what": "eliminated", "place": 3, "seq": 41},
        AnnouncePayload(Announcement.ELIMINATED, place=3, seq=41),
    ),
    (
        NoticeKind.ANNOUNCE,
        {"seat": 2, "what": "forfeited", "place": 3, "seq": 42},
        AnnouncePayload(Announcement.FORFEITED, place=3, seq=42),
    ),
    (
        NoticeKind.ANNOUNCE,
        {"seat": 0, "what": "removed", "timeouts": 3},
        AnnouncePayload(Announcement.REMOVED, timeouts=3),
    ),
    (
        NoticeKind.ANNOUNCE,
        {"seat": 0, "what": "taken_over", "timeouts": 3, "level": "hard"},
        AnnouncePayload(Announcement.TAKEN_OVER, timeouts=3, level="hard"),
    ),
    (
        NoticeKind.ANNOUNCE,
        {"seat": 1, "what": "away", "until": AWAY_UNTIL.isoformat()},
        AnnouncePayload(Announcement.AWAY, until=AWAY_UNTIL),
    ),
    (
        NoticeKind.ANNOUNCE,
        {"seat": None, "what": "over", "places": [2, 1, 3], "winners": [1], "loser": 2},
        AnnouncePayload(Announcement.OVER, places=(2, 1, 3), winners=(1,), loser=2),
    ),
    (
        NoticeKind.ANNOUNCE,
        {"seat": None, "what": "over", "places": [1, 2], "winners": [0], "loser": None, "looped": True},
        AnnouncePayload(Announcement.OVER, places=(1, 2), winners=(0,), looped=True),
    ),
    (
        NoticeKind.ANNOUNCE,
        {"seat": None, "what": "aborted", "by": 1001},
        AnnouncePayload(Announcement.ABORTED, by=1001),
    ),
    (NoticeKind.ANNOUNCE, {"seat": None, "what": "paused"}, AnnouncePayload(Announcement.PAUSED)),
    (NoticeKind.ANNOUNCE, {"seat": None, "what": "resumed"}, AnnouncePayload(Announcement.RESUMED)),
    (NoticeKind.ANNOUNCE, {"seat": None, "what": "bot_back"}, AnnouncePayload(Announcement.BOT_BACK)),
    (NoticeKind.ANNOUNCE, {"seat": None, "what": "lobby_closed"}, AnnouncePayload(Announcement.LOBBY_CLOSED)),
    (
        NoticeKind.ANNOUNCE,
        {"seat": None, "what": "lobby_expired", "days": 7},
        AnnouncePayload(Announcement.LOBBY_EXPIRED, days=7),
    ),
    (
        NoticeKind.ANNOUNCE,
        {"seat": None, "what": "pause_expired", "days": 30},
        AnnouncePayload(Announcement.PAUSE_EXPIRED, days=30),
    ),
]


@pytest.mark.parametrize(("kind", "stored", "typed"), OLD_ROWS)
def test_an_old_row_loads_typed_and_is_written_back_the_same(
    kind: NoticeKind, stored: dict[str, Any], typed: object
) -> None:
    notice = Notice.from_row(str(kind), 5, stored, 17, attempts=2)
    assert (notice.kind, notice.game_id, notice.seat, notice.id, notice.attempts) == (kind, 5, stored["seat"], 17, 2)
    assert notice.payload == typed
    assert notice.to_json() == stored  # the stored format is unchanged


def test_reading_is_lenient() -> None:
    """A missing key takes its default, an unknown key is ignored, an unknown subject is None (not
    rendered) or a plain reminder — as before payloads were typed."""
    assert Notice.from_row("turn", 1, {}, None).payload == TurnPayload(0)
    assert Notice.from_row("moved", 1, {"seat": 0, "later": 1}, None).payload == MovedPayload()
    unknown = Notice.from_row("announce", 1, {"seat": None, "what": "from_the_future", "x": 1}, None)
    assert unknown.announcement is None
    assert unknown.payload == AnnouncePayload(None)
    assert Notice.from_row("reminder", 1, {"seat": 0, "what": "?"}, None).payload == ReminderPayload()


def test_a_payload_must_fit_its_kind() -> None:
    assert Notice(NoticeKind.TABLE, 1).payload == TablePayload()  # no payload: the kind's defaults
    assert Notice(NoticeKind.LOBBY, 1).payload == NoPayload()
    with pytest.raises(TypeError):
        Notice(NoticeKind.TURN, 1, 0, MovedPayload(1, 2))
    with pytest.raises(TypeError):
        Notice(NoticeKind.ANNOUNCE, 1)  # an announcement needs its subject


class Recorder:
    def __init__(self) -> None:
        self.notices: list[Notice] = []

    async def __call__(self, plan: Plan) -> Report:
        self.notices += plan.notices
        return Report(plan.game_id)


async def test_old_rows_in_the_outbox_are_delivered_typed(
    service: GameService, game_id: int, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    """Rows written by the version before typed payloads, already in the table at the upgrade."""
    outbox = Outbox(sessions, clock=clock)
    await outbox.deliver(Recorder())  # what the start wrote
    async with sessions() as session, session.begin():
        await repo.insert_outbox(
            session=session,
            rows=[
                {"game_id": game_id, "kind": str(kind), "payload": stored, "created_at": clock()}
                for kind, stored, _ in OLD_ROWS
            ],
        )
    sender = Recorder()
    assert await outbox.deliver(sender) == len(OLD_ROWS)
    assert [(n.kind, n.payload) for n in sender.notices] == [(kind, typed) for kind, _, typed in OLD_ROWS]
