"""The webhook refuses a body that is not an update — deeply nested JSON, JSON that is not an object,
an object without an integer ``update_id`` — with 400 and one warning line, never a traceback or a
500; an update is queued and answered 200."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient, TestServer
from telegram import Update
from telegram.ext import Application

from shithead_bot.config import Settings
from shithead_bot.telegram.web import SECRET_HEADER, WebServer

SECRET = "s3cret-token"
HEADERS = {SECRET_HEADER: SECRET, "Content-Type": "application/json"}
Client = tuple[TestClient, Application]  # type: ignore[type-arg]
DEEP = "[" * 150_000 + "]" * 150_000  # 300 KB of nesting: json.loads raises RecursionError


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
    ],
    ids=["nested", "nested-inside", "text", "list", "null", "string", "no-id", "id-text", "broken-message"],
)
async def test_a_body_that_is_not_an_update_is_refused_in_one_warning(
    client: Client,
    body: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    test_client, application = client
    caplog.set_level("DEBUG")
    response = await test_client.post("/hook", data=body, headers=HEADERS)
    assert response.status == 400
    assert application.update_queue.empty()
    records = [r for r in caplog.records if r.levelno >= 30]
    assert [(r.levelname, r.getMessage()) for r in records] == [
        ("WARNING", "webhook: a request that is not an update was refused")
    ]
    assert all(r.exc_info is None and r.exc_text is None for r in caplog.records)


async def test_an_update_is_queued_and_answered_200(
    client: Client,
) -> None:
    test_client, application = client
    response = await test_client.post("/hook", data='{"update_id": 7}', headers=HEADERS)
    assert response.status == 200
    update = application.update_queue.get_nowait()
    assert isinstance(update, Update)
    assert update.update_id == 7
