"""No blocking call runs on the event loop.

A child process run with `subprocess.run`, a `time.sleep` or a `requests` call inside
`async def` stops every other command, timer and delivery until it returns, and a hung one
hangs the bot. Two guards:

- ruff's ASYNC rules (selected in pyproject.toml, run by CI) flag such a call written
  inside `async def`; the first test shows the project's configuration catches each kind;
- ruff does not follow a call into a plain function, so :func:`blocking_calls` does: a
  synchronous function of the bot or the simulator that blocks (itself or through another
  one it calls, across modules) must not be called from `async def` either. Handing it to a
  thread (`asyncio.to_thread(run_child, ...)`) passes it without calling it, so that is fine.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {"bot": ROOT / "bot", "cogs": ROOT / "cogs", "db": ROOT / "db"}
SOURCES["acwc_sim"] = ROOT / "sim" / "acwc_sim"
BLOCKING = {
    *(f"subprocess.{name}" for name in ("run", "call", "check_call", "check_output", "Popen")),
    *(f"os.{name}" for name in ("system", "popen", "wait", "waitpid")),
    "time.sleep",
    *(f"requests.{verb}" for verb in ("get", "post", "put", "patch", "delete", "head", "request")),
    "urllib.request.urlopen",
}

PLANTED = """
import os
import subprocess
import time
from time import sleep as nap

import requests


def run_child() -> bytes:
    return subprocess.check_output(["true"])


def indirect() -> bytes:
    return run_child()


class Service:
    def _pair(self) -> None:
        os.system("true")

    async def on_finished(self) -> None:
        self._pair()
        indirect()

    async def fine(self) -> None:
        import asyncio

        await asyncio.to_thread(run_child)

        def later() -> None:
            time.sleep(1)


async def handler() -> None:
    subprocess.run(["true"], check=True)
    nap(1)
    requests.get("http://example.invalid", timeout=1)
"""


@dataclass
class _Module:
    name: str
    tree: ast.Module
    aliases: dict[str, str] = field(default_factory=dict)  # local name -> qualified


def _dotted(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return [*head, node.attr] if head else None
    return None


def _own_calls(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Call]:
    """Calls made by the function itself: a nested def or lambda runs some other time."""
    found: list[ast.Call] = []
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(node, ast.Call):
            found.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return found


def _aliases(module: _Module) -> None:
    package = module.name.rpartition(".")[0]
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.partition(".")[0]
                module.aliases[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                module.aliases[alias.asname or alias.name] = f"{base}.{alias.name}"


def _functions(
    module: _Module,
) -> dict[str, tuple[str | None, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every module-level function and method, by qualified name, with its class."""
    found: dict[str, tuple[str | None, ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for node in module.tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[f"{module.name}.{node.name}"] = (None, node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"{module.name}.{node.name}.{item.name}"] = (node.name, item)
    return found


def _target(module: _Module, owner: str | None, call: ast.Call, local: set[str]) -> str | None:
    """The qualified name a call reaches: a module-level function, `self.`/`cls.` method, or
    an imported name (`subprocess.run`, `schema.migrate_in_child`)."""
    path = _dotted(call.func)
    if not path:
        return None
    if owner and len(path) == 2 and path[0] in ("self", "cls"):
        return f"{module.name}.{owner}.{path[1]}"
    if len(path) == 1 and f"{module.name}.{path[0]}" in local:
        return f"{module.name}.{path[0]}"
    head = module.aliases.get(path[0])
    return ".".join([head, *path[1:]]) if head else None


def blocking_calls(sources: dict[str, str]) -> list[str]:
    """`module:line: async function calls what`, for each blocking call reached from
    `async def`, given each module's source by its dotted name."""
    modules = [_Module(name, ast.parse(text)) for name, text in sources.items()]
    functions: dict[str, tuple[_Module, str | None, ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for module in modules:
        _aliases(module)
        for qualified, (owner, node) in _functions(module).items():
            functions[qualified] = (module, owner, node)
    local = set(functions)
    calls = {
        qualified: [(call, _target(module, owner, call, local)) for call in _own_calls(node)]
        for qualified, (module, owner, node) in functions.items()
    }
    blocking = set(BLOCKING)
    changed = True
    while changed:  # a plain function that calls a blocking one blocks too
        changed = False
        for qualified, (_, _, node) in functions.items():
            if qualified in blocking or isinstance(node, ast.AsyncFunctionDef):
                continue
            if any(target in blocking for _, target in calls[qualified]):
                blocking.add(qualified)
                changed = True
    found: list[str] = []
    for qualified, (module, _, node) in functions.items():
        if isinstance(node, ast.AsyncFunctionDef):
            for call, target in calls[qualified]:
                if target in blocking:
                    found.append(f"{module.name}:{call.lineno}: {node.name} calls {target}")
    return sorted(found)


def project_sources() -> dict[str, str]:
    found: dict[str, str] = {}
    for package, folder in SOURCES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = (package, *path.relative_to(folder).with_suffix("").parts)
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path.read_text(encoding="utf-8")
    return found


def test_no_blocking_call_is_reached_from_async_code() -> None:
    assert blocking_calls(project_sources()) == []


def test_the_check_finds_blocking_calls_direct_and_through_plain_functions() -> None:
    assert blocking_calls({"planted": PLANTED}) == [
        "planted:23: on_finished calls planted.Service._pair",
        "planted:24: on_finished calls planted.indirect",
        "planted:36: handler calls subprocess.run",
        "planted:37: handler calls time.sleep",
        "planted:38: handler calls requests.get",
    ]


def test_the_check_follows_a_blocking_function_into_another_module() -> None:
    helper = "import subprocess\n\ndef pair() -> None:\n    subprocess.run(['true'])\n"
    caller = "from pkg import helper\n\nasync def finished() -> None:\n    helper.pair()\n"
    assert blocking_calls({"pkg.helper": helper, "pkg.events": caller}) == [
        "pkg.events:4: finished calls pkg.helper.pair"
    ]


def test_ruffs_async_rules_in_the_project_config_flag_each_kind(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(PLANTED)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "ruff", "check", "--config", str(ROOT / "pyproject.toml")),
            *("--no-cache", "--output-format", "json", str(planted)),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    flagged = {(f["location"]["row"], f["code"]) for f in json.loads(done.stdout)}
    assert {(36, "ASYNC221"), (37, "ASYNC251"), (38, "ASYNC210")} <= flagged
