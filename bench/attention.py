"""Attention: how often a player's phone buzzes, and what for, over whole games.

    python bench/attention.py                 # three patterns, 3 games (rounds) each: tables and summaries
    python bench/attention.py --games 10 --json
    python bench/attention.py --smoke         # one short run of each pattern (the test suite runs it)
    python bench/attention.py --patterns five --notify digest   # User0 in digest mode (4 h): per interval

Whole games run in this process: the service, the outbox and the sender as the bot wires them, and
the bot's own handlers (``tests/telegram/inbot.py``) against the fake Bot API
(``testkit/fakebot``), which records every call with its parameters. Time is a fake clock
that moves as people take their time; between two presses it stops at every due timer, where the
deadline sweep (``shithead_bot/timers/sweeper.py``) fires — reminders, nudges, deadlines — and the
outbox is swept, as the running bot does. Every seat is a person choosing with the ``normal``
heuristic from their own seat's view, by pressing the buttons of the message the bot sent them.

Patterns (each person's pace; a tap that follows their own press — the next swap, a second turn
after a burn — comes 2-5 s later, as they are still looking):

- ``live``: three people, each answers within 5-20 s; mid-game the group's admin and a member send
  ``/settings`` commands (a change, a refusal, the list), as a group chats;
- ``correspondence``: three people, each answers 1-8 hours after their turn arrives (one time in
  ten, 12-20 hours: a night, a busy day), 24 h turns;
- ``five``: one person (User0) in five games at once, in five groups, with two others in each; every
  one answers 1-15 minutes after their turn arrives.

Per player it prints, per game: the new messages that notified (edits never do) by what they were —
``decision`` (a message with the game's action buttons), ``result`` (🏁 game over, your place),
``reminder`` (⏰ a reminder or a nudge), ``answer`` (to the player's own command), ``other`` — the
silent ones, the decisions (presses the game applied), and notifying messages per decision; and per
game in the group, the notifying messages (a new message without ``disable_notification``, or a
loud pin), with the silent ones. One summary line per pattern::

    pattern=live notifying_per_decision=… group_notifying_per_game=…

With ``--notify digest`` (or ``every``) User0 — in ``five``, the player in five games — chose that
setting (digest: every 4 h); their notifying messages are then also counted per 4-hour interval of
the play (the digest's goal: at most one an interval, reminders before a deadline aside)::

    pattern=five notify=digest … user0_per_interval_max=… user0_intervals=…

Figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import random
import re
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.ai import Player as Chooser
from engine.ai import make_player
from persistence.db import make_engine, make_sessionmaker
from persistence.migrate import upgrade
from shithead_bot.service import Notify, UserInfo
from shithead_bot.timers.sweeper import Sweeper
from testkit.clock import FakeClock
from testkit.fakebot import Call, FakeTelegram
from tests.telegram.inbot import InBot

CATEGORIES = ("decision", "result", "reminder", "inbox", "answer", "other")
GAME_BUTTONS = ("m", "p")  # callback actions of a seat's moves: a move, the swap phase's card pick
SENDS = ("sendmessage", "sendphoto")
SWEEP = 5.0  # seconds: the sweep's period, when a due timer fired and is due again at once
HOUR = 3600.0
DIGEST = timedelta(hours=4)  # --notify digest: User0's interval
ADMIN_LINES = ["/settings turn 15m", "/settings", "/settings reminders 50% 1h"]
MEMBER_LINES = ["/settings turn 1h", "/settings table text"]  # not an admin: refused


@dataclass(frozen=True)
class Pace:
    """How long a person takes to answer: a fresh turn (seconds, uniform), one time in ``late_every``
    much longer; a tap that follows their own press."""

    first: tuple[float, float]
    again: tuple[float, float] = (2.0, 5.0)
    late: tuple[float, float] | None = None
    late_every: int = 10
    groups: int = 1  # games at once, one per group, with the same first player
    seats: int = 3  # people in each game
    chatter: bool = False  # the group's members send /settings commands mid-game

    def delay(self, rng: random.Random, *, again: bool) -> float:
        if again:
            return rng.uniform(*self.again)
        if self.late is not None and rng.randrange(self.late_every) == 0:
            return rng.uniform(*self.late)
        return rng.uniform(*self.first)


PATTERNS = {
    "live": Pace(first=(5.0, 20.0), chatter=True),
    "correspondence": Pace(first=(1 * HOUR, 8 * HOUR), late=(12 * HOUR, 20 * HOUR)),
    "five": Pace(first=(60.0, 900.0), groups=5),
}


@dataclass
class Tally:
    """One person's (or the group's) messages, by whether they notified and what they were."""

    loud: Counter[str] = field(default_factory=Counter)
    silent: int = 0
    decisions: int = 0
    games: int = 0

    def add(self, other: Tally) -> None:
        self.loud.update(other.loud)
        self.silent += other.silent
        self.decisions += other.decisions
        self.games += other.games

    def row(self) -> dict[str, float]:
        per = max(self.games, 1)
        row = {c: self.loud[c] / per for c in CATEGORIES}
        loud = sum(self.loud.values())
        row.update(
            notifying=loud / per,
            silent=self.silent / per,
            decisions=self.decisions / per,
            per_decision=loud / self.decisions if self.decisions else 0.0,
        )
        return row


def people(count: int) -> list[UserInfo]:
    return [UserInfo(id=100 + n, first_name=f"User{n}", username=f"user{n}", language="en") for n in range(count)]


def pressable(data: str | None) -> tuple[str, int, int, str] | None:
    """A button's callback data as (action, game id, version, argument); None for a link."""
    if not data:
        return None
    body = data.rpartition(":")[0]  # without the signature
    action, game, version, argument = [*body.split(":", 3), "", "", ""][:4]
    if not (game.lstrip("-").isdigit() and version.isdigit()):
        return None
    return action, int(game), int(version), argument


