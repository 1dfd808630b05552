"""A crash in a send window: the bot is killed right after Telegram took a message, before the bot
heard back. Delivery cannot be exactly-once against the Bot API; what the user sees must still make
sense — never two live keyboards, never a turn message without one."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from testkit.fakebot import FakeTelegram, SeenMessage
from tests.e2e.conftest import FLOW_LIMITS, start_all
from tests.e2e.harness import BotProcess, Player, asks_to_act, play_until_over, start_game

pytestmark = pytest.mark.slow


def live_keyboards(fake: FakeTelegram, player: Player) -> list[SeenMessage]:
    return [m for m in player.private() if m.from_bot and any(b.callback_data for b in m.buttons)]


def story(fake: FakeTelegram, duo: list[Player], live: list[SeenMessage], *bots: BotProcess) -> str:
    """What the two players were sent, and what both bots logged: why a keyboard stayed live."""
    chats = {str(p.user_id) for p in duo}
    calls = [
        f"{c.time:.2f} {c.method} {c.params.get('chat_id')} {c.params.get('message_id', '')} {c.result} "
        f"{'buttons' if 'reply_markup' in c.params else ''} {str(c.params.get('text', ''))[:30]!r}"
        for c in fake.calls
        if str(c.params.get("chat_id")) in chats
    ]
    shown = [(m.chat_id, m.message_id, m.text[:40]) for m in live]
    return "\n".join([repr(shown), *calls, *(b.log_text for b in bots)])


async def test_a_turn_message_resent_after_a_crash_leaves_one_live_keyboard(
    fake: FakeTelegram, database_url: str, players: list[Player]
) -> None:
    duo = players[:2]
    env = {**FLOW_LIMITS, "OUTBOX_LEASE_SECONDS": "2"}
    first = bot = BotProcess(fake, database_url, extra_env=env)
    await bot.start()
    try:
        await start_all(fake, duo)
        await start_game(fake, duo)
        for player in duo:
            await player.press(await fake.wait_for(player.live_message, timeout=60), "✅ Ready")
        for _ in range(20):  # a move that hands the turn to the other player: their fresh turn message
            mover = await fake.wait_for(lambda: next((p for p in duo if p.live_message()), None), timeout=60)
            other = next(p for p in duo if p is not mover)
            sent = fake.stall_next(
                "sendMessage", lambda params, chat=other.user_id: str(params["chat_id"]) == str(chat)
            )
            await mover.play_turn()
            try:
                await asyncio.wait_for(sent.wait(), 3)
                break
            except TimeoutError:  # the same player went on (a burn): try the next move
                fake.cancel_stalls()
        assert sent.is_set()
    finally:
        await bot.stop(kill=True)  # SIGKILL: the message is out, the bot never learnt its id
    newest = {p.user_id: max(m.message_id for m in p.private()) for p in duo}
    bot = BotProcess(fake, database_url, extra_env=env)
    await bot.start()
    try:
        await fake.wait_for(
            lambda: any(m.message_id > newest[p.user_id] and asks_to_act(m.text) for p in duo for m in p.private()),
            timeout=30,
        )  # the lease ran out and the turn message went out again (counting would not do: the

        # same batch may delete the swap message the crash left behind)
        def live_now() -> list[SeenMessage]:
            return [m for p in duo for m in live_keyboards(fake, p)]

        # the orphan's keyboard goes right after the new send, in the same step: wait for it
        with contextlib.suppress(AssertionError):
            await fake.wait_for(lambda: len(live_now()) == 1, timeout=30)
        live = live_now()
        assert len(live) == 1, story(fake, duo, live, first, bot)
        starter = next(p for p in duo if p.user_id == live[0].chat_id)
        assert starter.live_message() == live[0]
        await play_until_over(fake, duo)
    finally:
        await bot.stop()
