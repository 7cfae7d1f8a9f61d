"""The layer and feature rules of docs/ARCHITECTURE.md, checked on the source itself.

- No import circle: the graph of module-level imports (type-checking-only imports left out)
  has no cycle, and every module imports on its own in a fresh set of project modules.
- Layers point down: rules import only rules; db imports no bot code; a feature reaches
  another feature only through the shared packages (`matches`, `discipline`); no feature
  or core module imports the app; the bot never imports the simulator (`acwc_sim`, a
  distribution of its own: `acwc simulate` imports it when run, and says how to install it
  when it is missing).
- No module grows past the size where it usually does two jobs.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]
# Each top-level package and its folder: the bot's, and the simulator's (sim/, installed apart).
PACKAGES = {"bot": ROOT / "bot", "cogs": ROOT / "cogs", "db": ROOT / "db"}
PACKAGES["acwc_sim"] = ROOT / "sim" / "acwc_sim"
SIMULATOR = "acwc_sim"
# "console" is the championship's read model (snapshot, standings, stage entries): the web's
# public pages show the same tables `acwc standings` prints, read once (issue 33).
SHARED_FEATURES = {"matches", "discipline", "console"}
MAX_LINES = 500
# Modules allowed to be longer, each with its reason.
LONG_MODULES = {
    # discord.py's private APIs the harness needs stay in one module (a pinned minor version
    # of discord.py may move them; one file to fix then).
    "acwc_sim.harness": "private discord.py APIs in one place",
}
# The programs that build the whole bot: they may import the app and its wiring.
ENTRY_POINTS = {"bot.app", "bot.cli", "acwc_sim.run"}
# What the pure rules may read: each other, and the plain Lichess records they judge.
PURE_DATA = ("bot.rules", "bot.lichess.models")


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = (package, *path.relative_to(folder).with_suffix("").parts)
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _runtime_imports(path: Path, name: str) -> set[str]:
    """Module-level imports that run at import time (not under `if TYPE_CHECKING:`)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for child in ast.walk(node) if isinstance(node, ast.If | ast.Try) else [node]:
            if isinstance(child, ast.Import):
                found |= {alias.name for alias in child.names}
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - child.level + 1])
                    base = f"{base}.{child.module}" if child.module else base
                found.add(base)
                found |= {f"{base}.{alias.name}" for alias in child.names}
    return found


def graph() -> nx.DiGraph:
    mods = modules()
    g: nx.DiGraph = nx.DiGraph()
    for name, path in mods.items():
        g.add_node(name)
        for target in _runtime_imports(path, name):
            if target in mods and target != name:
                g.add_edge(name, target)
    return g


def test_there_is_no_import_circle() -> None:
    cycles = list(nx.simple_cycles(graph()))
    assert cycles == [], cycles


def test_every_module_imports_on_its_own() -> None:
    """Each module imported first, with no project module loaded before it."""
    names = sorted(modules())
    script = (
        "import importlib, sys\n"
        f"names = {names!r}\n"
        "failed = []\n"
        "for name in names:\n"
        f"    for loaded in [m for m in sys.modules if m.split('.')[0] in {tuple(PACKAGES)!r}]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as exc:\n"
        "        failed.append(f'{name}: {type(exc).__name__}: {exc}')\n"
        "print('\\n'.join(failed))\n"
        "sys.exit(1 if failed else 0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _feature(name: str) -> str | None:
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["bot", "features"] else None


def test_layers_point_down() -> None:
    wrong: list[str] = []
    for source, target in graph().edges:
        if source.startswith("bot.rules") and not target.startswith(PURE_DATA):
            wrong.append(f"{source} -> {target}: rules are pure")
        if source.startswith("db") and target.startswith(("bot", "cogs")):
            wrong.append(f"{source} -> {target}: db is the bottom layer")
        if target.startswith(SIMULATOR) and not source.startswith(SIMULATOR):
            wrong.append(f"{source} -> {target}: the bot runs without the simulator")
        if target in ("bot.app", "bot.wiring") and source not in ENTRY_POINTS:
            wrong.append(f"{source} -> {target}: only the entry points build the bot")
        mine, theirs = _feature(source), _feature(target)
        if mine and theirs and mine != theirs and theirs not in SHARED_FEATURES:
            wrong.append(f"{source} -> {target}: features talk through events")
        if theirs and mine is None and source not in ENTRY_POINTS | {"bot.wiring"}:
            wrong.append(f"{source} -> {target}: the core does not know the features")
    assert wrong == [], "\n".join(wrong)


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_module_does_two_jobs(name: str) -> None:
    lines = len(modules()[name].read_text().splitlines())
    assert name in LONG_MODULES or lines <= MAX_LINES, (
        f"{name} has {lines} lines: split it along the rule it serves"
    )
