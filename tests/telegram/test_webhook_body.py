"""The webhook refuses a body that is not an update — bytes that are not UTF-8, deeply nested JSON,
JSON that is not an object, an object without an integer ``update_id`` — with 400 and one warning
line, a body that is not JSON by its type with 415, one larger than any update with 413: never a
traceback or a 500 (Telegram sends a 5xx again and again); an update is queued and answered 200."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient, TestServer
from telegram import Update
from telegram.ext import Application

from shithead_bot.config import Settings
from shithead_bot.telegram.web import MAX_BODY_BYTES, SECRET_HEADER, WebServer

SECRET = "s3cret-token"
HEADERS = {SECRET_HEADER: SECRET, "Content-Type": "application/json"}
Client = tuple[TestClient, Application]  # type: ignore[type-arg]
DEEP = "[" * 150_000 + "]" * 150_000  # 300 KB of nesting: json.loads raises RecursionError
UPDATE = '{"update_id": 7}'


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    application = Application.builder().token("123456:AAE-webhook-body-test").updater(None).build()
    server = WebServer(application, Settings(), webhook_path="hook", secret=SECRET)
    async with TestClient(TestServer(server.app)) as test_client:
        yield test_client, application


@pytest.mark.parametrize(
    "body",
    [
        DEEP,
        '{"update_id": 1, "message": ' + "[" * 150_000 + "]" * 150_000 + "}",
        "not json",
        "[1]",
        "null",
        '"an update"',
        '{"message": 5}',
        '{"update_id": "1"}',
        '{"update_id": 1, "message": {"text": "no date, no chat"}}',
        b'{"update_id": 1, "message": {"text": "\xff\xfe"}}',
        b"\xc3\x28",
        UPDATE.encode("utf-16"),
        UPDATE.encode("utf-32-le"),
        "\ufeff" + UPDATE,
        "",
    ],
    ids=[
        "nested",
        "nested-inside",
        "text",
        "list",
        "null",
        "string",
        "no-id",
        "id-text",
        "broken-message",
        "not-utf8",
        "bad-utf8-sequence",
        "utf16",
        "utf32",
        "byte-order-mark",
        "empty",
    ],
)
async def test_a_body_that_is_not_an_update_is_refused_in_one_warning(
    client: Client,
    body: str | bytes,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await assert_refused(client, caplog, body, HEADERS, 400, "webhook: a request that is not an update was refused")


@pytest.mark.parametrize(
    ("content_type", "named"),
    [
        ("text/plain", "text/plain"),
        ("application/x-www-form-urlencoded", "application/x-www-form-urlencoded"),
        ("multipart/form-data; boundary=x", "multipart/form-data"),
        (None, "none"),
    ],
)
async def test_a_body_that_is_not_json_by_its_type_is_refused_in_one_warning(
    client: Client, content_type: str | None, named: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram always says application/json: anything else is not Telegram, or a proxy that
    rewrites what it passes on — the warning names the type, for the operator to find which."""
    headers = {SECRET_HEADER: SECRET, **({"Content-Type": content_type} if content_type else {})}
    warning = f"webhook: a request that is not JSON (Content-Type: {named}) was refused"
    await assert_refused(client, caplog, UPDATE.encode(), headers, 415, warning)


async def test_a_body_larger_than_any_update_is_refused_in_one_warning(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    body = '{"update_id": 1, "message": {"text": "' + "x" * (2 * MAX_BODY_BYTES) + '"}}'
    warning = f"webhook: a request larger than {MAX_BODY_BYTES} bytes was refused"
    await assert_refused(client, caplog, body, HEADERS, 413, warning)


async def assert_refused(
    client: Client,
    caplog: pytest.LogCaptureFixture,
    body: str | bytes,
    headers: dict[str, str],
    status: int,
    warning: str,
) -> None:
    test_client, application = client
    caplog.set_level("DEBUG")
    response = await test_client.post("/hook", data=body, headers=headers, skip_auto_headers={"Content-Type"})
    assert response.status == status
    assert application.update_queue.empty()
    records = [r for r in caplog.records if r.levelno >= 30]
    assert [(r.levelname, r.getMessage()) for r in records] == [("WARNING", warning)]
    assert all(r.exc_info is None and r.exc_text is None for r in caplog.records)


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", "Application/JSON", "application/json; charset=klingon"],
)
async def test_an_update_is_read_as_utf8_whatever_charset_its_type_names(client: Client, content_type: str) -> None:
    """JSON is UTF-8 (RFC 8259 defines no charset for it): a charset named or unknown changes nothing."""
    test_client, application = client
    chat = '{"id": 5, "type": "private"}'
    body = '{"update_id": 8, "message": {"message_id": 1, "date": 0, "chat": ' + chat + ', "text": "é ♠"}}'
    headers = {SECRET_HEADER: SECRET, "Content-Type": content_type}
    response = await test_client.post("/hook", data=body.encode(), headers=headers)
    assert response.status == 200
    update = application.update_queue.get_nowait()
    assert update.message.text == "é ♠"


async def test_an_update_is_queued_and_answered_200(
    client: Client,
) -> None:
    test_client, application = client
    response = await test_client.post("/hook", data='{"update_id": 7}', headers=HEADERS)
    assert response.status == 200
    update = application.update_queue.get_nowait()
    assert isinstance(update, Update)
    assert update.update_id == 7
