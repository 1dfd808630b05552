"""Players and chats: who may be messaged, a chat's settings, the bot joining or leaving a group, a
group becoming a supergroup, and each Telegram update taken once."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from engine import AnyRules, rules_from_dict
from engine.ai import LEVELS
from persistence import repo
from persistence.models import Chat, Player
from shithead_bot.service.autoplay import Autoplay, Notify
from shithead_bot.service.errors import GameNotFoundError
from shithead_bot.service.lobby import rules_for
from shithead_bot.service.notices import Announcement, NoticeKind, TablePayload
from shithead_bot.service.schedule import iana_zone
from shithead_bot.service.snapshot import ACTIVE, TABLE_STYLES, ChatSnapshot
from shithead_bot.service.status import GameStatus
from shithead_bot.service.turns import (
    AFTER_TIMEOUTS_COMPUTER,
    AFTER_TIMEOUTS_REMOVE,
    ON_TIMEOUT_MINIMAL,
    ON_TIMEOUT_STANDIN,
    pause,
)
from shithead_bot.service.unit import Core, Result, UserInfo

CHAT_SETTINGS = frozenset(
    {
        "table_style",
        "game_kind",
        "preset",
        "house_rules",
        "turn_seconds",
        "reminders",
        "max_timeouts",
        "deadlines_skip_quiet",
        "language",
        "timezone",
        "standin_level",
        "on_timeout",
        "after_timeouts",
    }
)
CHAT_CHOICES: dict[str, tuple[str, ...]] = {
    "table_style": TABLE_STYLES,
    "standin_level": tuple(LEVELS),
    "on_timeout": (ON_TIMEOUT_STANDIN, ON_TIMEOUT_MINIMAL),
    "after_timeouts": (AFTER_TIMEOUTS_REMOVE, AFTER_TIMEOUTS_COMPUTER),
}


async def take_update(core: Core, update_id: int, message: tuple[int, int] | None = None) -> bool:
    """Claim a Telegram update before handling it: False when any worker took it already (a webhook
    delivered twice, or an update fetched again after a crash). ``message``: the (player id, message
    id) the player wrote in our private chat — no game's (see :func:`note_messages`); they are looking
    at the chat now (``player.last_active_at``: their next turn comes silently, smart notification)."""
    async with core.transaction() as session:
        now = core.clock()
        taken = await repo.take_update(session=session, update_id=update_id, now=now)
        if taken and message is not None:
            await repo.note_foreign_messages(session=session, player_id=message[0], message_ids=[message[1]], now=now)
            await repo.touch_player(session=session, player_id=message[0], when=now)  # a command: they are here
        return taken


async def note_messages(core: Core, player_id: int, message_ids: list[int]) -> None:
    """Messages the bot posted in a player's private chat outside a game's delivery (answers,
    pickers, settings): the clean-up after a crash, which takes the buttons off a game message a dead
    worker sent unrecorded, leaves them alone."""
    async with core.transaction() as session:
        await repo.note_foreign_messages(
            session=session, player_id=player_id, message_ids=message_ids, now=core.clock()
        )


DELIVERED_KEPT = timedelta(days=1)  # a delivered notice is kept this long (for the logs, and /metrics' backlog)
PURGE_BATCH = 5000  # notices deleted per transaction
PURGE_BATCHES = 200  # per run at most (the hourly job): a larger backlog goes in the next runs


async def forget_old_updates(core: Core, keep: timedelta = timedelta(days=2)) -> int:
    """The hourly clean-up: drop claims older than ``keep`` (Telegram redelivers for a day at most),
    idle send buckets, and notices delivered more than a day ago — those in batches, a transaction
    each, so that no transaction holds many rows. Returns how many notices were deleted."""
    async with core.transaction() as session:
        now = core.clock()
        await repo.purge_updates(session=session, before=now - keep)
        await repo.purge_foreign_messages(session=session, before=now - keep)
        if core.dialect == "postgresql":
            await repo.purge_send_buckets(session=session, before=now - timedelta(hours=1))
    deleted = 0
    for _ in range(PURGE_BATCHES):
        async with core.transaction() as session:
            batch = await repo.purge_outbox(session=session, before=now - DELIVERED_KEPT, limit=PURGE_BATCH)
        deleted += batch
        if batch < PURGE_BATCH:
            break
    return deleted


async def see_user(core: Core, user: UserInfo, *, can_message: bool | None = None) -> bool:
    """Create or refresh a player; ``can_message`` records a /start (True) or a block (False).
    Returns whether the bot may message them."""
    async with core.transaction() as session:
        player = await core.player(session, user)
        if can_message is not None:
            _reach(player, can_message, core.clock())
        return player.can_message


async def set_can_message(core: Core, player_id: int, value: bool) -> None:
    async with core.transaction() as session:
        player = await repo.get_player(session=session, player_id=player_id)
        if player is not None:
            _reach(player, value, core.clock())


def _reach(player: Player, can_message: bool, now: datetime) -> None:
    """What the player just showed: a /start or an unblock (True) is stamped, so that a delivery's
    report of an older 403 does not undo it (``Outbox.write``)."""
    player.can_message = can_message
    if can_message:
        player.reachable_at = now


async def set_autoplay(core: Core, user: UserInfo, value: Autoplay) -> Autoplay:
    """Which of this player's forced moves the bot makes for them, in every game, from their next turn."""
    async with core.transaction() as session:
        player = await core.player(session, user)
        player.autoplay = str(value)
    return value


