"""The one settings class: environment variables (or a ``.env`` file in the working folder), and
``run``'s options.

Every setting is checked here, so that every command that reads them refuses a value the bot cannot
use before doing anything, in one line per setting (:func:`setting_problems`): its name, what it
must be, and the value given — unless the setting may hold a secret (a token, a password, a URL
with either in it). An empty variable counts as unset.
"""

from __future__ import annotations

import ipaddress
import math
import re
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import (
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from persistence.db import DEFAULT_URL, async_url

TELEGRAM_API_URL = "https://api.telegram.org/bot"
TOKEN_LIKE = re.compile(r"\d+:[A-Za-z0-9_-]")  # a bot id and a colon, then the secret
TOKEN_SHAPE = re.compile(r"\d+:[A-Za-z0-9_-]+")  # what @BotFather hands out
SECRET_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,256}")  # Telegram's rule for a webhook's secret
HOST_NAME = re.compile(
    r"(?=.{1,253}\Z)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?"
)
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
TELEGRAM_WEBHOOK_PORTS = (443, 80, 88, 8443)
DATABASE_DRIVERS = ("sqlite+aiosqlite", "postgresql+asyncpg")
DATABASE_EXAMPLES = "sqlite:///shithead.db or postgresql://user:password@host/db"
NO_TURN_TIME = ("none", "off")
BOT_TOKEN_SHAPE = (
    "does not look like a bot token (digits, a colon, then letters, digits, - or _; get one from @BotFather)"
)
DAY = 86400
# Settings whose value is never repeated in a refusal: it may be, or hold, a secret.
MAY_HOLD_SECRETS = frozenset({"telegram_bot_token", "secret_token", "telegram_api_url", "database_url", "webhook_url"})
SHOWN_CHARACTERS = 60  # of a refused value
ENV_FILE = ".env"


