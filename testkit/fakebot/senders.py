"""Who else writes in a group, and what a bot with privacy mode on receives of it.

- An anonymous admin's message comes from ``GroupAnonymousBot`` with ``sender_chat`` = the group.
- A message sent on behalf of a channel comes from ``Channel_Bot`` with ``sender_chat`` = the channel.
- Other bots post in groups too; with privacy mode on, a bare ``/command`` reaches our bot only if
  it was the last bot to post in the group (Bot API FAQ, "What messages will my bot get?"), while
  ``/command@ourbot`` and replies to our bot's messages always do. A bot that is an admin, or has
  privacy mode off, gets everything.
"""

import re

from .model import MEMBER_STATUSES, Chat, Message, User
from .world import World

GROUP_ANONYMOUS_BOT = User(1087968824, "Group", username="GroupAnonymousBot", language_code=None, is_bot=True)
CHANNEL_BOT = User(136817688, "Channel", username="Channel_Bot", language_code=None, is_bot=True)
LEADING_COMMAND = re.compile(r"/[A-Za-z0-9_]+(?:@([A-Za-z0-9_]+))?(?!\S)")


def ensure_sender(world: World, user: User) -> None:
    """Telegram's service accounts are users too, without a private chat."""
    world.users.setdefault(user.id, user)


def add_channel(world: World, channel_id: int, title: str) -> Chat:
    assert str(channel_id).startswith("-100"), "channel ids look like -100…"
    assert channel_id not in world.chats, f"duplicate chat id {channel_id}"
    channel = Chat(channel_id, "channel", title)
    world.chats[channel_id] = channel
    return channel


def last_bot_to_post(world: World, chat: Chat) -> int | None:
    """The id of the bot that posted last in the chat (anonymous admins and channels are no bots here)."""
    for message_id in reversed(chat.message_ids):
        message = world.stored[(chat.id, message_id)]
        if message.service is not None or message.sender_chat_id is not None:
            continue
        if message.sender_id == world.bot.id or world.users[message.sender_id].is_bot:
            return message.sender_id
    return None


def bot_receives(world: World, chat: Chat, message: Message, text: str, privacy_mode: bool) -> bool:
    """Private chats: always. Groups: if the bot is in it; with privacy mode, only replies to the
    bot, ``/cmd@thisbot``, and a bare ``/cmd`` when no other bot posted after this one."""
    if chat.type == "private":
        return True
    if chat.bot_status not in MEMBER_STATUSES:
        return False
    if not privacy_mode or chat.bot_is_admin():
        return True
    replied = world.message(chat.id, message.reply_to) if message.reply_to else None
    if replied is not None and replied.sender_id == world.bot.id:
        return True
    command = LEADING_COMMAND.match(text)
    if command is None:
        return False
    if command.group(1) is not None:
        return command.group(1).lower() == (world.bot.username or "").lower()
    return last_bot_to_post(world, chat) in (None, world.bot.id)
