"""What each distribution ships and declares: the bot (`pip install .`, the Docker image)
ships no simulator, the simulator (`sim/`, the acwc-sim distribution) ships only itself, and
every package a module imports is declared by the distribution that holds the module."""

from __future__ import annotations

import ast
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[2]
BOT, SIM = ROOT, ROOT / "sim"
BOT_PACKAGES = ("bot", "cogs", "db", "migrations")
SIMULATOR = "acwc_sim"


def _project(where: Path) -> dict[str, object]:
    return tomllib.loads((where / "pyproject.toml").read_text())


def shipped(where: Path) -> list[str]:
    """The packages the build of the pyproject in `where` puts in its wheel."""
    found = _project(where)["tool"]["setuptools"]["packages"]["find"]  # type: ignore[index]
    return sorted(find_packages(where=str(where), include=found["include"]))


def declared(where: Path) -> dict[str, Requirement]:
    requirements = [Requirement(r) for r in _project(where)["project"]["dependencies"]]  # type: ignore[index]
    return {r.name.lower(): r for r in requirements}


def imported(top: list[Path]) -> set[str]:
    """The top-level names every module under `top` imports, function-level imports too."""
    names: set[str] = set()
    for directory in top:
        for path in directory.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names |= {alias.name.partition(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.partition(".")[0])
    return names


def test_the_bot_distribution_ships_no_simulator() -> None:
    packages = shipped(BOT)
    assert "bot" in packages and "db" in packages
    strays = [p for p in packages if p.partition(".")[0] not in BOT_PACKAGES]
    assert strays == [], f"the bot's wheel would ship {strays}"
    assert not any(p == "bot.sim" or p.endswith(".sim") for p in packages)


def test_the_simulator_distribution_ships_only_the_simulator() -> None:
    packages = shipped(SIM)
    assert SIMULATOR in packages
    assert {p.partition(".")[0] for p in packages} == {SIMULATOR}


def test_the_bot_does_not_pin_a_minor_version_of_discord_py() -> None:
    discord = declared(BOT)["discord.py"]
    assert discord.specifier.contains("2.8.0") and discord.specifier.contains("2.11.0")


@pytest.mark.parametrize(
    ("where", "modules"),
    [(BOT, [ROOT / p for p in BOT_PACKAGES]), (SIM, [SIM / SIMULATOR])],
    ids=["bot", "simulator"],
)
def test_every_imported_package_is_declared_by_its_distribution(
    where: Path, modules: list[Path]
) -> None:
    first_party = {*BOT_PACKAGES, SIMULATOR}
    third_party = imported(modules) - first_party - set(sys.stdlib_module_names)
    distributions = packages_distributions()
    wants = set(declared(where))
    undeclared = {
        name: distributions.get(name, [])
        for name in third_party
        if not {d.lower() for d in distributions.get(name, [])} & wants
    }
    assert undeclared == {}, f"imported but not declared in {where / 'pyproject.toml'}"
