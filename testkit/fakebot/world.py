"""The state of the fake Telegram: users, chats, messages, and what each party may see or do."""

import html
import itertools
import time
from collections.abc import Iterator

from .media import photo_sizes
from .model import (
    JSON,
    Chat,
    Message,
    SeenMessage,
    User,
    Version,
    bad_request,
    forbidden,
    keyboard_of,
    member_dict,
)

EDITS = ("text", "media", "caption")  # the kinds of version a user sees as "edited"


class World:
    def __init__(self, bot: User) -> None:
        self.bot = bot
        self.users: dict[int, User] = {}
        self.chats: dict[int, Chat] = {}
        self.stored: dict[tuple[int, int], Message] = {}
        self.version_seq = itertools.count(1)

    # --- lookups used by the Bot API methods --------------------------------------------------------

    def chat(self, chat_id: object) -> Chat:
        """The chat, or 400 "chat not found" as Telegram answers for ids it does not know."""
        chat = self.chats.get(chat_id) if isinstance(chat_id, int) else None
        if chat is None:
            raise bad_request("chat not found")
        return chat

    def readable_chat(self, chat_id: object) -> Chat:
        """A chat the bot may look at: not migrated, and for groups the bot is (still) in it."""
        chat = self.chat(chat_id)
        if chat.migrated_to is not None:
            raise bad_request("group chat was upgraded to a supergroup chat", {"migrate_to_chat_id": chat.migrated_to})
        if chat.is_group() and chat.bot_status not in ("creator", "administrator", "member"):
            what = "was kicked from" if chat.bot_removed else "is not a member of"
            raise forbidden(f"bot {what} the {chat.type} chat")
        return chat

    def writable_chat(self, chat_id: object) -> Chat:
        """A chat the bot may send to; private chats need a user who started and did not block the bot."""
        chat = self.readable_chat(chat_id)
        if chat.type == "private":
            user = self.users[chat.id]
            if user.blocked:
                raise forbidden("bot was blocked by the user")
            if not user.started:
                raise forbidden("bot can't initiate conversation with a user")
        return chat

    @staticmethod
    def may_send(chat: Chat, what: str) -> None:
        """A restricted bot may not send ``what`` ("messages", "photos") there: Telegram's 400."""
        if "messages" in chat.bot_muted or what in chat.bot_muted:
            kind = "text messages" if what == "messages" else what
            raise bad_request(f"not enough rights to send {kind} to the chat")

    def user(self, user_id: object) -> User:
        found = self.users.get(user_id) if isinstance(user_id, int) else None
        if found is None and user_id == self.bot.id:
            return self.bot
        if found is None:
            raise bad_request("user not found")
        return found

    def message(self, chat_id: int, message_id: object) -> Message | None:
        found = self.stored.get((chat_id, message_id)) if isinstance(message_id, int) else None
        return None if found is None or found.deleted else found

    def status_of(self, chat: Chat, user_id: int) -> str:
        if user_id == self.bot.id:
            return chat.bot_status
        if chat.type == "private":
            return "member" if user_id == chat.id else "left"
        return chat.members.get(user_id, "left")

    # --- changes ------------------------------------------------------------------------------------

    def add_user(self, user: User) -> None:
        self.users[user.id] = user
        self.chats[user.id] = Chat(id=user.id, type="private")

    def new_version(self, text: str, entities: list[JSON], **extra: object) -> Version:
        defaults: JSON = {"html": html.escape(text, quote=False), "markup": None, "date": int(time.time())}
        defaults.update(extra)
        return Version(seq=next(self.version_seq), text=text, entities=entities, **defaults)

    def add_message(
        self,
        chat: Chat,
        sender_id: int,
        version: Version | None,
        service: JSON | None = None,
        reply_to: int | None = None,
        thread_id: int | None = None,
    ) -> Message:
        """Store a message with the chat's next id (one counter per chat for bot and users alike)."""
        message = Message(
            chat.id,
            chat.next_message_id,
            sender_id,
            int(time.time()),
            service=service,
            reply_to=reply_to,
            thread_id=thread_id,
        )
        if version is not None:
            message.versions.append(version)
        chat.next_message_id += 1
        chat.message_ids.append(message.message_id)
        self.stored[(chat.id, message.message_id)] = message
        return message

    # --- Bot API objects ----------------------------------------------------------------------------

    def chat_dict(self, chat: Chat) -> JSON:
        if chat.type != "private":
            data: JSON = {"id": chat.id, "type": chat.type, "title": chat.title}
            if chat.is_forum:
                data["is_forum"] = True
            return data
        user = self.users[chat.id].to_dict()
        user.pop("is_bot")
        user.pop("language_code", None)
        return {**user, "type": "private"}

    def member(self, chat: Chat, user_id: int) -> JSON:
        user = self.bot if user_id == self.bot.id else self.user(user_id)
        return member_dict(user.to_dict(), self.status_of(chat, user_id))

    def message_dict(self, message: Message, with_reply: bool = True) -> JSON:
        sender = self.bot if message.sender_id == self.bot.id else self.users[message.sender_id]
        data: JSON = {
            "message_id": message.message_id,
            "from": sender.to_dict(),
            "chat": self.chat_dict(self.chats[message.chat_id]),
            "date": message.date,
        }
        if message.sender_chat_id is not None:
            data["sender_chat"] = self.chat_dict(self.chats[message.sender_chat_id])
        if message.thread_id is not None:
            data["message_thread_id"] = message.thread_id
            data["is_topic_message"] = True
        if message.service is not None:
            return {**data, **message.service}
        current = message.current
        if current.photo is not None and current.photo_size is not None:
            data["photo"] = photo_sizes(current.photo, current.photo_size)
            if current.text:
                data["caption"] = current.text
            if current.entities:
                data["caption_entities"] = current.entities
        else:
            data["text"] = current.text
            if current.entities:
                data["entities"] = current.entities
        if current.markup:
            data["reply_markup"] = current.markup
        if len(message.versions) > 1:
            data["edit_date"] = current.date
        reply = self.stored.get((message.chat_id, message.reply_to or 0))
        if with_reply and reply is not None:
            data["reply_to_message"] = self.message_dict(reply, with_reply=False)
        return data

    # --- what users see -----------------------------------------------------------------------------

    def visible_chat(self, chat_id: int, user_id: int) -> Chat:
        chat = self.chats.get(chat_id)
        assert chat is not None, f"there is no chat {chat_id}"
        assert user_id in self.users, f"there is no user {user_id}"
        assert chat.has_member(user_id), f"user {user_id} cannot see chat {chat_id}"
        return chat

    def seen(self, message: Message, version: Version, number: int) -> SeenMessage:
        return SeenMessage(
            message_id=message.message_id,
            chat_id=message.chat_id,
            text=version.text,
            html=version.html,
            keyboard=keyboard_of(version.markup),
            edited=any(v.kind in EDITS for v in message.versions[: number + 1]),
            from_bot=message.sender_id == self.bot.id,
            date=version.date,
            sender_id=message.sender_id,
            version=number,
            silent=version.silent,
            thread_id=message.thread_id,
            photo=version.photo,
            photo_size=version.photo_size,
            entities=list(version.entities),
        )

    def current_messages(self, chat: Chat) -> list[SeenMessage]:
        stored = (self.stored[(chat.id, message_id)] for message_id in chat.message_ids)
        return [
            self.seen(message, message.current, len(message.versions) - 1)
            for message in stored
            if not message.deleted and message.service is None
        ]

    def versions(self, chat_id: int | None = None) -> Iterator[SeenMessage]:
        """Every version of every text message (of one chat, or everywhere), in the order they appeared."""
        everything = [
            (version.seq, self.seen(message, version, number))
            for message in self.stored.values()
            if chat_id is None or message.chat_id == chat_id
            for number, version in enumerate(message.versions)
        ]
        return (seen for _, seen in sorted(everything, key=lambda pair: pair[0]))

    def bot_member_change(self, chat: Chat, by: User, old: str, new: str) -> JSON:
        """The ``my_chat_member`` payload for a change of the bot's status in a chat."""
        return {
            "chat": self.chat_dict(chat),
            "from": by.to_dict(),
            "date": int(time.time()),
            "old_chat_member": member_dict(self.bot.to_dict(), old),
            "new_chat_member": member_dict(self.bot.to_dict(), new),
        }
