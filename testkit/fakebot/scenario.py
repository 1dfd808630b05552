"""The test-side API: build the world, act as users, and read what each user sees."""

import itertools
import re
from collections.abc import Iterable, Iterator
from urllib.parse import parse_qs, urlsplit

from . import senders
from .api import BotApi
from .markup import command_entities
from .model import (
    JSON,
    MEMBER_STATUSES,
    Button,
    Chat,
    Message,
    Press,
    SeenMessage,
    Topic,
    User,
    member_dict,
    restricted_dict,
)
from .updates import UpdateQueue
from .world import World

START_PAYLOAD = re.compile(r"[A-Za-z0-9_-]{1,64}")
DEEP_LINK_HOSTS = ("t.me", "telegram.me", "telegram.dog")


class Scenario:
    def __init__(self, token: str, bot_id: int, bot_username: str, privacy_mode: bool = True) -> None:
        self.token = token
        self.bot_username = bot_username
        self.world = World(User(bot_id, "Shithead Test Bot", username=bot_username, language_code=None, is_bot=True))
        self.queue = UpdateQueue()
        self.presses: dict[str, Press] = {}
        self.api = BotApi(self.world, self.queue, self.presses, privacy_mode)
        self.privacy_mode = privacy_mode
        self._query_ids = itertools.count(4_000_000_000_000_000_001)

    # --- users and private chats --------------------------------------------------------------------

    def add_user(
        self,
        user_id: int,
        first_name: str,
        username: str | None = None,
        language_code: str | None = "en",
        last_name: str | None = None,
    ) -> JSON:
        assert user_id > 0, f"user ids are positive: {user_id}"
        assert user_id not in self.world.users, f"duplicate user id {user_id}"
        assert user_id != self.world.bot.id, "that id is the bot's"
        user = User(user_id, first_name, username, language_code, last_name)
        self.world.add_user(user)
        return user.to_dict()

    def _user(self, user_id: int) -> User:
        assert user_id in self.world.users, f"there is no user {user_id}; call add_user first"
        return self.world.users[user_id]

    def start_bot(self, user_id: int, payload: str | None = None) -> JSON:
        """The user opens the private chat and sends ``/start`` (or ``/start PAYLOAD``); returns that message."""
        user = self._user(user_id)
        if payload is not None:
            assert START_PAYLOAD.fullmatch(payload), f"Telegram passes only [A-Za-z0-9_-]{{1,64}}: {payload!r}"
        if user.blocked:
            self.unblock_bot(user_id)
        user.started = True
        text = "/start" if payload is None else f"/start {payload}"
        return self._post(user, self.world.chats[user_id], text, None)

    def open_deep_link(self, user_id: int, url: str) -> JSON:
        """The user taps ``https://t.me/<bot>?start=PAYLOAD`` (or the ``tg://resolve`` form)."""
        parts = urlsplit(url)
        query = parse_qs(parts.query)
        if parts.scheme == "tg":
            assert parts.netloc == "resolve", f"not a Telegram deep link: {url}"
            domain = query.get("domain", [""])[0]
        else:
            assert parts.scheme == "https", f"not a Telegram deep link: {url}"
            assert parts.netloc in DEEP_LINK_HOSTS, f"not a Telegram deep link: {url}"
            domain = parts.path.strip("/")
        assert domain.lower() == self.bot_username.lower(), f"{url} opens @{domain}, not @{self.bot_username}"
        payload = query.get("start", [None])[0]
        return self.start_bot(user_id, payload)

    def block_bot(self, user_id: int) -> None:
        user = self._user(user_id)
        assert not user.blocked, f"user {user_id} already blocked the bot"
        user.blocked = True
        change = self.world.bot_member_change(self.world.chats[user_id], user, "member", "kicked")
        self.queue.emit("my_chat_member", change)

    def unblock_bot(self, user_id: int) -> None:
        user = self._user(user_id)
        assert user.blocked, f"user {user_id} has not blocked the bot"
        user.blocked = False
        change = self.world.bot_member_change(self.world.chats[user_id], user, "kicked", "member")
        self.queue.emit("my_chat_member", change)

    # --- groups -------------------------------------------------------------------------------------

    def add_group(
        self,
        chat_id: int,
        title: str,
        members: list[int],
        admins: Iterable[int] = (),
        creator: int | None = None,
        supergroup: bool = False,
        forum: bool = False,
    ) -> JSON:
        """A group with these users and the bot (a ``my_chat_member`` update from left to member);
        ``forum``: a supergroup with topics (see :meth:`create_topic`)."""
        assert chat_id < 0, f"group ids are negative: {chat_id}"
        assert not forum or supergroup, "only supergroups are forums"
        assert chat_id not in self.world.chats, f"duplicate chat id {chat_id}"
        assert not supergroup or str(chat_id).startswith("-100"), "supergroup ids look like -100…"
        admins = list(admins)
        creator = members[0] if creator is None else creator
        chat = Chat(chat_id, "supergroup" if supergroup else "group", title, is_forum=forum)
        for user_id, status in [(u, "member") for u in members] + [(u, "administrator") for u in admins]:
            if user_id != self.world.bot.id:
                chat.members[self._user(user_id).id] = status
        chat.members[self._user(creator).id] = "creator"
        chat.bot_status = "administrator" if self.world.bot.id in admins else "member"
        self.world.chats[chat_id] = chat
        by = self.world.users[creator]
        self.queue.emit("my_chat_member", self.world.bot_member_change(chat, by, "left", chat.bot_status))
        return self.world.chat_dict(chat)

    # --- forum topics -------------------------------------------------------------------------------

    def create_topic(self, chat_id: int, name: str, by_user: int | None = None) -> int:
        """A new topic in a forum; its thread id (the id of the service message that opens it)."""
        chat = self._group(chat_id)
        assert chat.is_forum, f"{chat_id} is not a forum"
        by = self._creator(chat) if by_user is None else by_user
        message = self.world.add_message(
            chat, by, None, service={"forum_topic_created": {"name": name, "icon_color": 7322096}}
        )
        message.thread_id = message.message_id
        chat.topics[message.message_id] = Topic(name)
        return message.message_id

    def close_topic(self, chat_id: int, thread_id: int) -> None:
        self._group(chat_id).topics[thread_id].closed = True

    def reopen_topic(self, chat_id: int, thread_id: int) -> None:
        self._group(chat_id).topics[thread_id].closed = False

    def delete_topic(self, chat_id: int, thread_id: int) -> None:
        """The topic and every message in it are gone."""
        chat = self._group(chat_id)
        chat.topics[thread_id].deleted = True
        for message_id in chat.message_ids:
            message = self.world.stored[(chat.id, message_id)]
            if message.thread_id == thread_id:
                message.deleted = True

    def _group(self, chat_id: int) -> Chat:
        chat = self.world.chats.get(chat_id)
        assert chat is not None, f"there is no group {chat_id}"
        assert chat.is_group(), f"{chat_id} is not a group"
        return chat

    def add_member(self, chat_id: int, user_id: int, status: str = "member") -> None:
        """Add a user (or, with the bot's id, the bot again) to a group."""
        chat = self._group(chat_id)
        assert status in MEMBER_STATUSES, f"not a member status: {status}"
        if user_id != self.world.bot.id:
            chat.members[self._user(user_id).id] = status
            return
        old, chat.bot_status, chat.bot_removed = chat.bot_status, status, False
        by = self.world.users[self._creator(chat)]
        self.queue.emit("my_chat_member", self.world.bot_member_change(chat, by, old, status))

    def remove_member(self, chat_id: int, user_id: int, kicked: bool = False) -> None:
        """The user leaves the group (or, with ``kicked``, is banned from it)."""
        self._group(chat_id).members[self._user(user_id).id] = "kicked" if kicked else "left"

    def restrict_bot(self, chat_id: int, *, messages: bool = False, photos: bool = False) -> None:
        """An admin restricts the bot: it may still send ``messages`` and ``photos`` if said so
        (both: the restriction is lifted). ``my_chat_member`` to restricted (or back to member); a
        send it may not make gets Telegram's 400 "not enough rights to send …". The bot stays in
        the chat (it reads and edits as before)."""
        chat = self._group(chat_id)
        muted = frozenset(kind for kind, allowed in (("messages", messages), ("photos", photos)) if not allowed)
        bot = self.world.bot.to_dict()
        old = restricted_dict(bot, chat.bot_muted) if chat.bot_muted else member_dict(bot, chat.bot_status)
        new = restricted_dict(bot, muted) if muted else member_dict(bot, chat.bot_status)
        chat.bot_muted = muted
        change = self.world.bot_member_change(chat, self.world.users[self._creator(chat)], "member", "member")
        self.queue.emit("my_chat_member", {**change, "old_chat_member": old, "new_chat_member": new})

    def remove_bot_from_group(self, chat_id: int, by_user: int) -> None:
        """An admin removes the bot: ``my_chat_member`` to kicked (supergroup) or left (group); then 403s."""
        chat = self._group(chat_id)
        assert chat.members.get(by_user) in ("creator", "administrator"), f"user {by_user} is no admin of {chat_id}"
        assert chat.bot_status in MEMBER_STATUSES, f"the bot is not in {chat_id}"
        old = chat.bot_status
        chat.bot_status = "kicked" if chat.type == "supergroup" else "left"
        chat.bot_removed = True
        change = self.world.bot_member_change(chat, self.world.users[by_user], old, chat.bot_status)
        self.queue.emit("my_chat_member", change)

    def _creator(self, chat: Chat) -> int:
        return next(uid for uid, status in chat.members.items() if status == "creator")

    def migrate_group(self, chat_id: int) -> int:
        """Upgrade a group to a supergroup; returns the new id. Emits both migration service messages."""
        old = self._group(chat_id)
        assert old.type == "group", f"only basic groups migrate; {chat_id} is a {old.type}"
        assert old.migrated_to is None, f"{chat_id} was already migrated"
        new_id = int(f"-100{abs(chat_id):010d}")
        new = Chat(new_id, "supergroup", old.title, dict(old.members), old.bot_status, old.bot_removed)
        self.world.chats[new_id] = new
        creator = self._creator(old)
        notices = [
            self.world.add_message(old, creator, None, service={"migrate_to_chat_id": new_id}),
            self.world.add_message(new, creator, None, service={"migrate_from_chat_id": chat_id}),
        ]
        old.migrated_to = new_id
        if old.bot_status in MEMBER_STATUSES:
            for notice in notices:
                self.queue.emit("message", self.world.message_dict(notice))
        return new_id

    # --- acting as users ----------------------------------------------------------------------------

    async def send_text(
        self, user_id: int, chat_id: int, text: str, reply_to: int | None = None, thread_id: int | None = None
    ) -> JSON:
        """The user writes ``text`` in the chat (in a forum: in topic ``thread_id``, else General); the
        bot gets a ``message`` update if Telegram would send one."""
        user = self._user(user_id)
        chat = self.world.visible_chat(chat_id, user_id)
        assert text, "Telegram does not send empty messages"
        if chat.type == "private":
            assert user.started, f"user {user_id} never started the bot; use start_bot or open_deep_link"
            assert not user.blocked, f"user {user_id} blocked the bot; use unblock_bot first"
        assert chat.migrated_to is None, f"group {chat_id} became supergroup {chat.migrated_to}"
        if reply_to is not None:
            assert self.world.message(chat_id, reply_to), f"there is no message {reply_to} in {chat_id} to reply to"
        if thread_id is not None:
            topic = chat.topics.get(thread_id)
            assert topic is not None, f"there is no topic {thread_id} in {chat_id}"
            assert not topic.deleted, f"topic {thread_id} was deleted"
            assert not topic.closed, f"topic {thread_id} is closed"
        return self._post(user, chat, text, reply_to, thread_id)

    def _post(
        self,
        user: User,
        chat: Chat,
        text: str,
        reply_to: int | None,
        thread_id: int | None = None,
        sender_chat_id: int | None = None,
    ) -> JSON:
        version = self.world.new_version(text, command_entities(text))
        message = self.world.add_message(chat, user.id, version, reply_to=reply_to, thread_id=thread_id)
        message.sender_chat_id = sender_chat_id
        data = self.world.message_dict(message)
        if self._bot_receives(chat, message, text):
            self.queue.emit("message", data)
        return data

    def _bot_receives(self, chat: Chat, message: Message, text: str) -> bool:
        return senders.bot_receives(self.world, chat, message, text, self.privacy_mode)

    # --- anonymous admins, channels and other bots (see senders.py) -----------------------------------

    async def send_as_group(self, user_id: int, chat_id: int, text: str) -> JSON:
        """An admin writes anonymously: from GroupAnonymousBot, ``sender_chat`` = the group."""
        chat = self._group(chat_id)
        assert chat.members.get(user_id) in ("creator", "administrator"), f"user {user_id} is no admin of {chat_id}"
        senders.ensure_sender(self.world, senders.GROUP_ANONYMOUS_BOT)
        return self._post(senders.GROUP_ANONYMOUS_BOT, chat, text, None, sender_chat_id=chat_id)

    def add_channel(self, channel_id: int, title: str) -> None:
        senders.add_channel(self.world, channel_id, title)

    async def send_as_channel(self, user_id: int, chat_id: int, channel_id: int, text: str) -> JSON:
        """A member writes on behalf of a channel: from Channel_Bot, ``sender_chat`` = the channel."""
        chat = self._group(chat_id)
        assert chat.has_member(user_id), f"user {user_id} is not in {chat_id}"
        assert self.world.chats[channel_id].type == "channel", f"{channel_id} is not a channel"
        senders.ensure_sender(self.world, senders.CHANNEL_BOT)
        return self._post(senders.CHANNEL_BOT, chat, text, None, sender_chat_id=channel_id)

    def add_other_bot(self, bot_id: int, name: str, username: str) -> None:
        assert bot_id > 0
        assert bot_id not in self.world.users
        assert bot_id != self.world.bot.id
        self.world.users[bot_id] = User(bot_id, name, username=username, language_code=None, is_bot=True)

    def other_bot_posts(self, bot_id: int, chat_id: int, text: str) -> JSON:
        """Another bot in the group posts a message (our bot does not get it)."""
        chat = self._group(chat_id)
        assert self.world.users[bot_id].is_bot, f"{bot_id} is not a bot"
        message = self.world.add_message(chat, bot_id, self.world.new_version(text, []))
        return self.world.message_dict(message)

    async def press(self, user_id: int, chat_id: int, message_id: int, callback_data: str) -> Press:
        """Press a button the user can see on the message's current keyboard; emits a ``callback_query``."""
        user = self._user(user_id)
        self.world.visible_chat(chat_id, user_id)
        seen = self._seen(chat_id, message_id)
        assert callback_data in [button.callback_data for button in seen.buttons], (
            f"message {message_id} in chat {chat_id} has no button with callback_data {callback_data!r}; "
            f"its buttons are {seen.buttons}"
        )
        return self._callback(user, chat_id, message_id, callback_data)

    async def forge_press(self, user_id: int, chat_id: int, message_id: int, callback_data: str) -> Press:
        """A modified client sends a callback query with any data for a message it can see."""
        user = self._user(user_id)
        self.world.visible_chat(chat_id, user_id)
        self._seen(chat_id, message_id)
        return self._callback(user, chat_id, message_id, callback_data)

    def _callback(self, user: User, chat_id: int, message_id: int, callback_data: str) -> Press:
        query_id = str(next(self._query_ids))
        payload = {
            "id": query_id,
            "from": user.to_dict(),
            "message": self.world.message_dict(self.world.stored[(chat_id, message_id)]),
            "chat_instance": str(-8_000_000_000_000_000 + chat_id),
            "data": callback_data,
        }
        update = self.queue.emit("callback_query", payload)
        update_id = None if update is None else int(update["update_id"])
        press = Press(query_id, user.id, chat_id, message_id, callback_data, update_id)
        self.presses[query_id] = press
        return press

    # --- reading ------------------------------------------------------------------------------------

    def messages(self, chat_id: int, as_user: int) -> list[SeenMessage]:
        """The chat's current text messages, in order, as that user sees them (the user must be in the chat)."""
        return self.world.current_messages(self.world.visible_chat(chat_id, as_user))

    def last_message(self, chat_id: int, as_user: int, from_bot: bool | None = None) -> SeenMessage:
        found = [m for m in self.messages(chat_id, as_user) if from_bot is None or m.from_bot == from_bot]
        assert found, f"chat {chat_id} has no such message for user {as_user}"
        return found[-1]

    def history(self, chat_id: int) -> list[SeenMessage]:
        """Every version of every text message in the chat (deleted ones too), in the order they appeared."""
        assert chat_id in self.world.chats, f"there is no chat {chat_id}"
        return list(self.world.versions(chat_id))

    def timeline(self) -> list[SeenMessage]:
        """Every version of every text message in every chat (edits and deleted ones too), in the
        order they appeared — what a transcript of the whole conversation shows."""
        return list(self.world.versions())

    def all_texts(self) -> Iterator[tuple[int, str]]:
        """(chat id, text) of every version of every text message ever shown anywhere."""
        return ((seen.chat_id, seen.text) for seen in self.world.versions())

    def pinned(self, chat_id: int) -> list[int]:
        """Ids of the pinned messages, the most recently pinned last."""
        return list(self.world.chats[chat_id].pinned)

    def _seen(self, chat_id: int, message_id: int) -> SeenMessage:
        message = self.world.message(chat_id, message_id)
        assert message is not None, f"message {message_id} in chat {chat_id} does not exist or was deleted"
        return self.world.seen(message, message.current, len(message.versions) - 1)

    def buttons(self, chat_id: int, message_id: int) -> list[Button]:
        return self._seen(chat_id, message_id).buttons

    def button_data(self, chat_id: int, message_id: int, text: str) -> str:
        """The callback_data of the one button showing ``text``."""
        data = self._seen(chat_id, message_id).button(text).callback_data
        assert data is not None, f"button {text!r} is a link, not a callback button"
        return data

    def url_buttons(self, chat_id: int, message_id: int) -> list[Button]:
        return [button for button in self.buttons(chat_id, message_id) if button.url]

    def commands(self, scope: JSON | None = None, language_code: str = "") -> list[JSON]:
        """The commands set with setMyCommands for exactly this scope and language."""
        return list(self.api.commands.get(self.api.commands_key({"scope": scope, "language_code": language_code}), []))
