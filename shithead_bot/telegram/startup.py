"""Before the bot starts: is the token accepted by the Bot API, and which secret guards the webhook.
Every problem a person can fix is one line."""

from __future__ import annotations

from telegram import Bot
from telegram.error import InvalidToken, NetworkError

from shithead_bot.config import Settings


async def check_token(settings: Settings, token: str) -> str | None:
    """Ask the Bot API who we are before starting; a one-line reason when that fails."""
    bot = Bot(token, base_url=settings.telegram_api_url.rstrip("/"))
    try:
        async with bot:
            return None
    except (InvalidToken, NetworkError) as exc:
        return startup_problem(settings, exc)


def startup_problem(settings: Settings, exc: InvalidToken | NetworkError) -> str:
    """The one-line reason a bot cannot start."""
    if isinstance(exc, InvalidToken):
        return "the bot token was rejected by the Bot API (check TELEGRAM_BOT_TOKEN)"
    return f"cannot reach the Bot API at {settings.telegram_api_url}: {exc}"


def webhook_secret(settings: Settings, token: str) -> str | None:
    """The ``X-Telegram-Bot-Api-Secret-Token`` the webhook requires (None: none)."""
    return settings.secret_token.get_secret_value() if settings.secret_token else None