def bot_api_url(given: str) -> str:
    """The base URL the token and each method are appended to, so it ends with ``/bot``: added when
    missing (``https://api.telegram.org`` works), Telegram's when empty. A URL that cannot be one
    is refused with a reason that does not repeat it: it may hold the token."""
    text = given.strip()
    if not text:
        return TELEGRAM_API_URL
    try:
        parts = urlsplit(text)
        host, _ = parts.hostname, parts.port  # .port refuses a port that is not a number
    except ValueError:
        raise ValueError(f"not a URL (Telegram's is {TELEGRAM_API_URL})") from None
    if parts.scheme not in ("http", "https") or not host:
        raise ValueError(f"needs http:// or https:// and a host (Telegram's is {TELEGRAM_API_URL})")
    if parts.query or parts.fragment:
        raise ValueError("must end with its path, no ?query or #fragment: the token and the method follow it")
    if TOKEN_LIKE.search(parts.path):
        raise ValueError("must not hold the bot token: give the token as TELEGRAM_BOT_TOKEN only")
    path = parts.path.rstrip("/")
    path = path if path.endswith("/bot") else path + "/bot"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def ranged(low: float, high: float, message: str, *, above: bool = False) -> WrapValidator:
    """A number from ``low`` (or, ``above``, more than it) to ``high``: anything else — not a number,
    out of range, infinite, NaN — is refused with ``message``, which says all of that at once."""

    def check(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            number = handler(value)
        except ValidationError:
            raise ValueError(message) from None
        if math.isnan(number) or number > high or number < low or (above and number == low):
            raise ValueError(message)
        return number

    return WrapValidator(check)


Port = Annotated[int, ranged(1, 65535, "must be a whole number from 1 to 65535")]
Days = Annotated[int, ranged(1, 365, "must be whole days from 1 to 365")]
Sweep = Annotated[float, ranged(0.1, 3600, "must be seconds from 0.1 to 3600")]


def rate(high: float, per: str) -> WrapValidator:
    return ranged(0, high, f"must be more than 0 and at most {high:g} sends a {per}", above=True)


def database_url(given: str) -> str:
    """``given`` with this project's async driver (:func:`async_url`), when it is a database the bot
    can keep its games in: PostgreSQL, or an SQLite file in a folder that exists. The reasons never
    repeat the URL: it may hold a password."""
    url = async_url(given.strip())
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ValueError(f"not a database URL (e.g. {DATABASE_EXAMPLES})") from None
    if parsed.drivername not in DATABASE_DRIVERS:
        backend = parsed.get_backend_name()[:20]
        raise ValueError(f"{backend} is not supported: SQLite or PostgreSQL, e.g. {DATABASE_EXAMPLES}")
    if parsed.get_backend_name() == "sqlite" and "uri" not in parsed.query:
        if not parsed.database or parsed.database == ":memory:":
            raise ValueError("an SQLite database in memory keeps nothing: give a file, e.g. sqlite:///shithead.db")
        folder = Path(parsed.database).parent
        if not folder.is_dir():
            raise ValueError(f"the folder {folder} does not exist (for the SQLite file)")
    return url


def webhook_url(given: str, api_url: str | None) -> str:
    """A URL Telegram (or the self-hosted Bot API server at ``api_url``) can post updates to; the
    bot adds a secret path to it. Telegram's own posts only to HTTPS on four ports."""
    try:
        parts = urlsplit(given)
        port = parts.port
    except ValueError:
        raise ValueError("not a URL (e.g. https://bot.example.org/telegram)") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("needs https:// and a host, e.g. https://bot.example.org/telegram")
    if parts.query or parts.fragment:
        raise ValueError("must end with its path, no ?query or #fragment: the bot adds a secret path to it")
    if api_url == TELEGRAM_API_URL and parts.scheme != "https":
        raise ValueError("Telegram posts updates to https:// only (http:// is for a self-hosted Bot API server)")
    if api_url == TELEGRAM_API_URL and port is not None and port not in TELEGRAM_WEBHOOK_PORTS:
        raise ValueError("Telegram posts updates to ports 443, 80, 88 or 8443 only (a proxy can pass them to PORT)")
    return given


def listen_address(given: str) -> str:
    text = given.strip()
    if not text:
        return text  # by mode, below
    try:
        ipaddress.ip_address(text)
    except ValueError:
        if not HOST_NAME.fullmatch(text):
            raise ValueError("must be an IP address or a host name, e.g. 127.0.0.1 or 0.0.0.0") from None
    return text


class SettingsFileError(Exception):
    """The ``.env`` file cannot be read (its reason in one line)."""


def load_settings(**given: Any) -> Settings:
    """The settings from the environment, the ``.env`` file and ``given`` (``run``'s options)."""
    try:
        return Settings(**given)
    except UnicodeDecodeError as exc:
        raise SettingsFileError(
            f"{ENV_FILE}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at position {exc.start})"
        ) from None
    except OSError as exc:
        raise SettingsFileError(f"{ENV_FILE}: cannot be read ({exc.strerror or type(exc).__name__})") from None


def secret_text(value: Any) -> str:
    """A secret as given, without the spaces a ``.env`` line may add around it ('' when unset)."""
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    return value.strip() if isinstance(value, str) else ""


def setting_problems(exc: ValidationError) -> list[str]:
    """One line for each wrong setting, named as its environment variable, with the value given
    unless it may hold a secret or looks like a bot token (pasted into the wrong line)."""
    return [setting_problem(error) for error in exc.errors()]


def setting_problem(error: ErrorDetails) -> str:
    field = str(error["loc"][0]) if error["loc"] else ""
    reason = error.get("ctx", {}).get("error") if error["type"] == "value_error" else None
    line = f"{field.upper() or 'a setting'}: {reason or error['msg']}"
    given = error.get("input")
    if isinstance(given, str) and len(given) > SHOWN_CHARACTERS:
        given = given[:SHOWN_CHARACTERS] + "…"
    shown = isinstance(given, str | int | float) and not TOKEN_LIKE.search(str(given))
    if field and field not in MAY_HOLD_SECRETS and shown:
        line += f" (got {given!r})"
    return line


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=ENV_FILE, env_file_encoding="utf-8", extra="ignore", env_ignore_empty=True
    )

    telegram_bot_token: SecretStr | None = Field(default=None, description="the bot's token from @BotFather")
    telegram_api_url: str = Field(default=TELEGRAM_API_URL, description="Bot API base URL (a self-hosted or fake one)")
    database_url: str = Field(default=DEFAULT_URL, description="sqlite+aiosqlite:///file.db or postgresql+asyncpg://…")
    webhook_url: str | None = Field(default=None, description="public HTTPS URL for webhook mode; polling if unset")
    listen: str = Field(
        default="", description="address to listen on; default 0.0.0.0 for a webhook, 127.0.0.1 for polling's /metrics"
    )
    port: Port = Field(default=8443, description="webhook mode: port to listen on")
    secret_token: SecretStr | None = Field(default=None, description="webhook mode: X-Telegram-Bot-Api-Secret-Token")
    metrics_port: Port | None = Field(
        default=None, description="polling mode: serve /healthz and /metrics on this port"
    )
    log_level: str = Field(default="INFO", description="DEBUG, INFO, WARNING, ERROR or CRITICAL")

    computer_move_cap: Annotated[int, ranged(1, 1_000_000, "must be a whole number from 1 to 1000000")] = Field(
        default=2000, description="computer moves at most in one call chain"
    )
    default_turn_seconds: (
        Annotated[int, ranged(30, 30 * DAY, f"must be whole seconds from 30 to {30 * DAY} (30 days), or none")] | None
    ) = Field(default=86400, description="a new chat's turn time (none: no turn time)")
    sweep_seconds: Sweep = Field(default=5.0, description="how often the deadline sweep runs")
    grace_fraction: Annotated[float, ranged(0, 1, "must be a share from 0 to 1, e.g. 0.1")] = Field(
        default=0.1, description="after a restart, overdue deadlines get this share"
    )
    grace_min_seconds: Annotated[int, ranged(0, DAY, f"must be whole seconds from 0 to {DAY}")] = Field(
        default=60, description="…and at least this many seconds"
    )
    nudge_interval_seconds: Annotated[int, ranged(0, 7 * DAY, f"must be whole seconds from 0 to {7 * DAY}")] = Field(
        default=3600, description="at most one nudge per game in this time"
    )
    lobby_expiry_days: Days = Field(default=7, description="a lobby never started is closed after this")
    paused_expiry_days: Days = Field(default=30, description="a game paused this long is closed")
    outbox_lease_seconds: Annotated[int, ranged(1, 3600, "must be whole seconds from 1 to 3600")] = Field(
        default=30, description="how long a worker may hold notices it sends"
    )
    outbox_sweep_seconds: Sweep = Field(default=1.0, description="how often pending notices are looked for")
    send_per_second: Annotated[float, rate(1000, "second")] = Field(
        default=30.0, description="Bot API sends per second, the whole fleet"
    )
    group_sends_per_minute: Annotated[float, rate(6000, "minute")] = Field(
        default=20.0, description="sends per minute into one group"
    )
    private_sends_per_second: Annotated[float, rate(1000, "second")] = Field(
        default=1.0, description="sends per second into one private chat"
    )
    table_edit_seconds: Annotated[float, ranged(0, 3600, "must be seconds from 0 to 3600")] = Field(
        default=5.0,
        description="edit a group's table at most this often: 12 edits a minute, leaving room in Telegram's 20 a"
        " minute for a group's other posts",
    )

    @field_validator("telegram_bot_token", mode="before")
    @classmethod
    def _bot_token(cls, value: Any) -> Any:
        token = secret_text(value)
        if token and not TOKEN_SHAPE.fullmatch(token):
            raise ValueError(BOT_TOKEN_SHAPE)
        return token or None

    @field_validator("telegram_api_url")
    @classmethod
    def _bot_api_url(cls, value: str) -> str:
        return bot_api_url(value)

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str) -> str:
        return database_url(value)

    @field_validator("webhook_url")
    @classmethod
    def _webhook_url(cls, value: str | None, info: ValidationInfo) -> str | None:
        given = (value or "").strip()
        return webhook_url(given, info.data.get("telegram_api_url")) if given else None

    @field_validator("listen")
    @classmethod
    def _listen(cls, value: str) -> str:
        return listen_address(value)

    @field_validator("secret_token", mode="before")
    @classmethod
    def _secret_token(cls, value: Any) -> Any:
        secret = secret_text(value)
        if secret and not SECRET_TOKEN_SHAPE.fullmatch(secret):
            raise ValueError("must be 1 to 256 letters, digits, _ or - (Telegram's rule for a webhook's secret)")
        return secret or None

    @field_validator("log_level", mode="before")
    @classmethod
    def _log_level(cls, value: Any) -> Any:
        level = str(value).strip().upper()
        if level not in LOG_LEVELS:
            raise ValueError(f"must be one of {', '.join(LOG_LEVELS)}")
        return level

    @field_validator("default_turn_seconds", mode="before")
    @classmethod
    def _no_turn_time(cls, value: Any) -> Any:
        return None if isinstance(value, str) and value.strip().lower() in NO_TURN_TIME else value

    @model_validator(mode="after")
    def _listen_by_mode(self) -> Settings:
        """Unset: everywhere for a webhook (Telegram must reach it), this machine only for the
        health check and metrics of a polling bot."""
        if not self.listen.strip():
            self.listen = "0.0.0.0" if self.webhook_url else "127.0.0.1"
        return self
