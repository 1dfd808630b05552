"""The deploy kit says only what the code understands: every environment variable a deploy file
names is a setting (or one of the few the kit itself uses, documented in bot.env.example), every
command it runs is a ``shithead-bot`` subcommand (or the program of the image it runs in), the
long-running services restart and are health-checked on ``/healthz``, Caddy routes the webhook
path to the workers' port, and the systemd unit runs in a state directory that exists."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from shithead_bot.cli import parser
from shithead_bot.config import Settings

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
SETTINGS = {name.upper() for name in Settings.model_fields}
# Variables the kit uses that are not the bot's settings: each is explained in bot.env.example.
KIT_VARIABLES = {"POSTGRES_PASSWORD", "WEBHOOK_HOST"}
# What other images read from their environment.
IMAGE_VARIABLES = {"postgres": {"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"}, "caddy": {"WEBHOOK_HOST"}}
# The programs other images have, by image name.
IMAGE_PROGRAMS = {"postgres": {"pg_isready"}, "caddy": {"caddy", "wget"}}
ONE_SHOT = {"migrate"}  # runs once before the workers: restarted only when it fails


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    return data


def services() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = compose()["services"]
    return found


def image_of(service: dict[str, Any]) -> str | None:
    """The other image's name (``caddy`` for ``caddy:2``); None for the bot's own image."""
    if "build" in service:
        return None
    return str(service["image"]).split(":")[0].split("/")[-1]


def is_subcommand(argv: list[str]) -> bool:
    try:
        parser().parse_args(argv)
    except SystemExit:
        return False
    return True


def interpolated(text: str) -> set[str]:
    """The ``${VAR}`` (with ``:-``, ``:?`` forms) names a compose file takes from its environment."""
    return set(re.findall(r"\$\{([A-Z_][A-Z0-9_]*)", text))


def example_variables() -> set[str]:
    text = (DEPLOY / "bot.env.example").read_text()
    return set(re.findall(r"^#?\s*([A-Z_][A-Z0-9_]*)=", text, re.MULTILINE))


def test_every_variable_of_the_example_env_is_known() -> None:
    names = example_variables()
    assert "TELEGRAM_BOT_TOKEN" in names
    assert names <= SETTINGS | KIT_VARIABLES, names - SETTINGS - KIT_VARIABLES
    assert names >= KIT_VARIABLES  # each is explained there


def test_compose_takes_only_documented_variables() -> None:
    used = interpolated((DEPLOY / "compose.yaml").read_text())
    assert used <= example_variables(), used - example_variables()


@pytest.mark.parametrize("name", sorted(services()))
def test_each_service_names_known_variables(name: str) -> None:
    service = services()[name]
    environment = service.get("environment") or {}
    keys = set(environment) if isinstance(environment, dict) else {e.split("=")[0] for e in environment}
    allowed = SETTINGS if image_of(service) is None else IMAGE_VARIABLES[image_of(service) or ""]
    assert keys <= allowed, keys - allowed


@pytest.mark.parametrize("name", sorted(services()))
def test_each_service_runs_a_command_that_exists(name: str) -> None:
    service = services()[name]
    image = image_of(service)
    command = service.get("command")
    if image is None:
        assert command is not None
        assert is_subcommand(list(command)), command
    else:
        assert command is None or command[0] in IMAGE_PROGRAMS[image], command
    check = service.get("healthcheck", {}).get("test")
    if check is not None:
        argv = shlex.split(check[1]) if check[0] == "CMD-SHELL" else list(check[1:])
        if image is None:
            assert argv[0] == "shithead-bot"
            assert is_subcommand(argv[1:]), argv
        else:
            assert argv[0] in IMAGE_PROGRAMS[image], argv


@pytest.mark.parametrize("name", sorted(services()))
def test_each_service_restarts_and_is_health_checked(name: str) -> None:
    service = services()[name]
    if name in ONE_SHOT:
        assert service.get("restart") == "on-failure"
        return
    assert service.get("restart") == "unless-stopped"
    assert "healthcheck" in service
    if image_of(service) is None:
        assert service["healthcheck"]["test"] == ["CMD", "shithead-bot", "health"]  # GET /healthz


def test_caddy_receives_the_webhooks_and_routes_them_to_the_workers() -> None:
    found = services()
    caddy = next(s for s in found.values() if image_of(s) == "caddy")
    assert {"80:80", "443:443"} <= set(caddy["ports"])
    assert any(v.endswith(":/data") for v in caddy["volumes"])  # certificates survive a restart
    mounted = next(v for v in caddy["volumes"] if v.startswith("./Caddyfile:"))
    assert mounted.split(":")[1] == caddy["command"][caddy["command"].index("--config") + 1]
    caddyfile = (DEPLOY / "Caddyfile").read_text()
    assert set(re.findall(r"\{\$([A-Z_]+)\}", caddyfile)) <= set(caddy["environment"])
    site = re.search(r"^\{\$([A-Z_]+)\}\s*\{", caddyfile, re.MULTILINE)
    assert site is not None
    assert site.group(1) == "WEBHOOK_HOST"
    worker = found["worker"]
    webhook = urlsplit(re.sub(r"\$\{WEBHOOK_HOST[^}]*\}", "bot.example.org", worker["environment"]["WEBHOOK_URL"]))
    assert webhook.scheme == "https"
    assert webhook.netloc == "bot.example.org"  # the host Caddy gets the certificate for
    assert f"handle_path {webhook.path}/*" in caddyfile
    upstream = re.search(r"dynamic a (\w+) (\d+)", caddyfile)
    assert upstream is not None
    assert upstream.group(1) == "worker"
    assert upstream.group(2) == str(worker["environment"]["PORT"])
    assert worker["expose"] == [upstream.group(2)]


def dockerfile() -> list[tuple[str, str]]:
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def test_the_dockerfile_sets_known_variables_and_checks_its_health() -> None:
    instructions = dockerfile()
    for word, rest in instructions:
        if word == "ENV":
            names = {part.split("=")[0] for part in shlex.split(rest)}
            assert names <= SETTINGS | {"PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PATH"}, names
    entry = next(json.loads(rest) for word, rest in instructions if word == "ENTRYPOINT")
    command = next(json.loads(rest) for word, rest in instructions if word == "CMD")
    assert entry == ["shithead-bot"]
    assert is_subcommand(command)
    health = next(rest for word, rest in instructions if word == "HEALTHCHECK")
    check = json.loads(health[health.index("CMD") + 3 :].strip())
    assert check[0] == "shithead-bot"
    assert check[1:] == ["health"]


def unit() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in (DEPLOY / "shithead-bot.service").read_text().splitlines():
        if "=" in line and not line.startswith(("#", ";")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def test_the_systemd_unit_runs_in_a_state_directory_of_its_own() -> None:
    service = unit()
    assert service["DynamicUser"] == ["yes"]
    assert "User" not in service  # no account to create by hand
    (state,) = service["StateDirectory"]
    (working,) = service["WorkingDirectory"]
    assert working in (f"/var/lib/{state}", f"%S/{state}")  # systemd creates it before starting
    environment = dict(item.split("=", 1) for line in service.get("Environment", []) for item in shlex.split(line))
    assert set(environment) <= SETTINGS
    database = environment.get("DATABASE_URL", "")
    assert database.startswith(f"sqlite+aiosqlite:////var/lib/{state}/")
    (start,) = service["ExecStart"]
    program, *argv = shlex.split(start)
    assert program.endswith("/shithead-bot")
    assert is_subcommand(argv)
    assert "2" in service.get("RestartPreventExitStatus", [""])[0].split()  # a setting to fix is not retried