def asks_a_decision(params: dict[str, Any]) -> bool:
    markup = params.get("reply_markup") or {}
    buttons = [b for row in markup.get("inline_keyboard", []) for b in row]
    return any((p := pressable(b.get("callback_data"))) and p[0] in GAME_BUTTONS for b in buttons)


def category(params: dict[str, Any], *, answering: bool) -> str:
    text = str(params.get("text") or params.get("caption") or "")
    if answering:
        return "answer"
    if asks_a_decision(params):
        return "decision"
    if text.startswith("🏁"):
        return "result"
    if text.startswith("⏰"):
        return "reminder"
    if text.startswith("📥"):
        return "inbox"
    return "other"


class Ledger:
    """Reads the fake's calls as they come, into a tally per person and per group."""

    def __init__(self, fake: FakeTelegram, humans: set[int], clock: FakeClock | None = None) -> None:
        self.fake, self.humans, self.clock = fake, humans, clock
        self.seen = 0
        self.loud_at: dict[int, list[tuple[datetime, str]]] = defaultdict(list)  # person -> (when, category)
        self.person: dict[int, Tally] = defaultdict(Tally)
        self.group: dict[int, Tally] = defaultdict(Tally)
        self.group_loud: Counter[str] = Counter()  # the notifying group messages, by their first line

    def take(self, answering: int | None = None) -> None:
        """The calls since the last take; ``answering``: they answer this person's own command."""
        calls, self.seen = self.fake.calls[self.seen :], len(self.fake.calls)
        for call in calls:
            self._one(call, answering)

    def _one(self, call: Call, answering: int | None) -> None:
        method, params = call.method.lower(), call.params
        if not call.ok or method not in (*SENDS, "pinchatmessage"):
            return
        chat_id = int(params["chat_id"])
        silent = bool(params.get("disable_notification"))
        if chat_id in self.humans:
            tally = self.person[chat_id]
            if silent:
                tally.silent += 1
            else:
                what = category(params, answering=answering == chat_id)
                tally.loud[what] += 1
                if self.clock is not None:
                    self.loud_at[chat_id].append((self.clock.now, what))
            return
        tally = self.group[chat_id]
        if silent:
            tally.silent += 1
            return
        first = re.sub("<[^>]+>", "", str(params.get("text") or params.get("caption") or method).splitlines()[0])[:40]
        tally.loud["pin" if method == "pinchatmessage" else "post"] += 1
        self.group_loud[first] += 1


