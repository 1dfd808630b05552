"""Every setting is checked where it is read, in the one settings class: a value the bot cannot
use is refused by every command that reads the settings (``run``, ``config``, ``migrate``, …) in
one line per wrong setting, naming it and what it must be — its value too unless it may hold a
secret — with exit code 2, before anything else happens; never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from shithead_bot.cli import main
from shithead_bot.config import Settings
from tests.test_cli_data import cli

TOKEN = "123456:AAE-settings-test-token"

# (variable, value, the line's reason after "NAME: "; None: only that the setting is named)
BAD: list[tuple[str, str, str | None]] = [
    ("TELEGRAM_BOT_TOKEN", "abc def", None),
    ("TELEGRAM_API_URL", "ftp://example.org", None),
    ("DATABASE_URL", "mysql://x/y", None),
    ("DATABASE_URL", "not a url", None),
    ("DATABASE_URL", "sqlite+aiosqlite://", None),
    ("DATABASE_URL", "sqlite:////no/such/folder/bot.db", None),
    ("WEBHOOK_URL", "ftp://bot.example.org/telegram", None),
    ("WEBHOOK_URL", "bot.example.net/hook", None),
    ("WEBHOOK_URL", "http://bot.example.org/telegram", None),  # Telegram posts to https only
    ("WEBHOOK_URL", "https://bot.example.org:9000/telegram", None),  # … and to 443, 80, 88 or 8443
    ("WEBHOOK_URL", "https://bot.example.org/telegram?x=1", None),
    (
        "LISTEN",
        "not an address!",
        "must be an IP address or a host name, e.g. 127.0.0.1 or 0.0.0.0 (got 'not an address!')",
    ),
    ("PORT", "0", "must be a whole number from 1 to 65535 (got '0')"),
    ("PORT", "70000", None),
    ("PORT", "abc", "must be a whole number from 1 to 65535 (got 'abc')"),
    ("SECRET_TOKEN", "has a space", None),
    ("SECRET_TOKEN", "x" * 257, None),
    ("METRICS_PORT", "65536", None),
    ("LOG_LEVEL", "LOUD", "must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL (got 'LOUD')"),
    ("COMPUTER_MOVE_CAP", "0", None),
    ("DEFAULT_TURN_SECONDS", "0", "must be whole seconds from 30 to 2592000 (30 days), or none (got '0')"),
    ("DEFAULT_TURN_SECONDS", "-1", None),
    ("DEFAULT_TURN_SECONDS", "24h", None),
    ("DEFAULT_TURN_SECONDS", "99999999999999", None),
    ("SWEEP_SECONDS", "-5", "must be seconds from 0.1 to 3600 (got '-5')"),
    ("SWEEP_SECONDS", "0", None),
    ("SWEEP_SECONDS", "inf", None),
    ("SWEEP_SECONDS", "nan", None),
    ("GRACE_FRACTION", "1.5", "must be a share from 0 to 1, e.g. 0.1 (got '1.5')"),
    ("GRACE_FRACTION", "-0.1", None),
    ("GRACE_MIN_SECONDS", "-1", None),
    ("NUDGE_INTERVAL_SECONDS", "-1", None),
    ("LOBBY_EXPIRY_DAYS", "0", "must be whole days from 1 to 365 (got '0')"),
    ("PAUSED_EXPIRY_DAYS", "0", None),
    ("OUTBOX_LEASE_SECONDS", "0", None),
    ("OUTBOX_SWEEP_SECONDS", "0", None),
    ("SEND_PER_SECOND", "0", None),
    ("GROUP_SENDS_PER_MINUTE", "-1", None),
    ("PRIVATE_SENDS_PER_SECOND", "inf", None),
    ("TABLE_EDIT_SECONDS", "-1", None),
]
SECRET_SHAPED = {"TELEGRAM_BOT_TOKEN", "TELEGRAM_API_URL", "DATABASE_URL", "WEBHOOK_URL", "SECRET_TOKEN"}
COMMANDS = [
    ["config"],
    ["run"],
    ["migrate"],
    ["health"],
    ["ratings"],
    ["export", "1"],
    ["backup", "copy.db"],
    ["restore", "copy.db"],
]


@pytest.fixture
def clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """No setting from the environment the tests run in, no .env, the database in a folder of its own."""
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}")
    monkeypatch.setenv("TELEGRAM_API_URL", "http://127.0.0.1:9/bot")  # nothing listens: a `run` let through stops
    return monkeypatch


def refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> list[str]:
    assert main(argv) == 2
    _, err = capsys.readouterr()
    assert "Traceback" not in err
    return err.strip().splitlines()


def test_every_setting_has_a_wrong_value_here() -> None:
    assert {name for name, _, _ in BAD} == {name.upper() for name in Settings.model_fields}


@pytest.mark.parametrize("command", ["config", "run"])
@pytest.mark.parametrize(("name", "value", "reason"), BAD, ids=[f"{n}={v[:30]}" for n, v, _ in BAD])
def test_a_wrong_value_is_refused_in_one_line_naming_the_setting(
    clean: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    command: str,
    name: str,
    value: str,
    reason: str | None,
) -> None:
    clean.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    if name == "WEBHOOK_URL":
        clean.delenv("TELEGRAM_API_URL")  # Telegram's, whose rules a webhook URL must follow
    clean.setenv(name, value)
    (line,) = refused(capsys, [command])
    assert line.startswith(f"shithead-bot: {name}: ")
    if reason is not None:
        assert line == f"shithead-bot: {name}: {reason}"
    if name in SECRET_SHAPED:
        assert value.strip() not in line
    assert TOKEN not in line
    assert not (tmp_path / "bot.db").exists()  # refused before the database was touched


@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(argv) for argv in COMMANDS])
def test_every_command_that_reads_the_settings_refuses_a_wrong_one(
    clean: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    clean.setenv("LOG_LEVEL", "LOUD")
    assert refused(capsys, argv) == [
        "shithead-bot: LOG_LEVEL: must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL (got 'LOUD')"
    ]


def test_a_wrong_option_is_refused_like_a_wrong_variable(
    clean: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert refused(capsys, ["run", "--token", TOKEN, "--port", "0"]) == [
        "shithead-bot: PORT: must be a whole number from 1 to 65535 (got 0)"
    ]


def test_each_wrong_setting_has_its_line(clean: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    clean.setenv("LOG_LEVEL", "LOUD")
    clean.setenv("SWEEP_SECONDS", "-5")
    clean.setenv("SECRET_TOKEN", "not secret enough!")
    lines = refused(capsys, ["config"])
    assert [line.split(":")[1].strip() for line in lines] == ["SECRET_TOKEN", "LOG_LEVEL", "SWEEP_SECONDS"]
    assert not any("not secret enough" in line for line in lines)


def test_a_value_that_looks_like_the_token_is_not_repeated(
    clean: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clean.setenv("LOG_LEVEL", TOKEN)  # pasted into the wrong line
    (line,) = refused(capsys, ["config"])
    assert line == "shithead-bot: LOG_LEVEL: must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL"


def test_a_wrong_value_in_the_env_file_is_refused_too(
    clean: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / ".env").write_text("SWEEP_SECONDS=-5\n")
    assert refused(capsys, ["config"]) == ["shithead-bot: SWEEP_SECONDS: must be seconds from 0.1 to 3600 (got '-5')"]


GOOD = {
    "TELEGRAM_BOT_TOKEN": f" {TOKEN} ",
    "TELEGRAM_API_URL": "http://127.0.0.1:8081",
    "WEBHOOK_URL": "http://bot.example.org:9000/telegram",  # a self-hosted Bot API may post to http, any port
    "LISTEN": "::1",
    "PORT": "65535",
    "SECRET_TOKEN": "A-long_random-string-0123456789",
    "METRICS_PORT": "",  # empty: unset
    "LOG_LEVEL": "warning",
    "COMPUTER_MOVE_CAP": "1",
    "DEFAULT_TURN_SECONDS": "none",
    "SWEEP_SECONDS": "0.5",
    "GRACE_FRACTION": "0",
    "GRACE_MIN_SECONDS": "0",
    "NUDGE_INTERVAL_SECONDS": "0",
    "LOBBY_EXPIRY_DAYS": "365",
    "PAUSED_EXPIRY_DAYS": "1",
    "OUTBOX_LEASE_SECONDS": "2",
    "OUTBOX_SWEEP_SECONDS": "3600",
    "SEND_PER_SECOND": "0.5",
    "GROUP_SENDS_PER_MINUTE": "600",
    "PRIVATE_SENDS_PER_SECOND": "20",
    "TABLE_EDIT_SECONDS": "0",
}


def test_a_good_configuration_still_passes(clean: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for name, value in GOOD.items():
        clean.setenv(name, value)
    assert main(["config"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert "LOG_LEVEL=WARNING  (env)" in lines
    assert "DEFAULT_TURN_SECONDS=  (env)" in lines
    assert "METRICS_PORT=  (env)" in lines
    assert "TELEGRAM_API_URL=http://127.0.0.1:8081/bot  (env)" in lines
    assert "LISTEN=::1  (env)" in lines


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("WEBHOOK_URL", "https://bot.example.org/telegram"),
        ("WEBHOOK_URL", "https://bot.example.org:8443/telegram/"),
        ("WEBHOOK_URL", "https://203.0.113.5:88"),
        ("LISTEN", "0.0.0.0"),
        ("LISTEN", "localhost"),
        ("LISTEN", "bot-1.internal"),
        ("DATABASE_URL", "postgres://bot:p%40ss@db:5433/games?sslmode=require"),
        ("DATABASE_URL", "sqlite:///shithead.db"),
        ("DEFAULT_TURN_SECONDS", "30"),
        ("DEFAULT_TURN_SECONDS", "OFF"),
        ("SECRET_TOKEN", ""),
        ("LOG_LEVEL", "Debug"),
    ],
)
def test_a_good_value_passes(
    clean: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str, value: str
) -> None:
    clean.setenv(name, value)
    assert main(["config"]) == 0, capsys.readouterr().err


def test_the_default_turn_time_none_means_no_turn_time(clean: pytest.MonkeyPatch) -> None:
    clean.setenv("DEFAULT_TURN_SECONDS", "none")
    assert Settings().default_turn_seconds is None


def test_run_with_a_wrong_log_level_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """What the report met: ``LOG_LEVEL=LOUD shithead-bot run`` ended in ``ValueError: Unknown level``."""
    env = {"TELEGRAM_BOT_TOKEN": TOKEN, "LOG_LEVEL": "LOUD", "DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}"}
    done = cli("run", env=env, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "shithead-bot: LOG_LEVEL: must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL (got 'LOUD')"
    ]
    assert not (tmp_path / "bot.db").exists()


def test_an_env_file_that_is_not_utf8_is_refused_in_one_line(
    clean: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / ".env").write_bytes(b"LOG_LEVEL=\xff\n")
    assert refused(capsys, ["config"]) == ["shithead-bot: .env: not UTF-8 text (byte 0xff at position 10)"]


def test_a_long_wrong_value_is_cut_short(clean: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    clean.setenv("LISTEN", "x" * 300)
    (line,) = refused(capsys, ["config"])
    assert line.endswith(f"(got '{'x' * 60}…')")
