"""The Bot API methods the fake implements, with Telegram's behaviour and error texts."""

import dataclasses
import html
import json
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from . import media
from .markup import MarkupError, check_url, parse_html, trim
from .model import JSON, MEMBER_STATUSES, Answer, ApiError, Chat, Message, Press, Version, bad_request
from .updates import UpdateQueue, Webhook
from .world import World

Handler = Callable[[JSON], Awaitable[Any]]

API_METHODS = (
    "getMe",
    "logOut",
    "close",
    "getUpdates",
    "setWebhook",
    "deleteWebhook",
    "getWebhookInfo",
    "sendMessage",
    "editMessageText",
    "editMessageReplyMarkup",
    "sendPhoto",
    "editMessageMedia",
    "editMessageCaption",
    "deleteMessage",
    "answerCallbackQuery",
    "setMyCommands",
    "getMyCommands",
    "deleteMyCommands",
    "getChat",
    "getChatMember",
    "getChatAdministrators",
    "pinChatMessage",
    "unpinChatMessage",
    "unpinAllChatMessages",
    "sendChatAction",
    "leaveChat",
    "setMyDescription",
    "setMyShortDescription",
    "setMyName",
    "setChatMenuButton",
)
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the same as a current "
    "content and reply markup of the message"
)
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
BUTTON_ACTIONS = (
    "callback_data",
    "url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "web_app",
    "login_url",
    "callback_game",
    "pay",
    "copy_text",
)
CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
SCOPE_TYPES = frozenset(
    {
        "default",
        "all_private_chats",
        "all_group_chats",
        "all_chat_administrators",
        "chat",
        "chat_administrators",
        "chat_member",
    }
)
COMMAND_NAME = re.compile(r"[a-z0-9_]{1,32}")
SECRET_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,256}")
MAX_TEXT = 4096


