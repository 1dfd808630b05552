"""The layers, read from the source with ``ast``: no import circle anywhere, dependencies point one
way (DESIGN.md), Telegram stays in ``shithead_bot/telegram`` and reaches the database only through
the service, and no game status or phase is compared as a string literal outside its enum."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from enum import Enum
from pathlib import Path

import persistence.models
from engine import Phase
from shithead_bot.service import Actor, GameStatus, status

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "persistence", "shithead_bot")
LITERALS = {str(s) for s in GameStatus} | {str(p) for p in Phase}


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The project modules (and third-party top-level names) a module imports at its top level or
    inside functions."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            yield base
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    yield f"{base}.{alias.name}"


def graph() -> dict[str, set[str]]:
    known = modules()
    return {
        name: {target for target in imports(name, path, known) if target in known and target != name}
        for name, path in known.items()
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def _is_package_init(module: str, edges: dict[str, set[str]]) -> bool:
    return any(other.startswith(module + ".") for other in edges)


def test_no_import_circle() -> None:
    edges = graph()
    # A package's __init__ re-exporting its own modules is not a circle between modules.
    inner = {
        m: {t for t in ts if not (_is_package_init(t, edges) and m.startswith(t + "."))} for m, ts in edges.items()
    }
    assert cycles(inner) == []


def test_dependencies_point_one_way() -> None:
    known = modules()
    for name, path in known.items():
        targets = set(imports(name, path, known))
        project = {t.split(".")[0] for t in targets} & set(PACKAGES)
        if name.startswith("engine"):
            assert project <= {"engine"}, (name, project)
        if name.startswith("persistence"):
            assert project <= {"persistence"}, (name, project)


def test_the_service_owns_the_status_enums() -> None:
    """GameStatus and Actor are defined in the service; persistence stores their values as plain strings
    and defines no enum of its own."""
    assert GameStatus.__module__ == Actor.__module__ == "shithead_bot.service.status"
    for name, value in vars(persistence.models).items():
        assert name not in {"GameStatus", "Actor"}, name
        assert not (isinstance(value, type) and issubclass(value, Enum)), name
    for name, path in modules().items():
        if name.startswith("persistence"):
            tree = ast.parse(path.read_text())
            enums = [n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and _is_enum(n)]
            assert enums == [], (name, enums)


def _is_enum(node: ast.ClassDef) -> bool:
    return any(isinstance(b, ast.Name | ast.Attribute) and ast.unparse(b).endswith("Enum") for b in node.bases)


def test_the_stored_status_values_equal_the_service_enum() -> None:
    """The plain strings persistence keeps for the schema (the partial index of open games) and the column
    defaults are values of the service's enums, so they cannot drift."""
    assert tuple(str(s) for s in status.OPEN_STATUSES) == persistence.models.OPEN_STATUSES
    assert set(persistence.models.OPEN_STATUSES) <= {str(s) for s in GameStatus}
    assert GameStatus(persistence.models.Game().status) is GameStatus.LOBBY
    assert Actor(persistence.models.Move(game_id=1, seq=0, seat=0, move="x").actor) is Actor.HUMAN


def test_telegram_types_stay_in_the_telegram_adapter() -> None:
    known = modules()
    for name, path in known.items():
        if name.startswith("shithead_bot.telegram"):
            continue
        third_party = {t.split(".")[0] for t in imports(name, path, known)}
        assert "telegram" not in third_party, name


def test_the_telegram_adapter_reaches_the_database_only_through_the_service() -> None:
    """No module under ``shithead_bot/telegram`` imports ``persistence``: the service re-exports what
    a front end needs (its own GameStatus, persistence's utcnow) and hands out its own values, never repository rows."""
    known = modules()
    found = []
    for name, path in known.items():
        if name.startswith("shithead_bot.telegram"):
            found += [f"{name}: {t}" for t in imports(name, path, known) if t.split(".")[0] == "persistence"]
    assert found == []


