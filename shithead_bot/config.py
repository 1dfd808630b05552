"""The one settings class: environment variables (or a ``.env`` file in the working folder)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from persistence.db import DEFAULT_URL, async_url

TELEGRAM_API_URL = "https://api.telegram.org/bot"
TOKEN_LIKE = re.compile(r"\d+:[A-Za-z0-9_-]")  # a bot id and a colon, then the secret


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


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    telegram_bot_token: SecretStr | None = Field(default=None, description="the bot's token from @BotFather")
    telegram_api_url: str = Field(default=TELEGRAM_API_URL, description="Bot API base URL (a self-hosted or fake one)")
    database_url: str = Field(default=DEFAULT_URL, description="sqlite+aiosqlite:///file.db or postgresql+asyncpg://…")
    webhook_url: str | None = Field(default=None, description="public HTTPS URL for webhook mode; polling if unset")
    listen: str = Field(
        default="", description="address to listen on; default 0.0.0.0 for a webhook, 127.0.0.1 for polling's /metrics"
    )
    port: int = Field(default=8443, description="webhook mode: port to listen on")
    secret_token: SecretStr | None = Field(default=None, description="webhook mode: X-Telegram-Bot-Api-Secret-Token")
    metrics_port: int | None = Field(default=None, description="polling mode: serve /healthz and /metrics on this port")
    log_level: str = Field(default="INFO", description="DEBUG, INFO, WARNING…")

    computer_move_cap: int = Field(default=2000, description="computer moves at most in one call chain")
    default_turn_seconds: int | None = Field(default=86400, description="a new chat's turn time (None: none)")
    sweep_seconds: float = Field(default=5.0, description="how often the deadline sweep runs")
    grace_fraction: float = Field(default=0.1, description="after a restart, overdue deadlines get this share")
    grace_min_seconds: int = Field(default=60, description="…and at least this many seconds")
    nudge_interval_seconds: int = Field(default=3600, description="at most one nudge per game in this time")
    lobby_expiry_days: int = Field(default=7, description="a lobby never started is closed after this")
    paused_expiry_days: int = Field(default=30, description="a game paused this long is closed")
    outbox_lease_seconds: int = Field(default=30, description="how long a worker may hold notices it sends")
    outbox_sweep_seconds: float = Field(default=1.0, description="how often pending notices are looked for")
    send_per_second: float = Field(default=30.0, gt=0, description="Bot API sends per second, the whole fleet")
    group_sends_per_minute: float = Field(default=20.0, gt=0, description="sends per minute into one group")
    private_sends_per_second: float = Field(default=1.0, gt=0, description="sends per second into one private chat")
    table_edit_seconds: float = Field(
        default=5.0,
        description="edit a group's table at most this often: 12 edits a minute, leaving room in Telegram's 20 a"
        " minute for a group's other posts",
    )

    @field_validator("telegram_api_url")
    @classmethod
    def _bot_api_url(cls, value: str) -> str:
        return bot_api_url(value)

    @field_validator("database_url")
    @classmethod
    def _async_database_url(cls, value: str) -> str:
        return async_url(value)

    @model_validator(mode="after")
    def _listen_by_mode(self) -> Settings:
        """Unset: everywhere for a webhook (Telegram must reach it), this machine only for the
        health check and metrics of a polling bot."""
        if not self.listen.strip():
            self.listen = "0.0.0.0" if self.webhook_url else "127.0.0.1"
        return self
