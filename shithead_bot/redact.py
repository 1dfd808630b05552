"""Secrets never reach the log: a filter on the log handlers that replaces the bot token (and any
other secret given) in every record's message, arguments and traceback, at every level — PTB's
``Set Bot API URL: …/bot<token>`` and httpx's request lines included."""

from __future__ import annotations

import logging
import sys
import traceback
from types import TracebackType

MASK = "<redacted>"


class RedactSecrets(logging.Filter):
    """Rewrites a record whose text holds a secret; never drops a record."""

    def __init__(self, secrets: tuple[str, ...]) -> None:
        super().__init__("")
        self.secrets = tuple(s for s in secrets if s)

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not fit its format: let logging report it
            return True
        clean = self.redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


def install_redaction(*secrets: str, logger: logging.Logger | None = None) -> RedactSecrets:
    """Put a :class:`RedactSecrets` on every handler of ``logger`` (the root logger by default)."""
    target = logger or logging.getLogger()
    found = RedactSecrets(secrets)
    for handler in target.handlers:
        if not any(isinstance(f, RedactSecrets) and f.secrets == found.secrets for f in handler.filters):
            handler.addFilter(found)
    return found


def guard_stderr(*secrets: str) -> RedactSecrets:
    """Redact the log (as :func:`install_redaction`) and also a traceback Python prints on stderr
    for an exception nobody caught; returns the filter, whose ``redact`` cleans any other line."""
    found = install_redaction(*secrets)
    logging.captureWarnings(True)  # warnings go through the log handlers, hence the filter

    def excepthook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        sys.stderr.write(found.redact("".join(traceback.format_exception(kind, value, tb))))

    sys.excepthook = excepthook
    return found
