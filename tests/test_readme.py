"""The README tells the operator everything ``shithead-bot config`` lists, and every command."""

from __future__ import annotations

import re
from pathlib import Path

from shithead_bot.cli import parser
from shithead_bot.config import Settings

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def section(title: str) -> str:
    start = README.index(f"\n{title}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end != -1 else None]


def table_names(text: str, pattern: str) -> set[str]:
    """The backticked names in the first cells of a section's table rows."""
    return {name for row in re.findall(r"^\| ([^|]+)\|", text, re.MULTILINE) for name in re.findall(pattern, row)}


def test_every_setting_config_lists_is_in_the_configuration_table() -> None:
    documented = table_names(section("## Configuration"), r"`([A-Z_]+)`")
    settings = {name.upper() for name in Settings.model_fields}
    assert settings - documented == set()
    assert documented - settings == set()


def test_every_command_is_in_the_commands_table() -> None:
    documented = table_names(section("### The `shithead-bot` commands"), r"`([a-z]+)[ `]")
    commands = set(parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    assert commands == documented
