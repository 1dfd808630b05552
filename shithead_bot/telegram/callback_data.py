"""The callback-data codec: what a button carries, in at most 64 bytes, signed.

``<action>:<game>:<version>:<argument>:<tag>``. ``version`` is the version of the buttons the
seat was given (see the service): a press with an older one is refused as out of date. ``tag`` is
a short HMAC of the rest, keyed by the bot token, so a forged or garbled press (another game's id,
an invented move) is recognised and refused before anything is looked up.

>>> codec = Codec(b"secret")
>>> data = codec.encode(Button(Action.MOVE, 12, 7, "p:h:Q:2"))
>>> data.startswith("m:12:7:p:h:Q:2:"), len(data) <= 64
(True, True)
>>> codec.decode(data)
Button(action=<Action.MOVE: 'm'>, game_id=12, version=7, argument='p:h:Q:2')
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from enum import StrEnum

from shithead_bot.service.errors import ServiceError

MAX_BYTES = 64
TAG_CHARS = 8


class Action(StrEnum):
    MOVE = "m"  # a move of the seat (argument: the move's text)
    PICK = "p"  # swap phase: select a hand card to swap (argument: rank text), or "" to clear
    JOIN = "j"
    LEAVE = "l"
    ADD_COMPUTER = "c"  # argument: level
    REMOVE_COMPUTER = "d"
    START = "s"
    REMATCH = "r"
    FORFEIT = "f"  # argument: a Confirm
    HAND = "h"  # re-send my private message for this game
    NUDGE = "n"
    PAUSE_VOTE = "v"  # argument: "pause" or "resume"
    ABORT = "a"  # argument: a Confirm
    SETTING = "t"  # /settings buttons (argument: a TurnChoice)
    AWAY = "w"  # argument: "" (how long?), a duration such as "3d", or "back"


class BadCallbackError(ValueError):
    """The data is not ours: garbled, forged, or from an older version of the bot."""


@dataclass(frozen=True)
class Button:
    action: Action
    game_id: int
    version: int = 0
    argument: str = ""


class NotYourQuestionError(ServiceError):
    """A press on someone else's confirmation (their /forfeit, their /abort)."""

    code = "not_your_question"


@dataclass(frozen=True)
class Confirm:
    """A yes/no answer that only its owner may give (``y.<user>`` / ``n.<user>``)."""

    yes: bool
    owner: int

    def __str__(self) -> str:
        return f"{'y' if self.yes else 'n'}.{self.owner}"

    @classmethod
    def parse(cls, argument: str) -> Confirm:
        answer, _, owner = argument.partition(".")
        if answer not in ("y", "n", "yes", "no") or not (owner.isascii() and owner.isdigit()):
            raise BadCallbackError("not a confirmation")
        return cls(answer in ("y", "yes"), int(owner))


@dataclass(frozen=True)
class ComputerChoice:
    """Add or remove a computer: its level, and how many computers the pressed lobby showed (the
    press's idempotency key; None on buttons of older versions)."""

    level: str
    seen: int | None = None

    def __str__(self) -> str:
        return self.level if self.seen is None else f"{self.level}.{self.seen}"

    @classmethod
    def parse(cls, argument: str) -> ComputerChoice:
        level, _, seen = argument.partition(".")
        if level.isascii() and level.isdigit() and not seen:  # "➖ Computer" carries the count alone
            return cls("", int(level))
        return cls(level, int(seen) if seen.isascii() and seen.isdigit() else None)


@dataclass(frozen=True)
class TurnChoice:
    """A /settings turn-time button: the choice's name and the chat it is for."""

    name: str
    chat_id: int

    def __str__(self) -> str:
        return f"turn.{self.name}.{self.chat_id}"

    @classmethod
    def parse(cls, argument: str) -> TurnChoice:
        name, _, chat = argument.removeprefix("turn.").partition(".")
        try:
            return cls(name, int(chat))
        except ValueError as exc:
            raise BadCallbackError("not a turn-time choice") from exc


class Codec:
    def __init__(self, key: bytes) -> None:
        self._key = key

    def _tag(self, body: str) -> str:
        digest = hmac.new(self._key, body.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest)[:TAG_CHARS].decode()

    def encode(self, button: Button) -> str:
        body = f"{button.action.value}:{button.game_id}:{button.version}:{button.argument}"
        data = f"{body}:{self._tag(body)}"
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback data over {MAX_BYTES} bytes: {data!r}")
        return data

    def decode(self, data: str | None) -> Button:
        raw = _ascii(data)
        if not raw or len(raw) > MAX_BYTES:
            raise BadCallbackError("empty, oversized or non-ASCII callback data")
        body, _, tag = raw.rpartition(b":")
        if not hmac.compare_digest(tag, self._tag(body.decode()).encode()):
            raise BadCallbackError("callback data with a wrong signature")
        try:
            action, game, version, argument = body.decode().split(":", 3)
            return Button(Action(action), int(game), int(version), argument)
        except ValueError as exc:  # signed by us, so only an old format can get here
            raise BadCallbackError("callback data of an unknown format") from exc

    def _link_tag(self, body: str) -> str:
        # Hex, not base64: a deep-link payload is split on "_", which base64url may contain.
        return hmac.new(self._key, body.encode(), hashlib.sha256).hexdigest()[:12]

    def deep_link_payload(self, action: str, game_id: int) -> str:
        """A ``/start`` payload (``join_12_tag``): letters, digits and ``_`` only, ≤ 64 chars."""
        body = f"{action}_{game_id}"
        return f"{body}_{self._link_tag(body)}"

    def deep_link(self, bot_username: str, action: str, game_id: int) -> str:
        """``https://t.me/<bot>?start=<payload>``: opens the private chat and sends ``/start <payload>``."""
        return f"https://t.me/{bot_username}?start={self.deep_link_payload(action, game_id)}"

    def read_deep_link(self, payload: str) -> tuple[str, int]:
        raw = _ascii(payload)
        body, _, tag = (raw or b"").rpartition(b"_")
        if not body or not hmac.compare_digest(tag, self._link_tag(body.decode()).encode()):
            raise BadCallbackError("unknown start payload")
        action, _, game = body.decode().partition("_")
        if not (game.isascii() and game.isdigit()):
            raise BadCallbackError("unknown start payload")
        return action, int(game)


def _ascii(text: str | None) -> bytes | None:
    """Our data is ASCII; anything else (a modified client's bytes) is not ours: None."""
    try:
        return text.encode("ascii") if text else None
    except UnicodeEncodeError:
        return None