def snake_case(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def render_text(params: JSON) -> tuple[str, list[JSON], str]:
    """The visible text, its entities and the HTML source, checked as Telegram checks them."""
    source = params.get("text")
    if not isinstance(source, str) or not source:
        raise bad_request("message text is empty")
    text, entities, source = _formatted(params, source, "entities")
    if not text:
        raise bad_request("message text is empty")
    if len(text) > MAX_TEXT:
        raise bad_request("message is too long")
    return text, entities, source


def render_caption(params: JSON) -> tuple[str, list[JSON], str]:
    """A photo's caption (it may be empty), checked like a text, with the caption's limit."""
    source = params.get("caption")
    if not isinstance(source, str) or not source:
        return "", [], ""
    text, entities, source = _formatted(params, source, "caption_entities")
    if len(text) > media.MAX_CAPTION:
        raise bad_request("message caption is too long")
    return text, entities, source


def _formatted(params: JSON, source: str, entities_key: str) -> tuple[str, list[JSON], str]:
    mode = str(params.get("parse_mode") or "").lower()
    if mode == "html":
        try:
            text, entities = parse_html(source)
        except MarkupError as exc:
            raise bad_request(f"can't parse entities: {exc}") from None
    elif mode == "":
        text, entities, source = source, list(params.get(entities_key) or []), html.escape(source, quote=False)
    elif mode in ("markdown", "markdownv2"):
        raise bad_request(f"fake Telegram server: parse_mode {params['parse_mode']} is not implemented, use HTML")
    else:
        raise bad_request("unsupported parse_mode")
    text, entities = trim(text, entities)
    return text, entities, source


def parse_markup(value: object) -> JSON | None:
    """The inline keyboard to show, checked; other reply markups are accepted and not shown."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in value:
        return None
    rows = value["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad_request(
            'can\'t parse inline keyboard button: Field "inline_keyboard" of the InlineKeyboardMarkup should be '
            "an Array of Arrays"
        )
    if sum(len(row) for row in rows) > 100:
        raise bad_request("reply markup is too long")
    return {"inline_keyboard": [[check_button(button) for button in row] for row in rows]}


def check_button(button: object) -> JSON:
    if not isinstance(button, dict):
        raise bad_request("can't parse inline keyboard button: InlineKeyboardButton must be an Object")
    if not isinstance(button.get("text"), str):
        raise bad_request('can\'t parse inline keyboard button: Field "text" must be of type String')
    actions = [key for key in BUTTON_ACTIONS if key in button]
    if not actions:
        raise bad_request("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard")
    if len(actions) > 1:
        raise bad_request(f"can't parse inline keyboard button: fake Telegram server: one action only, got {actions}")
    data = button.get("callback_data")
    if "callback_data" in button and (not isinstance(data, str) or not 1 <= len(data.encode()) <= 64):
        raise bad_request("BUTTON_DATA_INVALID")
    if "url" in button and check_url(str(button["url"])) is None:
        raise bad_request("BUTTON_URL_INVALID")
    return dict(button)


def require(params: JSON, name: str) -> Any:
    if params.get(name) is None:
        raise bad_request(f'parameter "{name}" is required')
    return params[name]


class BotApi:
    def __init__(self, world: World, queue: UpdateQueue, presses: dict[str, Press], privacy_mode: bool) -> None:
        self.world = world
        self.queue = queue
        self.presses = presses
        self.privacy_mode = privacy_mode
        self.commands: dict[tuple[str, str], list[JSON]] = {}
        self.settings: dict[str, JSON] = {}
        self.names = {name.lower(): name for name in API_METHODS}

    def handler(self, method: str) -> tuple[str, Handler]:
        """The canonical method name and its handler (method names are case-insensitive); 404 if unknown."""
        name = self.names.get(method.lower())
        if name is None:
            raise ApiError(404, "Not Found")
        handler: Handler = getattr(self, snake_case(name))
        return name, handler

    # --- the bot itself -----------------------------------------------------------------------------

    async def get_me(self, params: JSON) -> JSON:
        flags = {
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }
        return {**self.world.bot.to_dict(), **flags}

    async def log_out(self, params: JSON) -> bool:
        return True

    async def close(self, params: JSON) -> bool:
        return True

    async def _store_setting(self, params: JSON, name: str) -> bool:
        self.settings[name] = params
        return True

    async def set_my_description(self, params: JSON) -> bool:
        return await self._store_setting(params, "setMyDescription")

    async def set_my_short_description(self, params: JSON) -> bool:
        return await self._store_setting(params, "setMyShortDescription")

    async def set_my_name(self, params: JSON) -> bool:
        return await self._store_setting(params, "setMyName")

    async def set_chat_menu_button(self, params: JSON) -> bool:
        return await self._store_setting(params, "setChatMenuButton")

    # --- updates ------------------------------------------------------------------------------------

    async def get_updates(self, params: JSON) -> list[JSON]:
        if not self.queue.webhook.url:
            self.queue.set_allowed(params.get("allowed_updates"))
        timeout = float(params.get("timeout") or 0)
        return await self.queue.fetch(params.get("offset"), int(params.get("limit") or 100), timeout)

    async def set_webhook(self, params: JSON) -> bool:
        url = str(params.get("url") or "")
        if not url:
            return await self.delete_webhook(params)
        if not url.startswith(("http://", "https://")):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not SECRET_TOKEN.fullmatch(str(secret)):
            raise bad_request("secret token contains unallowed characters")
        webhook = Webhook(url=url, secret=secret, max_connections=int(params.get("max_connections") or 40))
        self.queue.set_webhook(webhook, params.get("allowed_updates"), bool(params.get("drop_pending_updates")))
        return True

    async def delete_webhook(self, params: JSON) -> bool:
        self.queue.delete_webhook(bool(params.get("drop_pending_updates")))
        return True

    async def get_webhook_info(self, params: JSON) -> JSON:
        return self.queue.webhook_info()

    # --- messages -----------------------------------------------------------------------------------

    def _chat_id(self, params: JSON) -> object:
        if params.get("chat_id") in (None, ""):
            raise bad_request("chat_id is empty")
        return params["chat_id"]

    async def send_message(self, params: JSON) -> JSON:
        chat = self.world.writable_chat(self._chat_id(params))
        self.world.may_send(chat, "messages")
        text, entities, source = render_text(params)
        markup = parse_markup(params.get("reply_markup"))
        reply_to = self._reply_target(chat, params)
        thread = self._thread(chat, params, reply_to)
        silent = bool(params.get("disable_notification"))
        version = self.world.new_version(text, entities, html=source, markup=markup, silent=silent)
        message = self.world.add_message(chat, self.world.bot.id, version, reply_to=reply_to, thread_id=thread)
        return self.world.message_dict(message)

    def _thread(self, chat: Chat, params: JSON, reply_to: int | None) -> int | None:
        """The forum topic a new message goes to: the one asked for, else the replied message's (General: None).
        A deleted or unknown topic is "message thread not found"; a closed one is TOPIC_CLOSED."""
        thread = params.get("message_thread_id")
        if thread is None and reply_to is not None:
            replied = self.world.message(chat.id, reply_to)
            thread = replied.thread_id if replied is not None else None
        if thread is None:
            return None
        topic = chat.topics.get(int(thread)) if chat.is_forum else None
        if topic is None or topic.deleted:
            raise bad_request("message thread not found")
        if topic.closed and not chat.bot_is_admin():
            raise bad_request("TOPIC_CLOSED")
        return int(thread)

    def _reply_target(self, chat: Chat, params: JSON) -> int | None:
        reply = params.get("reply_parameters") or {}
        if params.get("reply_to_message_id") is not None:
            reply = {"message_id": params["reply_to_message_id"], **reply}
        if not isinstance(reply, dict) or reply.get("message_id") is None:
            return None
        allow = reply.get("allow_sending_without_reply", params.get("allow_sending_without_reply"))
        if self.world.message(chat.id, reply["message_id"]) is None:
            if allow:
                return None
            raise bad_request("message to be replied not found")
        return int(reply["message_id"])

    def _editable(self, params: JSON) -> Message:
        if params.get("inline_message_id"):
            raise bad_request("MESSAGE_ID_INVALID")
        chat = self.world.writable_chat(self._chat_id(params))
        if params.get("message_id") is None:
            raise bad_request("message identifier is not specified")
        message = self.world.message(chat.id, params["message_id"])
        if message is None:
            raise bad_request("message to edit not found")
        if message.sender_id != self.world.bot.id:
            raise bad_request("message can't be edited")
        if message.service is not None:
            raise bad_request("there is no text in the message to edit")
        return message

    def _replace(self, message: Message, version: Version) -> JSON:
        if version.content() == message.current.content():
            raise bad_request(NOT_MODIFIED)
        message.versions.append(version)
        return self.world.message_dict(message)

    async def edit_message_text(self, params: JSON) -> JSON:
        message = self._editable(params)
        media.require_text_message(message)
        text, entities, source = render_text(params)
        markup = parse_markup(params.get("reply_markup"))
        return self._replace(message, self.world.new_version(text, entities, html=source, markup=markup, kind="text"))

    async def edit_message_reply_markup(self, params: JSON) -> JSON:
        message = self._editable(params)
        markup = parse_markup(params.get("reply_markup"))
        version = dataclasses.replace(
            message.current, seq=next(self.world.version_seq), markup=markup, date=int(time.time()), kind="markup"
        )
        return self._replace(message, version)

    async def send_photo(self, params: JSON) -> JSON:
        chat = self.world.writable_chat(self._chat_id(params))
        self.world.may_send(chat, "photos")
        data = require(params, "photo")
        photo, size = media.check_photo(media.known_photo(self.world, data) or data)
        text, entities, source = render_caption(params)
        markup = parse_markup(params.get("reply_markup"))
        reply_to = self._reply_target(chat, params)
        thread = self._thread(chat, params, reply_to)
        silent = bool(params.get("disable_notification"))
        version = self.world.new_version(
            text, entities, html=source, markup=markup, silent=silent, photo=photo, photo_size=size
        )
        message = self.world.add_message(chat, self.world.bot.id, version, reply_to=reply_to, thread_id=thread)
        return self.world.message_dict(message)

    async def edit_message_media(self, params: JSON) -> JSON:
        message = self._editable(params)
        media.require_media_message(message)
        spec = require(params, "media")
        if not isinstance(spec, dict) or spec.get("type") != "photo":
            raise bad_request("fake Telegram server: only photo media is implemented")
        data = media.uploaded(params, spec)
        photo, size = media.check_photo(media.known_photo(self.world, data) or data)
        text, entities, source = render_caption({"parse_mode": spec.get("parse_mode"), **spec})
        markup = parse_markup(params.get("reply_markup"))
        version = self.world.new_version(
            text, entities, html=source, markup=markup, kind="media", photo=photo, photo_size=size
        )
        return self._replace(message, version)

    async def edit_message_caption(self, params: JSON) -> JSON:
        message = self._editable(params)
        media.require_media_message(message)
        text, entities, source = render_caption(params)
        markup = parse_markup(params.get("reply_markup"))
        version = dataclasses.replace(
            message.current, seq=next(self.world.version_seq), text=text, entities=entities, html=source,
            markup=markup, date=int(time.time()), kind="caption",
        )  # fmt: skip
        return self._replace(message, version)

    async def delete_message(self, params: JSON) -> bool:
        chat = self.world.writable_chat(self._chat_id(params))
        message = self.world.message(chat.id, params.get("message_id"))
        if message is None:
            raise bad_request("message to delete not found")
        if chat.is_group() and message.sender_id != self.world.bot.id and not chat.bot_is_admin():
            raise bad_request("message can't be deleted")
        message.deleted = True
        if message.message_id in chat.pinned:
            chat.pinned.remove(message.message_id)
        return True

    async def answer_callback_query(self, params: JSON) -> bool:
        press = self.presses.get(str(require(params, "callback_query_id")))
        if press is None or press.answered.is_set():
            raise bad_request(QUERY_TOO_OLD)
        press.result = Answer(params.get("text"), bool(params.get("show_alert")), params.get("url"))
        press.answered.set()
        return True

    # --- commands -----------------------------------------------------------------------------------

    def commands_key(self, params: JSON) -> tuple[str, str]:
        scope = params.get("scope") or {"type": "default"}
        if not isinstance(scope, dict) or scope.get("type") not in SCOPE_TYPES:
            raise bad_request("can't parse BotCommandScope JSON object")
        if "chat_id" in scope:
            self.world.chat(scope["chat_id"])
        return json.dumps(scope, sort_keys=True), str(params.get("language_code") or "")

    async def set_my_commands(self, params: JSON) -> bool:
        commands = require(params, "commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad_request("can't parse commands JSON object")
        for command in commands:
            if not COMMAND_NAME.fullmatch(str(command.get("command", ""))):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", "")).strip()) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        key = self.commands_key(params)
        self.commands[key] = [{"command": c["command"], "description": c["description"]} for c in commands]
        return True

    async def get_my_commands(self, params: JSON) -> list[JSON]:
        return list(self.commands.get(self.commands_key(params), []))

    async def delete_my_commands(self, params: JSON) -> bool:
        self.commands.pop(self.commands_key(params), None)
        return True

    # --- chats --------------------------------------------------------------------------------------

    async def get_chat(self, params: JSON) -> JSON:
        chat = self.world.readable_chat(self._chat_id(params))
        gifts = dict.fromkeys(
            ("unlimited_gifts", "limited_gifts", "unique_gifts", "premium_subscription", "gifts_from_channels"), True
        )
        extra = {"accent_color_id": 0, "max_reaction_count": 11, "accepted_gift_types": gifts}
        return {**self.world.chat_dict(chat), **extra}

    async def get_chat_member(self, params: JSON) -> JSON:
        chat = self.world.readable_chat(self._chat_id(params))
        user = self.world.user(require(params, "user_id"))
        return self.world.member(chat, user.id)

    async def get_chat_administrators(self, params: JSON) -> list[JSON]:
        chat = self.world.readable_chat(self._chat_id(params))
        if chat.type == "private":
            raise bad_request("there are no administrators in the private chat")
        admins = [uid for uid, status in chat.members.items() if status in ("creator", "administrator")]
        if chat.bot_is_admin():
            admins.append(self.world.bot.id)
        return [self.world.member(chat, uid) for uid in admins]

    def _pin_rights(self, params: JSON) -> Chat:
        chat = self.world.writable_chat(self._chat_id(params))
        if chat.is_group() and not chat.bot_is_admin():
            raise bad_request("not enough rights to manage pinned messages in the chat")
        return chat

    async def pin_chat_message(self, params: JSON) -> bool:
        chat = self._pin_rights(params)
        message = self.world.message(chat.id, params.get("message_id"))
        if message is None:
            raise bad_request("message to pin not found")
        if message.message_id in chat.pinned:
            chat.pinned.remove(message.message_id)
        chat.pinned.append(message.message_id)
        return True

    async def unpin_chat_message(self, params: JSON) -> bool:
        chat = self._pin_rights(params)
        target = params.get("message_id") or (chat.pinned[-1] if chat.pinned else None)
        if target in chat.pinned:
            chat.pinned.remove(target)
        return True

    async def unpin_all_chat_messages(self, params: JSON) -> bool:
        self._pin_rights(params).pinned.clear()
        return True

    async def send_chat_action(self, params: JSON) -> bool:
        self.world.writable_chat(self._chat_id(params))
        if params.get("action") not in CHAT_ACTIONS:
            raise bad_request("wrong parameter action in request")
        return True

    async def leave_chat(self, params: JSON) -> bool:
        chat = self.world.readable_chat(self._chat_id(params))
        if chat.type == "private":
            raise bad_request("chat member status can't be changed in private chats")
        old, chat.bot_status, chat.bot_removed = chat.bot_status, "left", False
        if old in MEMBER_STATUSES:
            self.queue.emit("my_chat_member", self.world.bot_member_change(chat, self.world.bot, old, "left"))
        return True
