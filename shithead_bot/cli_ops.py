"""The operator's look at a bot: ``shithead-bot config`` (every setting, its value and where it
came from, secrets masked) and ``shithead-bot health`` (asks the running bot's ``/healthz``; the
container health check)."""

from __future__ import annotations

import argparse
import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from shithead_bot.config import Settings

Command = Callable[[argparse.Namespace], int]
SettingsOf = Callable[[argparse.Namespace], Settings]
MASK = "********"
HEALTH_TIMEOUT = 5.0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sub.add_parser("config", help="print every setting, its value and its source (env, .env, default)")
    p = sub.add_parser("health", help="ask the running bot's /healthz (exit 0 healthy, 1 not)")
    p.add_argument("--url", help="default: http://127.0.0.1:$PORT/healthz (webhook) or $METRICS_PORT (polling)")


def commands(settings_of: SettingsOf) -> dict[str, Command]:
    return {
        "config": lambda args: _config(settings_of(args)),
        "health": lambda args: _health(settings_of(args), args.url),
    }


def shown(name: str, value: Any) -> str:
    """A setting as it may be printed: secrets masked, a database password hidden."""
    if isinstance(value, SecretStr):
        return MASK if value.get_secret_value() else ""
    if value is None:
        return ""
    if name == "database_url":  # always a URL: the settings refuse anything else
        from sqlalchemy.engine import make_url

        return make_url(str(value)).render_as_string(hide_password=True)
    return str(value)


def sources(env_file: Path = Path(".env")) -> Callable[[str], str]:
    """Where a setting comes from: the environment, the ``.env`` file, or the default."""
    from dotenv import dotenv_values

    environment = {k.lower() for k in os.environ}
    dotenv = {k.lower() for k in dotenv_values(env_file)} if env_file.is_file() else set()
    return lambda name: "env" if name in environment else ".env" if name in dotenv else "default"


def _config(settings: Settings) -> int:
    from shithead_bot.redact import RedactSecrets
    from shithead_bot.runner import secrets_of

    token = settings.telegram_bot_token.get_secret_value().strip() if settings.telegram_bot_token else ""
    redact = RedactSecrets(secrets_of(token) if token else ()).redact  # a token pasted into another setting
    source = sources()
    for name in Settings.model_fields:
        print(redact(f"{name.upper()}={shown(name, getattr(settings, name))}  ({source(name)})"))
    return 0


def health_url(settings: Settings) -> str | None:
    port = settings.port if settings.webhook_url else settings.metrics_port
    if port is None:
        return None
    host = settings.listen if settings.listen not in ("0.0.0.0", "::", "") else "127.0.0.1"
    return f"http://{host}:{port}/healthz"


def _health(settings: Settings, url: str | None) -> int:
    from shithead_bot.runner import fail

    url = url or health_url(settings)
    if url is None:
        return fail("no health endpoint: polling mode serves /healthz only on METRICS_PORT")
    try:
        with urllib.request.urlopen(url, timeout=HEALTH_TIMEOUT) as response:
            body, ok = response.read(), True
    except urllib.error.HTTPError as exc:
        body, ok = exc.read(), False
    except (urllib.error.URLError, OSError) as exc:
        print(f"{url}: unreachable ({getattr(exc, 'reason', exc)})")
        return 1
    state = "ok" if ok else "failing: " + (", ".join(failing_checks(body)) or "unknown")
    print(f"{url}: {state}")
    return 0 if ok else 1


def failing_checks(body: bytes) -> list[str]:
    try:
        checks = json.loads(body).get("checks", {})
    except (ValueError, AttributeError):
        return []
    return [name for name, check in checks.items() if not (isinstance(check, dict) and check.get("ok"))]