def test_the_service_hands_out_no_session_or_row() -> None:
    """Nothing outside the service and persistence imports the ORM tables of a game in play."""
    known = modules()
    for name, path in known.items():
        if name.startswith(("shithead_bot.service", "persistence")):
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "persistence.models":
                rows = {a.name for a in node.names} - {"utcnow"}
                assert not rows, (name, rows)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sqlalchemy.ext.asyncio"):
                raise AssertionError(f"{name} opens database sessions")


def test_no_status_or_phase_literal_is_compared() -> None:
    """``status == "playing"`` or ``phase.value == "swap"``: use GameStatus and Phase instead."""
    found = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                values = [node.left, *node.comparators]
                constants = [v for v in values if isinstance(v, ast.Constant)]
                constants += [e for v in values if isinstance(v, ast.Tuple | ast.List | ast.Set) for e in v.elts]
                if any(isinstance(c, ast.Constant) and c.value in LITERALS for c in constants):
                    found.append(f"{name}:{node.lineno}")
    assert found == []


def test_the_sender_calls_no_use_case() -> None:
    """Plan, then send: the sender (``telegram/delivery/``) gets a plan and hands back a report; it
    never calls the service (no GameService, no call named like one of its use cases, no module that
    opens a session)."""
    from shithead_bot.service.facade import GameService

    use_cases = {name for name in vars(GameService) if not name.startswith("_")}
    sessions = {"facade", "unit", "queries", "messages", "chats", "outbox"}
    for path in sorted((ROOT / "shithead_bot" / "telegram" / "delivery").glob("*.py")):
        where = path.name
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("shithead_bot.service"):
                names = {a.name for a in node.names}
                assert "GameService" not in names, f"{where} imports the facade"
                assert node.module.rpartition(".")[2] not in sessions - {"outbox"}, node.module
                assert not names & sessions, names
                if node.module == "shithead_bot.service.outbox":
                    assert names <= {"PartialDelivery"}, names
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                assert node.func.attr not in use_cases, f"{where}:{node.lineno} calls {node.func.attr}"
            if isinstance(node, ast.Attribute):
                assert node.attr != "service", f"{where}:{node.lineno} reaches for a service"


def test_the_step_planner_is_pure() -> None:
    """What the sender will do is a value: the planner and its steps import nothing that talks to
    Telegram, a database, a clock or the event loop."""
    io = ("telegram", "sqlalchemy", "asyncio", "time", "datetime", "persistence", "shithead_bot.telegram.botapi")
    allowed = ("shithead_bot.telegram.render", "shithead_bot.telegram.delivery.steps")
    for name in ("planner", "steps"):
        tree = ast.parse((ROOT / "shithead_bot" / "telegram" / "delivery" / f"{name}.py").read_text())
        for node in ast.walk(tree):
            modules_named = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for module in modules_named:
                if module.startswith(allowed):
                    continue
                assert not module.startswith(io), f"delivery/{name}.py imports {module}"


