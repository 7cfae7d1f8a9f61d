"""`acwc simulate` on an install without the simulator (the bot's own `pip install .` and
the Docker image): one line that says how to add it, and a failing exit code."""

from __future__ import annotations

import sys

import pytest

from bot.cli import EXIT_FAILURE, main


def test_simulate_without_the_simulator_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in [m for m in sys.modules if m.split(".")[0] == "acwc_sim"] + ["acwc_sim"]:
        monkeypatch.setitem(sys.modules, name, None)  # None: `import` raises as if absent

    code = main(["simulate", "--players", "6"])

    out, err = capsys.readouterr()
    assert code == EXIT_FAILURE
    assert out == ""
    assert err.splitlines() == [
        "acwc simulate needs the simulator, which is installed apart from the bot: "
        "from the repository, run  pip install -c constraints.txt -e ./sim"
    ]
