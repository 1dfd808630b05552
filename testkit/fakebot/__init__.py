"""A fake Telegram Bot API server for end-to-end tests; see ``server.FakeTelegram`` and ``scenario.Scenario``."""

from .model import Answer, Button, Call, Press, SeenMessage
from .server import FakeTelegram

__all__ = ["Answer", "Button", "Call", "FakeTelegram", "Press", "SeenMessage"]