async def set_notify(core: Core, user: UserInfo, value: Notify) -> Notify:
    """When new turns notify this player, in every game, from their next turn."""
    async with core.transaction() as session:
        player = await core.player(session, user)
        player.notify = str(value)
    return value


async def notify_of(core: Core, player_id: int) -> Notify:
    async with core.sessions() as session:
        player = await repo.get_player(session=session, player_id=player_id)
    return Notify.of(player.notify if player is not None else None)


async def autoplay_of(core: Core, player_id: int) -> Autoplay:
    async with core.sessions() as session:
        player = await repo.get_player(session=session, player_id=player_id)
    return Autoplay.of(player.autoplay if player is not None else None)


async def ensure_chat(core: Core, chat_id: int, kind: str, title: str) -> ChatSnapshot:
    """A chat's settings (the chat is created on first sight)."""
    async with core.transaction() as session:
        return ChatSnapshot.of(await core.chat(session, chat_id, kind, title))


async def chat_language(core: Core, chat_id: int) -> str | None:
    """The language a chat's admins set for what the bot posts there (None: not set, or no such chat)."""
    async with core.sessions() as session:
        chat = await repo.get_chat(session=session, chat_id=chat_id)
    return chat.language if chat is not None else None


async def update_chat(core: Core, /, chat_id: int, **settings: object) -> ChatSnapshot:
    """Change a chat's settings (game kind, preset, house rules, reminders, timeouts, language…)."""
    async with core.transaction() as session:
        chat = await _chat_or_raise(session, chat_id)
        for key, value in settings.items():
            if key not in CHAT_SETTINGS:
                raise ValueError(f"no chat setting {key!r}")
            if key in CHAT_CHOICES and value not in CHAT_CHOICES[key]:
                raise ValueError(f"{key} is {' or '.join(CHAT_CHOICES[key])}, not {value!r}")
            if key == "timezone" and value is not None:
                value = iana_zone(str(value))  # SettingError (a ValueError) when it is not one
            setattr(chat, key, value)
        chat.updated_at = core.clock()
        chat.settings_version += 1
        return ChatSnapshot.of(chat)


async def add_house_rule(core: Core, chat_id: int, key: str, value: str) -> ChatSnapshot:
    """Save one house rule for the chat's next games; RulesError (with the reason) if it is not one."""
    async with core.transaction() as session:
        chat = await _chat_or_raise(session, chat_id)
        rules = {**chat.house_rules, key.strip(): value.strip()}
        base, _ = rules_for(chat.model_copy(update={"house_rules": {}}))
        base.with_rules(rules)
        chat.house_rules = rules
        chat.updated_at = core.clock()
        chat.settings_version += 1
        return ChatSnapshot.of(chat)


async def chat_rules(core: Core, chat_id: int, kind: str, title: str) -> AnyRules:
    """The rules of the chat's open game, or the rules its next game would get."""
    async with core.transaction() as session:
        game = await repo.open_game_in_chat(session=session, chat_id=chat_id)
        if game is not None:
            return rules_from_dict(game.kind, game.rules)
        return rules_for(await core.chat(session, chat_id, kind, title))[0]


async def _chat_or_raise(session: AsyncSession, chat_id: int) -> Chat:
    chat = await repo.get_chat(session=session, chat_id=chat_id)
    if chat is None:
        raise GameNotFoundError(f"unknown chat {chat_id}")
    return chat


async def bot_removed(core: Core, chat_id: int) -> Result | None:
    """The bot was removed from a group (or may no longer post there): its game is paused."""
    async with core.transaction() as session:
        return await silenced(core, session, chat_id)


async def silenced(core: Core, session: AsyncSession, chat_id: int) -> Result | None:
    """:func:`bot_removed` inside a transaction of the caller's (the outbox writing a delivery report)."""
    chat = await repo.get_chat(session=session, chat_id=chat_id)
    if chat is not None:
        chat.bot_present = False
    game = await repo.open_game_in_chat(session=session, chat_id=chat_id)
    if game is None or game.status not in ACTIVE:
        return None
    tx = await core.load(session, game.id or 0)
    pause(tx, core.settings)
    return await core.commit(tx)


async def bot_added(core: Core, chat_id: int, kind: str, title: str) -> Result | None:
    """The bot is in a group (added, re-added, or allowed to post again). Its rights there changed:
    pictures are tried again. Back after a removal, its paused game's table is posted anew with
    ▶️ Resume, and the group told it can go on."""
    async with core.transaction() as session:
        chat = await core.chat(session, chat_id, kind, title)
        was_gone, chat.bot_present = not chat.bot_present, True
        chat.photos_refused_until = None
        game = await repo.open_game_in_chat(session=session, chat_id=chat_id) if was_gone else None
        if game is None or game.status != GameStatus.PAUSED:
            return None
        tx = await core.load(session, game.id or 0)
        tx.announce(Announcement.BOT_BACK)
        tx.notify(NoticeKind.TABLE, payload=TablePayload(repost=True))
        return await core.commit(tx)


async def migrate_chat(core: Core, old_id: int, new_id: int) -> list[int]:
    """A group became a supergroup: its games follow. Returns the ids of its open games."""
    async with core.transaction() as session:
        await repo.migrate_chat(session=session, old_id=old_id, new_id=new_id)
        game = await repo.open_game_in_chat(session=session, chat_id=new_id)
        return [game.id] if game and game.id else []