class Run:
    """One pattern: the bot in process, the fake Telegram, the fake clock, the people."""

    def __init__(
        self, bot: InBot, fake: FakeTelegram, clock: FakeClock, pace: Pace, seed: int, notify: str = "smart"
    ) -> None:
        self.bot, self.fake, self.clock, self.pace, self.notify = bot, fake, clock, pace, notify
        self.rng = random.Random(seed)
        self.sweeper = Sweeper(bot.service, bot.ctx.deliver)
        self.users = people(1 + (pace.seats - 1) * pace.groups)
        self.groups = [-1001 - n for n in range(pace.groups)]
        self.ledger = Ledger(fake, {u.id for u in self.users}, clock)
        self.playing: list[tuple[datetime, datetime]] = []  # each round's play, from the deal to the end
        self.plans: dict[tuple[int, int], tuple[datetime, int]] = {}  # (game, seat) -> when, keyboard version
        self.pressed_at: dict[tuple[int, int], datetime] = {}
        self.choosers: dict[tuple[int, int], Chooser] = {}
        self.said = 0

    def members(self, group: int) -> list[UserInfo]:
        others = self.pace.seats - 1
        n = self.groups.index(group)
        return [self.users[0], *self.users[1 + others * n : 1 + others * (n + 1)]]

    async def setup(self) -> None:
        for u in self.users:
            self.fake.add_user(u.id, u.first_name)
            self.fake.start_bot(u.id)
            await self.bot.service.see_user(u, can_message=True)
        if self.notify != "smart":  # User0 (in 'five', the player in five games) chose another setting
            await self.bot.service.set_notify(self.users[0], Notify(self.notify))
            await self.bot.service.set_digest(self.users[0], int(DIGEST.total_seconds()))
        for group in self.groups:
            self.fake.add_group(group, f"Friends {group}", [u.id for u in self.members(group)])
        self.fake.queue.pending.clear()  # the bot's arrival in each group: not a game's business
        self.ledger.seen = len(self.fake.calls)

    async def round(self) -> None:
        """One game in each group, at once, played to the end; then a day passes."""
        games = [await self.open(group) for group in self.groups]
        self.ledger.take()
        began = self.clock.now
        await self.play(games)
        self.playing.append((began, self.clock.now))
        for group in self.groups:
            self.ledger.group[group].games += 1
        for u in self.users:
            self.ledger.person[u.id].games += sum(u in self.members(g) for g in self.groups)
        await self.advance_to(self.clock.now.timestamp() + 24 * HOUR)
        self.ledger.take()

    async def open(self, group: int) -> int:
        creator, *others = self.members(group)
        service = self.bot.service
        game_id = (await service.open_lobby(group, creator, chat_title=f"Friends {group}")).game_id
        for u in others:
            await service.join(game_id, u)
        await service.start(game_id, creator.id)
        await self.bot.ctx.deliver(game_id)
        return game_id

    async def play(self, games: list[int]) -> None:
        active = list(games)
        for _ in range(20_000):
            active = [g for g in active if not (await self.bot.service.game_view(g)).is_over]
            if not active:
                return
            await self.plan(active)
            if not self.plans:  # nobody may act now: a timer will move the game
                await self.advance_to(self.clock.now.timestamp() + HOUR)
                continue
            key, (when, version) = min(self.plans.items(), key=lambda item: item[1][0])
            await self.advance_to(when.timestamp())
            del self.plans[key]
            await self.press(key, version)
            if self.pace.chatter:
                await self.chatter(key[0])
        raise RuntimeError("the games did not end")

    async def plan(self, games: list[int]) -> None:
        """When each person who may act now will press (a plan stays while their keyboard does)."""
        wanted: dict[tuple[int, int], int] = {}
        for game_id in games:
            view = await self.bot.service.game_view(game_id)
            if view.state is None or view.game.status not in ("swapping", "playing"):
                continue
            for number in view.state.seats_to_act():
                if not view.seat(number).computer_level:
                    wanted[(game_id, number)] = view.seat(number).keyboard_version
        self.plans = {k: v for k, v in self.plans.items() if wanted.get(k) == v[1]}
        for key, version in wanted.items():
            if key not in self.plans:
                last = self.pressed_at.get(key)
                again = last is not None and (self.clock.now - last).total_seconds() < 60
                delay = self.pace.delay(self.rng, again=again)
                self.plans[key] = (self.clock.now + timedelta(seconds=delay), version)

    async def advance_to(self, when: float) -> None:
        """The clock moves to ``when``, stopping at every due timer to sweep, as the bot does."""
        for _ in range(10_000):
            due = await self.next_due()
            if due is None or due > when:
                break
            self.clock.now = datetime.fromtimestamp(max(self.clock.now.timestamp() + 0.001, due), self.clock.now.tzinfo)
            report = await self.sweeper.sweep()
            if not report.fired:  # nothing to do yet (or done elsewhere): the next sweep, a few seconds on
                self.clock.advance(seconds=SWEEP)
            await self.bot.ctx.outbox.deliver(self.bot.ctx.delivery)
            self.ledger.take()
        if when > self.clock.now.timestamp():
            self.clock.now = datetime.fromtimestamp(when, self.clock.now.tzinfo)
        await self.bot.ctx.outbox.deliver(self.bot.ctx.delivery)
        self.ledger.take()

    async def next_due(self) -> float | None:
        due = await self.bot.service.next_due_at()
        return None if due is None else due.timestamp()

    async def press(self, key: tuple[int, int], version: int) -> None:
        """The seat's person presses the button of the move they chose, if their keyboard is still it."""
        game_id, number = key
        view = await self.bot.service.game_view(game_id)
        seat = view.seat(number)
        if view.state is None or seat.keyboard_version != version or number not in view.state.seats_to_act():
            return
        assert seat.player_id is not None
        chooser = self.choosers.setdefault(key, make_player("normal", self.rng.randrange(1 << 30)))
        move = str(chooser.choose(view.state.view(number)))
        if move.startswith("x:"):  # a swap: first the hand card, then the face-up one
            await self.tap(seat.player_id, game_id, "p", move.split(":")[1])
        if await self.tap(seat.player_id, game_id, "m", move):
            after = await self.bot.service.game_view(game_id)
            if after.game.version != view.game.version:
                self.ledger.person[seat.player_id].decisions += 1
                self.pressed_at[key] = self.clock.now
        self.ledger.take()

    async def tap(self, user_id: int, game_id: int, action: str, argument: str) -> bool:
        """Press the one button of this game with this action and argument in the user's private chat."""
        for message in reversed(self.fake.messages(user_id, as_user=user_id)):
            for button in message.buttons:
                found = pressable(button.callback_data)
                if found and found[0] == action and found[1] == game_id and found[3] == argument:
                    assert button.callback_data is not None
                    await self.fake.press(user_id, user_id, message.message_id, button.callback_data)
                    await self.bot.handle()
                    return True
        return False

    async def chatter(self, game_id: int) -> None:
        """Every 12 decisions, a line in the game's group: an admin's setting, a member's refused one."""
        decisions = sum(t.decisions for t in self.ledger.person.values())
        if decisions < 12 * (self.said + 1) or self.said >= len(ADMIN_LINES) + len(MEMBER_LINES):
            return
        group = (await self.bot.service.game_view(game_id)).chat.id
        admin, member = self.members(group)[:2]
        lines = ADMIN_LINES if self.said % 2 == 0 else MEMBER_LINES
        who, line = (admin if self.said % 2 == 0 else member), lines[self.said // 2]
        self.said += 1
        self.ledger.take()
        await self.fake.send_text(who.id, group, line)
        await self.bot.handle()
        self.ledger.take(answering=who.id)


async def measure(name: str, pace: Pace, rounds: int, seed: int, notify: str = "smart") -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{folder}/attention.db"
        await asyncio.to_thread(upgrade, url)
        engine = make_engine(url)
        try:
            async with FakeTelegram() as fake:
                clock = FakeClock()
                async with InBot(make_sessionmaker(engine), clock, fake) as bot:
                    run = Run(bot, fake, clock, pace, seed, notify)
                    await run.setup()
                    for _ in range(rounds):
                        run.said = 0
                        await run.round()
        finally:
            await engine.dispose()
    return summary(name, run)


def summary(name: str, run: Run) -> dict[str, Any]:
    players = {u.first_name: run.ledger.person[u.id] for u in run.users}
    total, group = Tally(), Tally()
    for tally in players.values():
        total.add(tally)
    for tally in run.ledger.group.values():
        group.add(tally)
    loud = sum(total.loud.values())
    return {
        "pattern": name,
        "players": {who: tally.row() | {"games": tally.games} for who, tally in players.items()},
        "group": group.row() | {"games": group.games},
        "group_loud": dict(run.ledger.group_loud),
        "notifying_per_decision": loud / total.decisions if total.decisions else 0.0,
        "group_notifying_per_game": sum(group.loud.values()) / max(group.games, 1),
        "notify": run.notify,
        "user0_per_interval": per_interval(run),
    }


def per_interval(run: Run) -> list[int]:
    """User0's notifying messages in each 4-hour interval of the play (rounds one after the other)."""
    counts: list[int] = []
    loud = run.ledger.loud_at[run.users[0].id]
    for began, ended in run.playing:
        intervals = max(1, -(-int((ended - began).total_seconds()) // int(DIGEST.total_seconds())))
        for n in range(intervals):
            start, end = began + n * DIGEST, began + (n + 1) * DIGEST
            counts.append(sum(1 for when, _ in loud if start <= when < end))
    return counts


def table(result: dict[str, Any]) -> str:
    head = f"{'player':<8} {'games':>5} " + " ".join(f"{c:>8}" for c in CATEGORIES)
    head += f" {'notify':>7} {'silent':>7} {'decide':>7} {'per dec':>7}"
    lines = [f"== {result['pattern']} (per game)", head]
    for who, row in result["players"].items():
        cells = " ".join(f"{row[c]:>8.1f}" for c in CATEGORIES)
        lines.append(
            f"{who:<8} {row['games']:>5} {cells} {row['notifying']:>7.1f} {row['silent']:>7.1f}"
            f" {row['decisions']:>7.1f} {row['per_decision']:>7.2f}"
        )
    group = result["group"]
    lines.append(f"group: {group['notifying']:.1f} notifying, {group['silent']:.1f} silent per game")
    lines.extend(f"  notified {count}×: {first}" for first, count in sorted(result["group_loud"].items()))
    counts = result["user0_per_interval"]
    lines.append(f"User0 ({result['notify']}), notifying messages per 4 h interval of play: {counts}")
    return "\n".join(lines)


def summary_line(result: dict[str, Any]) -> str:
    line = (
        f"pattern={result['pattern']} notifying_per_decision={result['notifying_per_decision']:.2f}"
        f" group_notifying_per_game={result['group_notifying_per_game']:.2f}"
    )
    if result["notify"] != "smart":
        counts = result["user0_per_interval"]
        line = line.replace(" ", f" notify={result['notify']} ", 1)
        line += f" user0_per_interval_max={max(counts, default=0)} user0_intervals={len(counts)}"
    return line


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    rounds = 1 if args.smoke else args.games
    results = []
    for name in args.patterns:
        pace = PATTERNS[name]
        if args.smoke:  # two people a game, two games at once at most: the same code, quickly
            pace = dataclasses.replace(pace, seats=2, groups=min(pace.groups, 2))
        result = await measure(name, pace, rounds, args.seed, args.notify)
        results.append(result)
        print(json.dumps(result) if args.json else table(result) + "\n", flush=True)
    if not args.json:
        for result in results:
            print(summary_line(result))
    return results


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3, help="games per pattern (in 'five': rounds of five games)")
    parser.add_argument("--patterns", nargs="+", choices=list(PATTERNS), default=list(PATTERNS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object per pattern")
    parser.add_argument("--smoke", action="store_true", help="one game (round) per pattern: a quick check")
    parser.add_argument(
        "--notify", choices=[str(n) for n in Notify], default="smart", help="User0's setting (digest: every 4 h)"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    logging.basicConfig(level=logging.WARNING)
    return asyncio.run(main_async(parse(argv)))


if __name__ == "__main__":
    main()