def test_handlers_hold_no_text() -> None:
    """Every user-facing text lives under ``shithead_bot/telegram/render``: no handler marks a
    string for translation (handlers answer, delegate and send what render wrote)."""
    found = []
    for name, path in modules().items():
        if not name.startswith("shithead_bot.telegram.handlers"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if called in {"_", "gettext", "ngettext", "_n", "N_"} and isinstance(node.args[0].value, str):
                    found.append(f"{name}:{node.lineno}")
    assert found == []


def test_notice_payloads_are_read_typed() -> None:
    """A notice's payload is a typed value (``notices.py`` converts it to and from the outbox row's
    JSON, in one place): a notice has no ``data`` dict, and nothing else reads a ``.data`` or a
    ``.payload`` by string key (``.data`` is only a Telegram callback query's)."""
    from dataclasses import fields

    from shithead_bot.service import Notice

    assert "data" not in {f.name for f in fields(Notice)}
    found = []
    for name, path in modules().items():
        if name == "shithead_bot.service.notices":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            target = None
            if isinstance(node, ast.Subscript):
                target = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
                target = node.func.value
            pydantics = isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
            if pydantics and target.value.id == "info":  # type: ignore[union-attr]
                continue  # a pydantic validator's ValidationInfo.data: the settings read so far
            if isinstance(target, ast.Attribute) and target.attr in ("data", "payload"):
                found.append(f"{name}:{node.lineno} reads .{target.attr} by key")
            by_query = (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("query", "info")  # a callback query's data, a validator's info
            )
            if isinstance(node, ast.Attribute) and node.attr == "data" and not by_query:
                found.append(f"{name}:{node.lineno} reads .data")
    assert found == []


MOVERS = frozenset({"settle", "deal", "play_computers"})  # where computers (and stand-ins) move
# where a unit of work writes: a transaction, a session's writes, SQL's insert/update/delete, autocommit
WRITES = "<writes>"
WRITERS = frozenset({WRITES})
NOTIFIERS = frozenset({"notify", "announce"})
KINDS = frozenset(
    {"plays", "use_case", "write", "query"}
)  # the kinds of use case (service/kinds.py)  # where a use case writes a notice


def service_calls() -> dict[str, set[str]]:
    """Each service (and repository) function's name, and the names it calls (a call graph by name,
    module-wide)."""
    graph: dict[str, set[str]] = {}
    paths = [*(ROOT / "shithead_bot" / "service").glob("*.py"), *(ROOT / "persistence" / "repo").glob("*.py")]
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                called = graph.setdefault(node.name, set())
                for call in ast.walk(node):
                    if isinstance(call, ast.Call):
                        func = call.func
                        if isinstance(func, ast.Name):
                            called.add(func.id)
                        elif isinstance(func, ast.Attribute) and _ours(func.value):
                            called.add(func.attr)
                        if _writes(func):
                            called.add(WRITES)
    return graph


def _ours(receiver: ast.expr) -> bool:
    """A receiver whose methods are the project's: a module, the core, a game in a transaction, a
    session (not a statement being built, whose ``.join`` is not :func:`lobby.join`)."""
    name = receiver.id if isinstance(receiver, ast.Name) else getattr(receiver, "attr", "")
    modules_named = {p.stem for p in (ROOT / "shithead_bot" / "service").glob("*.py")} | {"repo", "playing"}
    return name in modules_named | {"core", "tx", "self", "cls", "session", "service", "thinker"}


def _writes(func: ast.expr) -> bool:
    """A call that writes: SQL's insert/update/delete, a session's add/commit, a transaction
    (``core.transaction()``, ``session.begin()``, ``core.commit(tx)``), an autocommit connection."""
    if isinstance(func, ast.Name):
        return func.id in {"insert", "update", "delete"}
    if not isinstance(func, ast.Attribute):
        return False
    receiver = ast.unparse(func.value)
    if func.attr in {"transaction", "connection", "begin"}:
        return True
    return func.attr in {"add", "commit", "delete"} and receiver.endswith(("session", "core"))


def reaches(graph: dict[str, set[str]], name: str, seen: set[str] | None = None, ends: frozenset[str] = MOVERS) -> bool:
    seen = set() if seen is None else seen
    if name in ends:
        return True
    seen.add(name)
    return any(reaches(graph, callee, seen, ends) for callee in graph.get(name, set()) - seen)


def facade_kinds() -> dict[str, str]:
    """Each use case the facade lists (by its function's name), and its kind."""
    tree = ast.parse((ROOT / "shithead_bot" / "service" / "facade.py").read_text())
    listed = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            wrapper, targets = node.value.func, node.value.args
            kind = getattr(wrapper, "id", "")
            if kind in KINDS and len(targets) == 1 and isinstance(targets[0], ast.Attribute):
                listed[targets[0].attr] = kind
    return listed


def test_only_use_cases_where_computers_move_rerun_after_thinking() -> None:
    """The facade lists a use case as ``plays`` (the think-first rerun) exactly when computers can move
    in it: elsewhere the rerun is dead weight, and a missing one would let a search run in the
    transaction."""
    graph = service_calls()
    listed = facade_kinds()
    assert listed["play"] == "plays"
    assert listed["record_game_messages"] == "write"
    wrong = {
        name: wrapper
        for name, wrapper in listed.items()
        if wrapper in ("plays", "use_case") and (wrapper == "plays") != reaches(graph, name)
    }
    assert not wrong, wrong


LONGEST_FUNCTION = 60  # lines, the signature and docstring included


def test_every_function_fits_a_screen() -> None:
    """No function over 60 lines in the engine, the persistence layer or the bot (migrations aside)."""
    long = [
        f"{path.relative_to(ROOT)}::{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for path in modules().values()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (node.end_lineno or 0) - node.lineno + 1 > LONGEST_FUNCTION
    ]
    assert long == []


def test_each_use_case_is_listed_as_what_it_does() -> None:
    """A ``query`` writes nothing (no transaction, no session write, no autocommit statement); a
    ``write`` writes but tells nobody (no notice) and moves no computer; a ``use_case`` or a
    ``plays`` writes notices."""
    graph = service_calls()
    listed = facade_kinds()
    assert listed["reserve_send"] == listed["hold_sends"] == "write"
    wrong = {}
    for name, kind in listed.items():
        writes = reaches(graph, name, ends=WRITERS)
        tells = reaches(graph, name, ends=NOTIFIERS)
        moves = reaches(graph, name)
        expected = "query" if not writes else "write" if not tells else "plays" if moves else "use_case"
        if kind != expected:
            wrong[name] = f"{kind}, but it does what a {expected} does"
    assert not wrong, wrong


def test_every_module_of_the_bot_is_a_few_hundred_lines() -> None:
    """A newcomer reads a module of ``shithead_bot/`` in one sitting: no more than 450 lines."""
    big = [
        f"{name}: {lines} lines"
        for name, path in modules().items()
        if name.startswith("shithead_bot") and (lines := len(path.read_text().splitlines())) > 450
    ]
    assert big == []


def test_the_unit_of_work_has_one_concern_per_module() -> None:
    """Retry on a database fault (faults), the rerun after thinking (thinking), the kinds of use
    case (kinds) and the transaction (unit) each live in their own module."""
    from shithead_bot.service import faults, kinds, thinking, unit

    assert faults.retry_transient.__module__ == "shithead_bot.service.faults"
    assert thinking.think_first.__module__ == "shithead_bot.service.thinking"
    assert {kinds.plays.__module__, kinds.query.__module__} == {"shithead_bot.service.kinds"}
    assert not hasattr(unit, "retry_transient")
    assert not hasattr(unit, "think_first")


def test_the_facade_holds_a_core_and_front_ends_never_reach_into_it() -> None:
    """GameService composes a Core (it is not one); the front ends (``telegram``, ``timers``, the
    command lines, ``bench``) call use cases and read plain properties, never a session, a
    transaction or a loaded game."""
    from shithead_bot.service.facade import GameService
    from shithead_bot.service.unit import Core

    assert not issubclass(GameService, Core)
    inner = {"core", "sessions", "transaction", "load", "read", "commit"}
    found = []
    paths = [
        p for n, p in modules().items() if n.startswith("shithead_bot") and not n.startswith("shithead_bot.service")
    ]
    for path in [*paths, *(ROOT / "bench").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in inner and "service" in ast.unparse(node.value):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node)}")
    assert found == []


def test_the_read_model_of_a_game_holds_no_deal_secret() -> None:
    """Privacy: ``GameInfo`` (what every renderer gets) has no seed or salt; a game's snapshot
    carries them only once it is over (``Revealed``), and nothing under ``shithead_bot/telegram``
    reads a seed or salt but from that value. Export and verification read them from the record."""
    from dataclasses import fields

    from persistence.models import Game
    from shithead_bot.service.snapshot import GameInfo, Revealed

    assert not {f.name for f in fields(GameInfo)} & {"seed", "salt", "deal_salt"}
    assert Revealed.of(Game(chat_id=1, status="playing", seed=7, deal_salt="s")) is None
    assert Revealed.of(Game(chat_id=1, status="finished", seed=7, deal_salt="s")) == Revealed(7, "s")
    found = []
    for name, path in modules().items():
        if not name.startswith("shithead_bot.telegram"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            secret = isinstance(node, ast.Attribute) and node.attr in {"seed", "salt", "deal_salt"}
            if secret and not ast.unparse(node.value).endswith("revealed"):  # type: ignore[attr-defined]
                found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    assert found == []
