"""The data commands of ``shithead-bot``: ``backup``, ``restore``, ``export``, ``replay``, ``verify``
and ``ratings``. Every read goes through the game service; every failure is one line and exit code
2 (``verify``: 1 when the game does not match its commitment or its log)."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from shithead_bot.config import Settings

if TYPE_CHECKING:
    from shithead_bot.service import GameService

Command = Callable[[argparse.Namespace], int]
SettingsOf = Callable[[argparse.Namespace], Settings]


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    url_help = "default: $DATABASE_URL or sqlite+aiosqlite:///shithead.db"
    p = sub.add_parser("backup", help="copy the database (SQLite); for PostgreSQL, print the pg_dump line")
    p.add_argument("file", type=Path, help="the new file to write")
    p.add_argument("--database-url", help=url_help)
    p = sub.add_parser(
        "restore", help="put a backup back (SQLite; stop the bot first); for PostgreSQL, print the pg_restore line"
    )
    p.add_argument("file", type=Path, help="a file written by `shithead-bot backup` (or pg_dump --format=custom)")
    p.add_argument("--database-url", help=url_help)
    p = sub.add_parser("export", help="print a game as JSON: rules, players, moves (the seed once it is over)")
    p.add_argument("game_id", type=int)
    p.add_argument("--database-url", help=url_help)
    p = sub.add_parser("replay", help="deal an exported game again, replay its moves and tell it in words")
    p.add_argument("file", type=Path, help="a file written by `shithead-bot export`")
    p = sub.add_parser("verify", help="check an exported game: its commitment, its deal and every move")
    p.add_argument("file", type=Path, help="a file written by `shithead-bot export` once the game is over")
    p = sub.add_parser("ratings", help="print the overall leaderboard; --rebuild recomputes every rating")
    p.add_argument("--rebuild", action="store_true", help="recompute the ratings from the finished games")
    p.add_argument("--chat", type=int, default=0, help="a chat's leaderboard instead (its id)")
    p.add_argument("--database-url", help=url_help)


def commands(settings_of: SettingsOf) -> dict[str, Command]:
    return {
        "backup": lambda args: _backup(settings_of(args), args.file),
        "restore": lambda args: _restore(settings_of(args), args.file),
        "export": lambda args: _with_service(settings_of(args), lambda s: _export(s, args.game_id)),
        "replay": lambda args: _replay(args.file),
        "verify": lambda args: _verify(args.file),
        "ratings": lambda args: _with_service(settings_of(args), lambda s: _ratings(s, args.rebuild, args.chat)),
    }


@asynccontextmanager
async def _opened(settings: Settings) -> AsyncIterator[GameService]:
    from shithead_bot.service import GameService as Service

    service = Service.connect(settings)
    try:
        yield service
    finally:
        await service.close()


def _with_service(settings: Settings, use: Callable[[GameService], Awaitable[list[str]]]) -> int:
    """Check the schema (creating nothing), run ``use`` with a service, print its lines."""
    from persistence.migrate import SchemaOutOfDateError, require_current
    from shithead_bot.runner import database_problem, fail
    from shithead_bot.service import ServiceError

    try:
        require_current(settings.database_url)

        async def run() -> list[str]:
            async with _opened(settings) as service:
                return await use(service)

        lines = asyncio.run(run())
    except (SchemaOutOfDateError, ServiceError) as exc:
        return fail(str(exc))
    except Exception as exc:  # a broken URL, a server that does not answer
        return fail(database_problem(exc))
    print("\n".join(lines))
    return 0


async def _export(service: GameService, game_id: int) -> list[str]:
    return [json.dumps(await service.export_game(game_id), ensure_ascii=False, indent=2)]


async def _ratings(service: GameService, rebuild: bool, chat_id: int) -> list[str]:
    if rebuild:
        rated = await service.rebuild_ratings()
        return [f"rated {rated} game" + ("" if rated == 1 else "s")]
    board = await service.chat_ratings(chat_id)
    if not board:
        return ["no rated games yet"]
    heading = "Overall ratings (best first):" if chat_id == 0 else f"Ratings in chat {chat_id} (best first):"
    return [heading] + [
        f"{n}. {r.name}: {r.ordinal:.1f} (μ {r.mu:.1f} ± {r.sigma:.1f}), {r.games} game{'' if r.games == 1 else 's'},"
        f" {r.losses} lost"
        for n, r in enumerate(board, 1)
    ]


def _backup(settings: Settings, file: Path) -> int:
    from persistence.backup import BackupError, backup
    from shithead_bot.runner import fail

    try:
        print(backup(settings.database_url, file))
    except BackupError as exc:
        return fail(str(exc))
    except Exception as exc:  # sqlite3 errors: a file that is not a database, a full disk
        return fail(f"backup failed: {type(exc).__name__}: {exc}".splitlines()[0])
    return 0


def _restore(settings: Settings, file: Path) -> int:
    from persistence.backup import BackupError, restore
    from shithead_bot.runner import fail

    try:
        print(restore(settings.database_url, file))
    except BackupError as exc:
        return fail(str(exc))
    except Exception as exc:  # sqlite3 errors: a database in use, a full disk
        return fail(f"restore failed: {type(exc).__name__}: {exc}".splitlines()[0])
    return 0


def _replay(file: Path) -> int:
    from shithead_bot.replay import ReplayError, load_export, replay_lines
    from shithead_bot.runner import fail

    try:
        lines = replay_lines(load_export(file))
    except ReplayError as exc:
        return fail(str(exc))
    except (KeyError, TypeError, ValueError) as exc:
        return fail(f"{file} is not a game export ({type(exc).__name__}: {exc})")
    print("\n".join(lines))
    return 0


def _verify(file: Path) -> int:
    """Every check in words; exit 0 when everything matches, 1 when something does not."""
    from shithead_bot.replay import GAME_TITLES, ReplayError, load_export
    from shithead_bot.runner import fail
    from shithead_bot.service.verification import check_export
    from shithead_bot.verify import verdict_lines

    try:
        verdict = check_export(load_export(file))
    except ReplayError as exc:
        return fail(str(exc))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return fail(f"{file} is not a game export ({type(exc).__name__}: {exc})")
    title = GAME_TITLES.get(verdict.kind, verdict.kind)
    heading = f"Game {verdict.game}: {title}, {len(verdict.names)} players: {', '.join(verdict.names)}"
    print("\n".join([heading, *verdict_lines(verdict)]))
    return 0 if verdict.ok else 1
