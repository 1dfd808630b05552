"""The fake's data: users, chats, stored messages, and the small values tests read."""

import asyncio
from dataclasses import dataclass, field
from typing import Any, NamedTuple

JSON = dict[str, Any]

MEMBER_STATUSES = ("creator", "administrator", "member")
ADMIN_RIGHTS = {
    "can_be_edited": False,
    "is_anonymous": False,
    "can_manage_chat": True,
    "can_delete_messages": True,
    "can_manage_video_chats": True,
    "can_restrict_members": True,
    "can_promote_members": False,
    "can_change_info": True,
    "can_invite_users": True,
    "can_post_stories": True,
    "can_edit_stories": True,
    "can_delete_stories": True,
    "can_pin_messages": True,
    "can_manage_topics": False,
}


class ApiError(Exception):
    """A Bot API error response: HTTP status ``code``, Telegram's ``description`` and ``parameters``."""

    def __init__(self, code: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(f"{code} {description}")
        self.code = code
        self.description = description
        self.parameters = parameters

    def body(self) -> JSON:
        body: JSON = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(text: str, parameters: JSON | None = None) -> ApiError:
    return ApiError(400, f"Bad Request: {text}", parameters)


def forbidden(text: str) -> ApiError:
    return ApiError(403, f"Forbidden: {text}")


class Call(NamedTuple):
    """One Bot API request: when, which method, its decoded parameters, and "ok" or the error code."""

    time: float
    method: str
    params: JSON
    result: str | int

    @property
    def ok(self) -> bool:
        return self.result == "ok"


@dataclass(frozen=True)
class Button:
    text: str
    callback_data: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class SeenMessage:
    """A message as a user sees it (or, in ``history``, one version of it)."""

    message_id: int
    chat_id: int
    text: str  # the visible plain text
    html: str  # the HTML source the bot sent, or the escaped text when it sent no HTML
    keyboard: list[list[Button]]
    edited: bool
    from_bot: bool
    date: int
    sender_id: int = 0
    version: int = 0  # 0 for the message as first sent, then one more per edit
    silent: bool = False  # sent with disable_notification
    thread_id: int | None = None  # the forum topic it is in (None: General, or not a forum)
    photo: bytes | None = None  # a photo message's image; ``text`` is then its caption
    photo_size: tuple[int, int] | None = None
    entities: list[JSON] = field(default_factory=list)  # of the text (or caption), as the Bot API gives them

    @property
    def buttons(self) -> list[Button]:
        return [button for row in self.keyboard for button in row]

    def date_times(self) -> list[JSON]:
        """The ``date_time`` entities (deadlines shown in each reader's own time zone)."""
        return [entity for entity in self.entities if entity["type"] == "date_time"]

    def button(self, text: str) -> Button:
        found = [button for button in self.buttons if button.text == text]
        assert len(found) == 1, f"expected one button {text!r} on message {self.message_id}, got {self.buttons}"
        return found[0]


@dataclass(frozen=True)
class Answer:
    """What the bot passed to answerCallbackQuery."""

    text: str | None
    show_alert: bool
    url: str | None = None


@dataclass
class Press:
    """A callback query a user sent by pressing a button; await ``answer()`` for the bot's answer."""

    query_id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    update_id: int | None
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    result: Answer | None = None

    async def answer(self, timeout: float = 30) -> Answer | None:  # noqa: ASYNC109 (the brief's API)
        """The answer (None when the bot answered with neither text nor URL); AssertionError if none came in time."""
        try:
            await asyncio.wait_for(self.answered.wait(), timeout)
        except TimeoutError:
            raise AssertionError(
                f"callback query {self.query_id} ({self.data!r}) was not answered within {timeout} s"
            ) from None
        return self.result if self.result and (self.result.text or self.result.url) else None


@dataclass
class User:
    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = "en"
    last_name: str | None = None
    is_bot: bool = False
    started: bool = False
    blocked: bool = False

    def to_dict(self) -> JSON:
        data: JSON = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        optional = {"last_name": self.last_name, "username": self.username, "language_code": self.language_code}
        data.update({key: value for key, value in optional.items() if value is not None})
        return data


@dataclass
class Topic:
    """A forum topic: its thread id is the id of the service message that created it."""

    name: str
    closed: bool = False
    deleted: bool = False


@dataclass
class Chat:
    id: int
    type: str  # private, group or supergroup
    title: str | None = None
    members: dict[int, str] = field(default_factory=dict)  # user id -> status, for groups
    bot_status: str = "member"
    bot_removed: bool = False  # someone removed the bot (rather than it never joining or leaving)
    migrated_to: int | None = None
    pinned: list[int] = field(default_factory=list)
    message_ids: list[int] = field(default_factory=list)
    next_message_id: int = 1
    is_forum: bool = False
    topics: dict[int, Topic] = field(default_factory=dict)  # forum topics by message_thread_id
    bot_muted: frozenset[str] = frozenset()  # what a restricted bot may not send: "messages", "photos"

    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")

    def has_member(self, user_id: int) -> bool:
        return (self.type == "private" and user_id == self.id) or self.members.get(user_id) in MEMBER_STATUSES

    def bot_is_admin(self) -> bool:
        return self.bot_status in ("creator", "administrator")


@dataclass(frozen=True)
class Version:
    seq: int  # global order of every version of every message
    text: str
    html: str
    entities: list[JSON]
    markup: JSON | None  # the inline keyboard markup, if any
    date: int
    kind: str = "sent"  # sent, text (editMessageText), markup (…ReplyMarkup), media (…Media) or caption
    silent: bool = False
    photo: bytes | None = None  # a photo message's image (its text is then the caption)
    photo_size: tuple[int, int] | None = None

    def content(self) -> tuple[str, list[JSON], JSON | None, bytes | None]:
        return self.text, self.entities, self.markup, self.photo


@dataclass
class Message:
    chat_id: int
    message_id: int
    sender_id: int
    date: int
    versions: list[Version] = field(default_factory=list)
    deleted: bool = False
    service: JSON | None = None  # for service messages, e.g. {"migrate_to_chat_id": ...}
    reply_to: int | None = None
    thread_id: int | None = None  # the forum topic it was posted in
    sender_chat_id: int | None = None  # sent on behalf of a chat: the group (anonymous admin) or a channel

    @property
    def current(self) -> Version:
        return self.versions[-1]


def keyboard_of(markup: JSON | None) -> list[list[Button]]:
    rows = (markup or {}).get("inline_keyboard", [])
    return [[Button(button["text"], button.get("callback_data"), button.get("url")) for button in row] for row in rows]


def member_dict(user: JSON, status: str) -> JSON:
    data: JSON = {"status": status, "user": user}
    if status == "creator":
        data["is_anonymous"] = False
    elif status == "administrator":
        data.update(ADMIN_RIGHTS)
    elif status == "kicked":
        data["until_date"] = 0
    return data


def restricted_dict(user: JSON, muted: frozenset[str]) -> JSON:
    """A ``restricted`` member: may send what is not in ``muted`` ("messages", "photos")."""
    sends = {
        "can_send_messages": "messages" not in muted,
        "can_send_photos": "photos" not in muted and "messages" not in muted,
    }
    others = ("audios", "documents", "videos", "video_notes", "voice_notes", "polls", "other_messages")
    rights = {f"can_send_{kind}": sends["can_send_messages"] for kind in others}
    return {
        "status": "restricted",
        "user": user,
        "is_member": True,
        **sends,
        **rights,
        "can_add_web_page_previews": sends["can_send_messages"],
        "can_change_info": False,
        "can_invite_users": False,
        "can_pin_messages": False,
        "can_manage_topics": False,
        "can_edit_tag": False,
        "can_react_to_messages": True,
        "until_date": 0,
    }
