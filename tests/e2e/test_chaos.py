"""A bounded chaos run on PostgreSQL: two webhook workers, three tables of new people who all arrive
at once, redelivered updates, forged and random button data, terminated database connections and a
worker killed mid-game and started again. Then the books must balance: no unhandled error, no
generic toast but under a database fault, every logged move replays to the stored game, whoever
must act has a live keyboard, and no hidden card or seed showed anywhere it must not."""

from __future__ import annotations

import asyncio
import contextlib
import random
import re

import pytest

from persistence.db import make_engine, make_sessionmaker
from shithead_bot.service import GameService
from testkit.fakebot import FakeTelegram
from tests.e2e.harness import BotProcess, Player, current, has_button, webhook_worker
from tests.e2e.privacy import leaks, leaks_in_logs, secret_cards
from tests.e2e.test_db_faults import terminate_backends

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

PRESSES = 120  # played in all, half before a worker is killed and half after (about 45 s alone on two cores)
KILLS = 6  # database connections terminated, at least
TABLES = 3
ENV = {"OUTBOX_LEASE_SECONDS": "3", "TABLE_EDIT_SECONDS": "1", "SWEEP_SECONDS": "1"}


class Run:
    def __init__(self, fake: FakeTelegram, url: str) -> None:
        self.fake = fake
        self.url = url
        self.workers: list[BotProcess] = []
        self.stopped: list[BotProcess] = []
        self.tables: list[list[Player]] = []
        self.forged = 0
        self.forged_refused = 0
        self.kills = 0
        self.presses = 0
        self.rng = random.Random(11)

    async def add_worker(self) -> None:
        """Start a webhook worker. The fault injector may kill its database connection while it
        starts: it then exits with one line, and — as systemd or compose would — is started again."""
        for _ in range(3):
            worker = webhook_worker(self.fake, self.url, migrate=False, extra_env=ENV)
            before = len(self.fake.calls_of("setWebhook"))
            await worker.start(wait_for_polling=False)
            assert worker.process is not None
            process = worker.process

            def up_or_exited(before: int = before, process: asyncio.subprocess.Process = process) -> bool:
                return len(self.fake.calls_of("setWebhook")) > before or process.returncode is not None

            started = await self.fake.wait_for(up_or_exited, timeout=90)
            if started and process.returncode is None:
                break
            self.stopped.append(worker)
        else:
            raise AssertionError("no worker started in three tries")
        worker.url = str(self.fake.calls_of("setWebhook")[-1].params["url"])  # type: ignore[attr-defined]
        self.workers.append(worker)
        self.fake.set_delivery_targets([w.url for w in self.workers])  # type: ignore[attr-defined]

    async def kill_a_worker(self) -> None:
        victim = self.workers.pop(0)
        self.fake.set_delivery_targets([w.url for w in self.workers])  # type: ignore[attr-defined]
        await victim.stop(kill=True)
        self.stopped.append(victim)
        await self.add_worker()

    async def arrive(self, n: int) -> list[Player]:
        """A new group and new people, all at once: the bot added, /newgame, /start and Join."""
        group = -6000 - n
        duo = []
        for seat in range(3):
            user_id = 6000 + 10 * n + seat
            self.fake.add_user(user_id, f"Q{n}{seat}")
            duo.append(Player(self.fake, user_id, f"Q{n}{seat}", group=group))
        creator = duo[0]
        self.fake.start_bot(creator.user_id)
        self.fake.add_group(group, f"Chaos {n}", [p.user_id for p in duo], admins=[creator.user_id])
        # The creator's /start is answered before their /newgame: on another worker, a /newgame that
        # overtook it would open a lobby without seating them (they could not be written to yet).
        await self.fake.wait_for(lambda: any(m.from_bot for m in creator.private()), timeout=30)
        await asyncio.gather(creator.command("/newgame", chat_id=group), creator.command("/newgame", chat_id=group))
        lobby = await self.fake.wait_for(
            lambda: next(
                (m for m in self.fake.messages(group, as_user=creator.user_id) if has_button(m, "✋ Join")), None
            ),
            timeout=30,
        )
        for player in duo[1:]:
            self.fake.start_bot(player.user_id)  # the first /start and the first Join together
            data = self.fake.button_data(group, lobby.message_id, "✋ Join")
            answer = await (await self.fake.press(player.user_id, group, lobby.message_id, data)).answer(timeout=60)
            if answer is not None and answer.url:
                self.fake.open_deep_link(player.user_id, answer.url)
        for player in duo[1:]:
            await self.fake.wait_for(
                lambda p=player: p.name in current(self.fake, lobby, creator.user_id).text, timeout=30
            )
        await creator.press(current(self.fake, lobby, creator.user_id), "▶️ Start")
        return duo

    async def press(self, player: Player) -> None:
        message = player.live_message()
        if message is None:
            return
        data = self.fake.button_data(message.chat_id, message.message_id, player.choose(message))
        pressed = await self.fake.press(player.user_id, message.chat_id, message.message_id, data)
        with contextlib.suppress(AssertionError):  # it went to a worker that was killed: pressed again next round
            await pressed.answer(timeout=6)
        self.presses += 1

    async def forge(self, player: Player) -> None:
        seen = [m for m in player.private() + self.fake.messages(player.group, as_user=player.user_id) if m.from_bot]
        if not seen:
            return
        target = self.rng.choice(seen)
        if self.rng.random() < 0.5 and target.buttons:
            good = self.rng.choice([b.callback_data for b in target.buttons if b.callback_data] or ["x"])
            data = good[:-3] + "".join(self.rng.choice("AZaz09-_é") for _ in range(3))  # a broken signature
        else:
            data = bytes(self.rng.randrange(1, 256) for _ in range(self.rng.randrange(1, 30))).decode("latin-1")
        data = data.encode()[:64].decode("utf-8", "ignore") or "?"
        self.forged += 1
        pressed = await self.fake.forge_press(player.user_id, target.chat_id, target.message_id, data)
        try:
            answer = await pressed.answer(timeout=6)
        except AssertionError:
            return
        if answer is not None and answer.text in ("This button is not valid.", "Already done."):  # or redelivered
            self.forged_refused += 1

    async def players(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            people = [p for duo in self.tables for p in duo]
            await asyncio.gather(*(self.press(p) for p in people))
            if self.rng.random() < 0.3:
                await self.forge(self.rng.choice(people))
            await asyncio.sleep(0.05)

    async def faults(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await asyncio.sleep(self.rng.uniform(0.5, 2.0))
            self.kills += await terminate_backends(self.url)
            self.fake.duplicate_deliveries(self.rng.choice([1, 1, 2]), at_once=self.rng.random() < 0.5)

    @property
    def logs(self) -> str:
        return "\n".join(w.log_text for w in [*self.stopped, *self.workers])


async def test_chaos(fake: FakeTelegram, pg_db_url: str) -> None:
    run = Run(fake, pg_db_url)
    engine = make_engine(pg_db_url)
    service = GameService(make_sessionmaker(engine))
    try:
        for _ in range(2):
            await run.add_worker()
        run.tables = list(await asyncio.gather(*(run.arrive(n) for n in range(TABLES))))
        stop = asyncio.Event()
        tasks = [asyncio.create_task(run.players(stop)), asyncio.create_task(run.faults(stop))]
        # So much play, not so many seconds: a loaded machine plays slower, not less. The timeouts
        # only stop a run that is stuck.
        await fake.wait_for(lambda: run.presses >= PRESSES // 2, timeout=180)
        await run.kill_a_worker()  # SIGKILL in the middle of the games
        await fake.wait_for(lambda: run.presses >= PRESSES and run.kills >= KILLS, timeout=180)
        stop.set()
        await asyncio.gather(*tasks)
        fake.duplicate_deliveries(1)
        outbox = service.outbox()
        for _ in range(240):  # the faults are over: what waits out its pause goes now, as after an
            if await outbox.pending() == 0:  # outage (a notice that failed often would wait minutes)
                break
            await outbox.retry_now()
            await asyncio.sleep(0.5)
        assert await outbox.pending() == 0, "the outbox did not drain after the faults"
        await asyncio.sleep(2)
        await check(run, service)
    finally:
        for worker in run.workers:
            await worker.stop()
        await engine.dispose()


async def check(run: Run, service: GameService) -> None:
    fake, logs = run.fake, run.logs
    errors = [line for line in logs.splitlines() if " ERROR " in line]
    statuses = [(await service.games_of(d[0].user_id, open_only=False))[0].game.status for d in run.tables]
    print(
        f"chaos: {run.presses} presses, {run.forged} forged, {run.kills} connections killed, "
        f"{len(errors)} errors, games {statuses}"
    )
    assert run.kills >= KILLS
    assert run.presses >= PRESSES
    # No unhandled exception; any error is a database fault we injected.
    assert "Traceback" not in logs
    assert all("database error" in line for line in errors), errors
    # A press answered "went wrong" only for a database fault we injected: an error, or — a passing
    # one, the connection lost — a one-line warning.
    faults = [line for line in logs.splitlines() if "failed: database error" in line]
    generic = [c for c in fake.calls_of("answerCallbackQuery") if "went wrong" in str(c.params.get("text"))]
    assert len(generic) <= len(faults), (generic, faults)
    # Forged data is refused as not valid (unless it went to the killed worker).
    assert run.forged_refused >= run.forged - 3, (run.forged, run.forged_refused)
    for duo in run.tables:
        found = await service.games_of(duo[0].user_id, open_only=False)
        assert len(found) == 1
        game_id = found[0].game.id or 0
        view = await service.game_view(game_id)
        assert view.game.snapshot is not None
        assert (await service.rebuild(game_id)).to_dict() == view.game.snapshot  # the log replays to the game
        if view.game.status in ("swapping", "playing") and view.state is not None:
            for number in view.state.seats_to_act():  # whoever must act has a live keyboard — one
                player = next(p for p in duo if p.user_id == view.seat(number).player_id)
                live = [m for m in player.private() if m.from_bot and any(b.callback_data for b in m.buttons)]
                if len(live) != 1:  # (printed: pytest cuts a long assertion message short)
                    print(story(run, player, game_id))
                assert len(live) == 1, (game_id, number, [m.text[:50] for m in live])
                assert player.live_message() == live[0]
        # No hidden card where it must not be, no seed in the logs.
        secrets = await secret_cards(run.url, game_id)
        owner_chat = {s.number: s.player_id or 0 for s in view.seats}  # seats are in the order people joined
        chats = [duo[0].group, *(p.user_id for p in duo)]
        texts = [(m.chat_id, m.text) for chat in chats for m in fake.history(chat)]
        assert leaks(texts, secrets, owner_chat) == []
        assert leaks_in_logs(logs, secrets) == []
        assert re.search(rf"\b{(await service.record(game_id)).seed}\b", logs) is None


def story(run: Run, player: Player, game_id: int) -> str:
    """What the bot did in a player's private chat, and what the workers logged of the game: enough
    to tell a crash window from a race when a check fails."""
    calls = [
        f"{c.time:.2f} {c.method} {c.params.get('message_id', '')} {'keyboard' if 'reply_markup' in c.params else ''}"
        f" {c.result}"
        for c in run.fake.calls
        if str(c.params.get("chat_id")) == str(player.user_id)
    ]
    seen = [
        f"{m.message_id} {'bot' if m.from_bot else 'me'} {len(m.buttons)} {m.text[:40]!r}"
        for m in player.private()
    ]
    logged = [line for line in run.logs.splitlines() if f"game {game_id}" in line or "claim" in line]
    return "\n".join(["calls:", *calls, "messages:", *seen, "logs:", *logged[-60:]])

