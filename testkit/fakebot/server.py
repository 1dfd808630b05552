"""A fake Telegram Bot API server that python-telegram-bot talks to over real HTTP.

    async with FakeTelegram() as fake:
        app = Application.builder().token(fake.token).base_url(fake.base_url) \
            .base_file_url(fake.base_file_url).build()

See ``scenario.Scenario`` for the test-side API (users, groups, pressing buttons, reading chats).
"""

import asyncio
import dataclasses
import json
import re
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from aiohttp import web

from .model import JSON, ApiError, Call, Press, bad_request
from .scenario import Scenario

T = TypeVar("T")

PATH = re.compile(r"/bot([^/]*)/([^/]+)")
TOKEN_SHAPE = re.compile(r"\d+:[A-Za-z0-9_-]+")
INT_FIELDS = frozenset(
    {
        "chat_id",
        "message_id",
        "offset",
        "limit",
        "user_id",
        "max_connections",
        "cache_time",
        "from_chat_id",
        "message_thread_id",
        "reply_to_message_id",
        "until_date",
    }
)
FLOAT_FIELDS = frozenset({"timeout"})
BOOL_FIELDS = frozenset(
    {
        "disable_notification",
        "show_alert",
        "drop_pending_updates",
        "protect_content",
        "disable_web_page_preview",
        "allow_sending_without_reply",
        "only_if_banned",
        "revoke_messages",
    }
)
JSON_FIELDS = frozenset(
    {
        "reply_markup",
        "entities",
        "allowed_updates",
        "scope",
        "commands",
        "link_preview_options",
        "reply_parameters",
        "caption_entities",
        "media",
        "message_ids",
        "menu_button",
    }
)
CONTROL_ACTIONS = frozenset(
    {
        "add_user",
        "start_bot",
        "open_deep_link",
        "block_bot",
        "unblock_bot",
        "add_group",
        "add_member",
        "remove_member",
        "remove_bot_from_group",
        "migrate_group",
        "restrict_bot",
        "start_outage",
        "end_outage",
        "send_text",
        "press",
        "messages",
        "history",
    }
)


def coerce(key: str, value: object) -> object:
    """Form values arrive as strings; PTB JSON-encodes every non-string value."""
    if not isinstance(value, str):
        return value
    if key in JSON_FIELDS:
        try:
            return json.loads(value)
        except ValueError:
            what = "reply keyboard markup" if key == "reply_markup" else key
            raise bad_request(f"can't parse {what} JSON object") from None
    if key in INT_FIELDS and re.fullmatch(r"-?\d+", value):
        return int(value)
    if key in FLOAT_FIELDS:
        try:
            return float(value)
        except ValueError:
            raise bad_request(f"wrong parameter {key} in request") from None
    if key in BOOL_FIELDS:
        return value.lower() in ("true", "1")
    return value


async def read_params(request: web.Request) -> JSON:
    """The query string, plus a JSON body or form fields (urlencoded or multipart), typed."""
    raw: dict[str, object] = dict(request.query)
    if request.can_read_body and request.content_type == "application/json":
        try:
            body = await request.json()
        except ValueError:
            raise bad_request("can't parse JSON encoded request") from None
        if not isinstance(body, dict):
            raise bad_request("parameters must be a JSON object")
        raw.update(body)
    elif request.can_read_body:
        form = await request.post()
        for key, value in form.items():  # an uploaded file (multipart) arrives as its bytes
            if isinstance(value, web.FileField):
                raw[key] = value.file.read()
            else:
                raw[key] = value if isinstance(value, str) else bytes(value)
    return {key: coerce(key, value) for key, value in raw.items()}


def jsonable(value: object) -> object:
    if isinstance(value, Press):
        return {key: getattr(value, key) for key in ("query_id", "user_id", "chat_id", "message_id", "data")}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, list):
        return [jsonable(item) for item in value]
    return value


