"""The bot's pieces put together in one place: the callback codec from the token, the send rate from
the settings, and the context every handler reads (the service, its outbox, the sender). ``app.py``
builds the bot with these; the tests' harnesses and the benchmarks build theirs with them too, so
what they run is wired as the bot is."""

from __future__ import annotations

import hashlib
from datetime import timedelta

from telegram import Bot
from telegram.ext import Application

from shithead_bot.config import Settings
from shithead_bot.service import GameService
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.context import KEY, BotContext
from shithead_bot.telegram.delivery import Delivery
from shithead_bot.telegram.ratelimit import Limits, SendRate, SharedBuckets


def callback_codec(token: str) -> Codec:
    """The codec of the bot's buttons and deep links, keyed by its token."""
    return Codec(hashlib.sha256(b"shithead-callback:" + token.encode()).digest())


def send_rate(settings: Settings) -> SendRate:
    """The bot's send rate, its buckets in this process (:func:`share_buckets` for a fleet's)."""
    limits = Limits(settings.send_per_second, settings.group_sends_per_minute, settings.private_sends_per_second)
    return SendRate(limits)


def share_buckets(rate: SendRate, service: GameService) -> None:
    """On PostgreSQL, one send rate for every worker on the database: its buckets are kept there."""
    if service.dialect == "postgresql":
        rate.buckets = SharedBuckets(service)


def bot_context(
    service: GameService, bot: Bot, settings: Settings, *, codec: Codec | None = None, username: str | None = None
) -> BotContext:
    """What every handler needs: the service, its outbox (on the service's clock) and the sender
    through ``bot`` (initialized: its username is known). The codec is the token's unless given."""
    codec = codec or callback_codec(bot.token)
    username = username or bot.username
    lease = timedelta(seconds=settings.outbox_lease_seconds)
    outbox = service.outbox(lease=lease)
    delivery = Delivery(bot, codec, username, table_seconds=settings.table_edit_seconds)
    return BotContext(service, outbox, delivery, codec, settings, username)


def install(app: Application, service: GameService, settings: Settings) -> BotContext:
    """The context of an initialized application's handlers, kept in its ``bot_data``."""
    context = bot_context(service, app.bot, settings)
    app.bot_data[KEY] = context
    return context
