"""The shithead-bot command: play in the terminal, migrate the database, run the bot; and for
operators backup, export, replay, ratings, config and health."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence

from pydantic import ValidationError

from engine import GAME_KINDS, PRESETS, AnyRules, EngineError, GameKind, NeighborRules, preset
from engine.ai import ALIASES, DEFAULT_LEVEL, LEVELS
from engine.rules import DEFAULT_PRESET
from shithead_bot import cli_data, cli_ops
from shithead_bot.config import Settings, SettingsFileError, load_settings, setting_problems
from shithead_bot.names import DEFAULT_NAME

DESCRIPTION = "Shithead and Shit On Your Neighbor: play in the terminal, run the Telegram bot, or migrate its database."


def build_rules(game: str, preset_name: str | None, rules: Sequence[str]) -> AnyRules:
    """The rules a command line asks for: a preset (or Neighbor) plus ``KEY=VALUE`` house rules."""
    base: AnyRules = NeighborRules() if game == GameKind.NEIGHBOR else preset(preset_name or DEFAULT_PRESET)
    changes: dict[str, str] = {}
    for item in rules:
        key, sep, value = item.partition("=")
        if not sep:
            raise EngineError(f"--rule {item!r}: expected KEY=VALUE, e.g. four_burns=off or 8=skip")
        changes[key.strip()] = value.strip()
    return base.with_rules(changes)


def _play_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("play", help="play a game in the terminal against computer players (no token needed)")
    p.add_argument("--game", choices=GAME_KINDS, default="shithead")
    p.add_argument("--preset", choices=sorted(PRESETS), default=None, help=f"default {DEFAULT_PRESET}")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE", help="a house rule, repeatable")
    p.add_argument("--seats", type=int, default=3, help="players including you (default 3)")
    p.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    p.add_argument(
        "--level",
        type=lambda word: ALIASES.get(word.lower(), word.lower()),  # the older names still work
        choices=LEVELS,
        default=DEFAULT_LEVEL,
        help=f"computer players' level, weakest first (default {DEFAULT_LEVEL})",
    )
    p.add_argument("--auto", action="store_true", help="computer players in every seat; print the whole game")
    p.add_argument("--name", default=DEFAULT_NAME, help=f"your name at the table (default: {DEFAULT_NAME})")


def _run_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("run", help="run the Telegram bot (polling, or a webhook with --webhook-url)")
    p.add_argument("--token", help="bot token (default: $TELEGRAM_BOT_TOKEN)")
    p.add_argument("--api-url", help="Bot API base URL (default: $TELEGRAM_API_URL or Telegram's)")
    p.add_argument("--database-url", help="default: $DATABASE_URL or sqlite+aiosqlite:///shithead.db")
    p.add_argument("--webhook-url", help="public URL Telegram posts updates to; polling if not given")
    p.add_argument("--listen", help="address to listen on (default 0.0.0.0 with a webhook, 127.0.0.1 when polling)")
    p.add_argument("--port", type=int, help="webhook mode: port to listen on (default 8443)")
    p.add_argument("--secret-token", help="webhook mode: the X-Telegram-Bot-Api-Secret-Token to require")
    p.add_argument("--metrics-port", type=int, help="polling mode: serve /healthz and /metrics on this port")
    p.add_argument("--no-migrate", action="store_true", help="refuse to start on an out-of-date schema")


def _migrate_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("migrate", help="bring the database schema up to date")
    p.add_argument("--database-url", help="default: $DATABASE_URL or sqlite+aiosqlite:///shithead.db")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="shithead-bot", description=DESCRIPTION)
    sub = p.add_subparsers(dest="command", required=True)
    _play_parser(sub)
    _run_parser(sub)
    _migrate_parser(sub)
    cli_data.add_parsers(sub)
    cli_ops.add_parsers(sub)
    return p


def _play(args: argparse.Namespace) -> int:
    from shithead_bot.terminal import play

    if args.game == GameKind.NEIGHBOR and args.preset:
        raise EngineError("--preset is for Shithead; Neighbor takes --rule lives=4")
    rules = build_rules(args.game, args.preset, args.rule)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    return play(args.game, rules, args.seats, seed, args.level, args.auto, args.name)


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {
        "telegram_bot_token": getattr(args, "token", None),
        "telegram_api_url": getattr(args, "api_url", None),
        "database_url": getattr(args, "database_url", None),
        "webhook_url": getattr(args, "webhook_url", None),
        "listen": getattr(args, "listen", None),
        "port": getattr(args, "port", None),
        "secret_token": getattr(args, "secret_token", None),
        "metrics_port": getattr(args, "metrics_port", None),
    }
    return load_settings(**{k: v for k, v in overrides.items() if v is not None})


def _migrate(args: argparse.Namespace) -> int:
    from persistence.migrate import current_revision, upgrade
    from shithead_bot.runner import database_problem, fail

    settings = _settings(args)
    try:
        before = current_revision(settings.database_url)
        upgrade(settings.database_url)
        after = current_revision(settings.database_url)
    except Exception as exc:  # a broken URL or a server that does not answer: one line, like `run`
        return fail(database_problem(exc))
    if before == after:
        print(f"database already at {after}, the newest revision: nothing to do")
    else:
        print(f"database upgraded from {before or 'nothing'} to {after}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from shithead_bot.runner import run

    return run(_settings(args), migrate=not args.no_migrate)


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    commands = {
        "play": _play,
        "run": _run,
        "migrate": _migrate,
        **cli_data.commands(_settings),
        **cli_ops.commands(_settings),
    }
    try:
        return commands[args.command](args)
    except EngineError as exc:
        print(f"shithead-bot: {exc}", file=sys.stderr)
        return 2
    except SettingsFileError as exc:
        print(f"shithead-bot: {exc}", file=sys.stderr)
        return 2
    except ValidationError as exc:  # settings that are not what they should be, e.g. PORT=abc
        for line in setting_problems(exc):
            print(f"shithead-bot: {line}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