class FakeTelegram(Scenario):
    def __init__(
        self,
        token: str = "123456:TEST-TOKEN",
        bot_id: int = 123456,
        bot_username: str = "shithead_test_bot",
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        privacy_mode: bool = True,
        control: bool = False,
    ) -> None:
        super().__init__(token, bot_id, bot_username, privacy_mode)
        self.host = host
        self.requested_port = port
        self.control = control
        self.calls: list[Call] = []
        self._faults: defaultdict[str, deque[ApiError]] = defaultdict(deque)
        # (method, matches, reached, answer when set, the effect before the wait)
        self._stalls: list[tuple[str, Callable[[JSON], bool], asyncio.Event, asyncio.Event, bool]] = []
        self._outage: ApiError | None = None  # while set, every call fails with it
        self._outage_from: str | None = None  # …from the next call of this method on
        self._outage_chat: str | None = None  # …into this chat
        self._call_waiters: list[tuple[str, asyncio.Future[Call]]] = []
        self._runner: web.AppRunner | None = None
        self._port: int | None = None

    # --- lifecycle ----------------------------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.requested_port)
        await site.start()
        self._port = self._runner.addresses[0][1]
        await self.queue.start()

    async def stop(self) -> None:
        await self.queue.close()  # long polls return at once
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> "FakeTelegram":
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        assert self._port is not None, "the fake Telegram server is not started"
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://{self.host}:{self.port}/file/bot"

    # --- HTTP ---------------------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        if self.control and request.path.startswith("/_fake/"):
            return await self._control(request)
        match = PATH.fullmatch(request.path)
        if match is None:
            return web.json_response(ApiError(404, "Not Found").body(), status=404)
        token, method = match.groups()
        arrived = time.time()
        params: JSON = {}
        try:
            params = await read_params(request)
            await self._maybe_stall(method, params, effect_first=False)
            method, result = await self._call(token, method, params)
        except ApiError as exc:
            self._record(Call(arrived, self.api.names.get(method.lower(), method), params, exc.code))
            return web.json_response(exc.body(), status=exc.code)
        self._record(Call(arrived, method, params, "ok"))
        await self._maybe_stall(method, params, effect_first=True)
        return web.json_response({"ok": True, "result": result})

    async def _maybe_stall(self, method: str, params: JSON, *, effect_first: bool) -> None:
        for stall in list(self._stalls):
            name, matches, reached, answer, first = stall
            if name == method.lower() and first == effect_first and matches(params):
                self._stalls.remove(stall)
                reached.set()
                await answer.wait()  # never set: the answer never comes (the client dies meanwhile)

    async def _call(self, token: str, method: str, params: JSON) -> tuple[str, Any]:
        if not TOKEN_SHAPE.fullmatch(token):
            raise ApiError(404, "Not Found")
        if token != self.token:
            raise ApiError(401, "Unauthorized")
        name, handler = self.api.handler(method)
        here = self._outage_from in (None, name.lower()) and self._outage_chat in (None, str(params.get("chat_id")))
        if self._outage is not None and here:
            self._outage_from = self._outage_chat = None
            raise self._outage
        faults = self._faults[name.lower()]
        if faults:
            raise faults.popleft()
        return name, await handler(params)

    async def _control(self, request: web.Request) -> web.Response:
        """For people driving a standalone fake: POST /_fake/<action> with the keyword arguments as JSON."""
        action = request.path.removeprefix("/_fake/")
        if action not in CONTROL_ACTIONS:
            return web.json_response({"error": f"unknown action; use one of {sorted(CONTROL_ACTIONS)}"}, status=404)
        kwargs = await request.json() if request.can_read_body else {}
        try:
            result = getattr(self, action)(**kwargs)
            if asyncio.iscoroutine(result):
                result = await result
        except (AssertionError, TypeError) as exc:
            return web.json_response({"error": str(exc)}, status=400)
        return web.json_response({"result": jsonable(result)})

    # --- calls and injected faults ------------------------------------------------------------------

    def _record(self, call: Call) -> None:
        self.calls.append(call)
        for waiter in list(self._call_waiters):
            method, future = waiter
            if method == call.method.lower() and not future.done():
                future.set_result(call)
                self._call_waiters.remove(waiter)

    def call_counts(self) -> dict[str, int]:
        """How many times each method was called (successful or not)."""
        return dict(Counter(call.method for call in self.calls))

    def calls_of(self, method: str) -> list[Call]:
        return [call for call in self.calls if call.method.lower() == method.lower()]

    def reset_calls(self) -> None:
        self.calls.clear()

    def fail_next(
        self,
        method: str,
        times: int = 1,
        retry_after: int = 1,
        *,
        error_code: int = 429,
        description: str | None = None,
        parameters: JSON | None = None,
    ) -> None:
        """The next ``times`` calls of ``method`` fail: 429 with retry_after by default, or the given error."""
        if error_code == 429:
            description = description or f"Too Many Requests: retry after {retry_after}"
            parameters = {"retry_after": retry_after, **(parameters or {})}
        fault = ApiError(error_code, description or "Internal Server Error", parameters)
        self._faults[method.lower()].extend([fault] * times)

    def start_outage(
        self,
        error_code: int = 502,
        description: str = "Bad Gateway",
        *,
        from_method: str | None = None,
        to_chat: int | None = None,
    ) -> None:
        """Telegram has a bad minute: every call fails (502 Bad Gateway by default) until
        :meth:`end_outage` — from now, or from the next call of ``from_method`` (into ``to_chat``) on."""
        self._outage = ApiError(error_code, description)
        self._outage_from = from_method.lower() if from_method else None
        self._outage_chat = None if to_chat is None else str(to_chat)

    def end_outage(self) -> None:
        self._outage = self._outage_from = self._outage_chat = None

    def stall_next(
        self,
        method: str,
        matches: Callable[[JSON], bool] = lambda params: True,
        *,
        until: asyncio.Event | None = None,
        effect_first: bool = True,
    ) -> asyncio.Event:
        """The next call of ``method`` whose parameters ``matches`` takes effect (the message exists,
        users see it), but its answer never reaches the bot — a crash "right after sending". The
        returned event is set once it took effect. With ``until``, the answer comes once that is set
        (a slow answer); with ``effect_first=False`` too, the call takes effect only then (a request
        slow on its way: the returned event is set when it arrives)."""
        reached = asyncio.Event()
        self._stalls.append((method.lower(), matches, reached, until or asyncio.Event(), effect_first))
        return reached

    def cancel_stalls(self) -> None:
        self._stalls.clear()

    def duplicate_deliveries(self, copies: int = 2, *, at_once: bool = False) -> None:
        """Webhook: POST every update ``copies`` times — one after the other (a retry after a slow
        answer), or ``at_once`` (to as many workers as there are targets). ``copies=1`` to undo."""
        self.queue.copies = copies
        self.queue.copies_at_once = at_once

    def set_delivery_targets(self, urls: list[str] | None) -> None:
        """Deliver updates round-robin to these URLs (bot workers behind a load balancer); None to undo."""
        self.queue.set_targets(urls)

    # --- waiting ------------------------------------------------------------------------------------

    def next_call(self, method: str, timeout: float = 30) -> Coroutine[Any, Any, Call]:
        """Await the next call of ``method``; it counts from when next_call is *called*, not awaited."""
        future: asyncio.Future[Call] = asyncio.get_running_loop().create_future()
        waiter = (method.lower(), future)
        self._call_waiters.append(waiter)
        return self._wait_call(waiter, timeout)

    async def _wait_call(self, waiter: tuple[str, "asyncio.Future[Call]"], seconds: float) -> Call:
        try:
            return await asyncio.wait_for(waiter[1], seconds)
        except TimeoutError:
            raise AssertionError(f"no {waiter[0]} call within {seconds} s") from None
        finally:
            if waiter in self._call_waiters:
                self._call_waiters.remove(waiter)

    async def wait_for(
        self,
        predicate: Callable[[], T],
        timeout: float = 60,  # noqa: ASYNC109 (the brief's API)
        interval: float = 0.02,
    ) -> T:
        """Poll ``predicate`` until it returns something truthy, and return that; AssertionError on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() >= deadline:
                name = getattr(predicate, "__name__", repr(predicate))
                raise AssertionError(f"condition {name} not met within {timeout} s")
            await asyncio.sleep(interval)
