"""The update queue: update ids, allowed_updates, long polling with getUpdates, webhook delivery."""

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass, field

import aiohttp

from .model import JSON, ApiError

# Telegram leaves out chat_member, message_reaction and message_reaction_count unless asked for them.
DEFAULT_ALLOWED = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "business_connection",
        "business_message",
        "edited_business_message",
        "deleted_business_messages",
        "inline_query",
        "chosen_inline_result",
        "callback_query",
        "shipping_query",
        "pre_checkout_query",
        "purchased_paid_media",
        "poll",
        "poll_answer",
        "my_chat_member",
        "chat_join_request",
        "chat_boost",
        "removed_chat_boost",
    }
)
WEBHOOK_ACTIVE = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
)
TERMINATED = "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"


class Pulse:
    """Wakes every waiter at once; waiters re-check their condition (no lost wake-ups in one event loop)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def fire(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self, seconds: float | None) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._event.wait(), seconds)


@dataclass
class Webhook:
    url: str = ""
    secret: str | None = None
    max_connections: int = 40
    last_error_date: int | None = None
    last_error_message: str | None = None


@dataclass
class Delivery:
    """One webhook POST attempt: where it went, which update, and the error (None when accepted)."""

    url: str
    update_id: int
    error: str | None


@dataclass
class UpdateQueue:
    attempts: int = 4  # deliveries of one update before giving up on it
    backoff: float = 0.05  # seconds before the first retry; doubles each time
    pending: list[JSON] = field(default_factory=list)
    next_id: int = 1
    allowed: frozenset[str] = DEFAULT_ALLOWED
    filtered: list[JSON] = field(default_factory=list)  # updates not created because of allowed_updates
    webhook: Webhook = field(default_factory=Webhook)
    targets: list[str] | None = None
    deliveries: list[Delivery] = field(default_factory=list)
    given_up: list[JSON] = field(default_factory=list)  # updates that no delivery attempt got through
    pulse: Pulse = field(default_factory=Pulse)
    copies: int = 1  # webhook: each update is POSTed this many times (Telegram retrying a slow 200)
    copies_at_once: bool = False  # …all at the same moment, to different targets when there are several
    _poll_ticket: int = 0
    _round_robin: int = 0
    _closing: bool = False
    _session: aiohttp.ClientSession | None = None
    _task: asyncio.Task[None] | None = None

    # --- creating updates ---------------------------------------------------------------------------

    def emit(self, kind: str, payload: JSON) -> JSON | None:
        """Queue an update of that kind, unless allowed_updates excludes it; returns the update."""
        if kind not in self.allowed:
            self.filtered.append({kind: payload})
            return None
        update = {"update_id": self.next_id, kind: payload}
        self.next_id += 1
        self.pending.append(update)
        self.pulse.fire()
        return update

    def set_allowed(self, allowed: list[str] | None) -> None:
        if allowed is not None:
            self.allowed = frozenset(allowed) if allowed else DEFAULT_ALLOWED

    # --- getUpdates ---------------------------------------------------------------------------------

    def confirm(self, offset: int | None) -> None:
        if offset is not None and offset < 0:
            self.pending = self.pending[offset:]
        elif offset:
            self.pending = [update for update in self.pending if update["update_id"] >= offset]

    async def fetch(self, offset: int | None, limit: int, seconds: float) -> list[JSON]:
        """getUpdates: confirm, then hold the request until an update arrives or the timeout passes."""
        if self.webhook.url:
            raise ApiError(409, WEBHOOK_ACTIVE)
        self.confirm(offset)
        self._poll_ticket += 1
        ticket = self._poll_ticket
        self.pulse.fire()  # an older long poll still waiting ends with 409, as on Telegram
        deadline = time.monotonic() + seconds
        while True:
            if ticket != self._poll_ticket:
                raise ApiError(409, TERMINATED)
            if self.pending or self._closing:
                return self.pending[: max(1, min(limit, 100))]
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return []
            await self.pulse.wait(remaining)

    # --- webhooks -----------------------------------------------------------------------------------

    def set_webhook(self, webhook: Webhook, allowed: list[str] | None, drop_pending: bool) -> None:
        if drop_pending:
            self.pending.clear()
        self.set_allowed(allowed)
        self.webhook = webhook
        self.pulse.fire()

    def delete_webhook(self, drop_pending: bool) -> None:
        self.set_webhook(Webhook(), None, drop_pending)

    def webhook_info(self) -> JSON:
        info: JSON = {
            "url": self.webhook.url,
            "has_custom_certificate": False,
            "pending_update_count": len(self.pending),
        }
        if self.webhook.url:
            info["max_connections"] = self.webhook.max_connections
            info["allowed_updates"] = sorted(self.allowed)
        if self.webhook.last_error_date is not None:
            info["last_error_date"] = self.webhook.last_error_date
            info["last_error_message"] = self.webhook.last_error_message
        return info

    def set_targets(self, urls: list[str] | None) -> None:
        self.targets = list(urls) if urls is not None else None
        self._round_robin = 0
        self.pulse.fire()

    def _next_url(self) -> str:
        if not self.targets:
            return self.webhook.url
        url = self.targets[self._round_robin % len(self.targets)]
        self._round_robin += 1
        return url

    # --- the delivery task --------------------------------------------------------------------------

    async def start(self) -> None:
        self._closing = False
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5))
        self._task = asyncio.create_task(self._deliver_forever(), name="fakebot webhook delivery")

    async def close(self) -> None:
        self._closing = True
        self.pulse.fire()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._session is not None:
            await self._session.close()

    async def _deliver_forever(self) -> None:
        while True:
            if not (self.pending and (self.webhook.url or self.targets)):
                await self.pulse.wait(None)
                continue
            update = self.pending[0]
            if await self._deliver_copies(update) and self.pending and self.pending[0] is update:
                self.pending.pop(0)

    async def _deliver_copies(self, update: JSON) -> bool:
        if self.copies <= 1:
            return await self._deliver(update)
        if self.copies_at_once:
            return all(await asyncio.gather(*(self._deliver(update) for _ in range(self.copies))))
        return all([await self._deliver(update) for _ in range(self.copies)])

    async def _deliver(self, update: JSON) -> bool:
        """Try a few times with a growing pause; False if webhooks were turned off meanwhile."""
        for attempt in range(self.attempts):
            url = self._next_url()
            if not url:
                return False
            error = await self._post(url, update)
            self.deliveries.append(Delivery(url, update["update_id"], error))
            if error is None:
                return True
            self.webhook.last_error_date = int(time.time())
            self.webhook.last_error_message = error
            if attempt + 1 < self.attempts:
                await asyncio.sleep(self.backoff * 2**attempt)
        self.given_up.append(update)
        return True

    async def _post(self, url: str, update: JSON) -> str | None:
        assert self._session is not None
        headers = {"Content-Type": "application/json"}
        if self.webhook.secret:
            headers["X-Telegram-Bot-Api-Secret-Token"] = self.webhook.secret
        try:
            async with self._session.post(url, data=json.dumps(update), headers=headers) as response:
                if 200 <= response.status < 300:
                    return None
                return f"Wrong response from the webhook: {response.status} {response.reason}"
        except (aiohttp.ClientError, TimeoutError) as exc:
            return f"Connection failed: {exc!r}"
