"""Photos in the fake Bot API: ``sendPhoto`` and ``editMessageMedia`` with multipart uploads, and a
photo message's caption, as Telegram checks them.

An uploaded photo must be a PNG or JPEG (else ``IMAGE_PROCESS_FAILED``), at most 10 MB, with
width + height at most 10,000 and a side ratio of at most 20; a caption is at most 1,024 visible
characters. A photo message's caption is what users read as its text (``SeenMessage.text``), and
its bytes are ``SeenMessage.photo``. ``editMessageText`` on a photo and ``editMessageMedia`` or
``editMessageCaption`` on a text message fail as they do in Telegram.
"""

from __future__ import annotations

import hashlib
import struct
from typing import TYPE_CHECKING

from .model import JSON, Message, bad_request

if TYPE_CHECKING:
    from .world import World

MAX_CAPTION = 1024
MAX_PHOTO_BYTES = 10 * 1024 * 1024
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def image_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG or JPEG; IMAGE_PROCESS_FAILED for anything else."""
    if data.startswith(PNG_MAGIC) and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    if data.startswith(b"\xff\xd8"):
        return _jpeg_size(data)
    raise bad_request("IMAGE_PROCESS_FAILED")


def _jpeg_size(data: bytes) -> tuple[int, int]:
    at = 2
    while at + 9 < len(data):
        if data[at] != 0xFF:
            break
        marker, length = data[at + 1], struct.unpack(">H", data[at + 2 : at + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        at += 2 + length
    raise bad_request("IMAGE_PROCESS_FAILED")


def check_photo(data: object) -> tuple[bytes, tuple[int, int]]:
    """An uploaded photo's bytes and size, checked as Telegram checks them."""
    if not isinstance(data, bytes) or not data:
        raise bad_request("wrong file identifier/HTTP URL specified")
    if len(data) > MAX_PHOTO_BYTES:
        raise bad_request("PHOTO_INVALID_DIMENSIONS")
    width, height = image_size(data)
    if width + height > 10_000 or max(width, height) > 20 * max(1, min(width, height)):
        raise bad_request("PHOTO_INVALID_DIMENSIONS")
    return data, (width, height)


def file_id(data: bytes) -> str:
    return "photo-" + hashlib.sha256(data).hexdigest()[:24]


def photo_sizes(data: bytes, size: tuple[int, int]) -> list[JSON]:
    """The ``photo`` field of a message: Telegram sends several sizes; the fake sends the original."""
    ident = file_id(data)
    width, height = size
    return [{"file_id": ident, "file_unique_id": ident[-12:], "width": width, "height": height, "file_size": len(data)}]


def uploaded(params: JSON, media: JSON) -> object:
    """The file an ``InputMedia`` points to: ``attach://name`` is the multipart part ``name``."""
    target = media.get("media")
    if isinstance(target, str) and target.startswith("attach://"):
        return params.get(target.removeprefix("attach://"))
    return target


def known_photo(world: World, ident: object) -> bytes | None:
    """A photo sent before, by its file id (Telegram lets a bot send a file again by id)."""
    if not isinstance(ident, str):
        return None
    for message in world.stored.values():
        for version in message.versions:
            if version.photo is not None and file_id(version.photo) == ident:
                return version.photo
    return None


def require_text_message(message: Message) -> None:
    if message.current.photo is not None:
        raise bad_request("there is no text in the message to edit")


def require_media_message(message: Message) -> None:
    if message.current.photo is None:
        raise bad_request("there is no media in the message to edit")
