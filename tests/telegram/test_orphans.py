"""After a crash, the turn message sent again takes the buttons off the copy the dead worker sent
unrecorded — and off nothing else: not the player's own messages, not a keyboard the bot posted
for something else (an /away picker, the settings) meanwhile.

The bot cannot list a chat's messages; ids in a private chat count up, so the copy lies between the
seat's recorded message and the new one. What else lies there is known: the player's own messages
(taken with their update) and every message the bot posted there outside a game's delivery."""

from __future__ import annotations

import asyncio

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup

from shithead_bot.service import Autoplay
from testkit.clock import FakeClock
from testkit.fakebot import FakeTelegram
from tests.service.helpers import user
from tests.telegram.fakegame import FakeGame

PLAYERS = [user(n).id for n in range(3)]


async def crash_on_the_next_turn(game: FakeGame) -> int:
    """A press whose next player's new turn message Telegram takes while the worker dies: returns
    that player."""
    for _ in range(30):
        _, mover = await game.to_act()
        others = {str(p) for p in PLAYERS if p != mover}
        stalled = game.fake.stall_next(
            "sendMessage", lambda p, others=others: str(p.get("chat_id")) in others and "reply_markup" in p
        )
        press = asyncio.ensure_future(game.move())
        await asyncio.wait([press, asyncio.ensure_future(stalled.wait())], return_when="FIRST_COMPLETED")
        game.fake.cancel_stalls()
        if stalled.is_set():
            press.cancel()
            await asyncio.gather(press, return_exceptions=True)
            _, next_player = await game.to_act()
            return next_player
        await press
    raise AssertionError("no turn message stalled in 30 moves")


async def test_the_clean_up_after_a_crash_touches_only_the_games_copy(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, fake: FakeTelegram, bot: Bot
) -> None:
    game = await FakeGame(sessions, clock, fake, bot).start(humans=3, autoplay=Autoplay.OFF)
    while (await game.service.game_view(game.game_id)).in_swap_phase:
        await game.move()
    player = await crash_on_the_next_turn(game)
    orphan = max(m.message_id for m in game.live(player))
    # Meanwhile the player writes /away in our chat and gets its picker (a handler's reply).
    own = await fake.send_text(player, player, "/away")
    assert await game.service.take_update(900_001, message=(player, own["message_id"]))
    picker = await bot.send_message(
        player,
        "Away for how long?",
        reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("1h", callback_data="x")]]),
    )
    await game.service.note_messages(player, [picker.message_id])
    fake.reset_calls()
    clock.advance(seconds=31)  # the dead worker's lease runs out: the turn goes out again
    await game.deliver()
    touched = {
        int(c.params["message_id"])
        for c in fake.calls
        if "message_id" in c.params and str(c.params.get("chat_id")) == str(player)
    }
    assert own["message_id"] not in touched, "the player's own message is not the game's"
    assert picker.message_id not in touched, "the picker is not the game's"
    assert fake.buttons(player, picker.message_id), "the picker keeps its buttons"
    assert orphan in touched, "the unrecorded copy loses its buttons"
    live = [m.message_id for m in game.live(player)]
    assert live == sorted([picker.message_id, max(live)]), live
