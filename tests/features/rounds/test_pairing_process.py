"""Pairing in the bot's process: the rule's pairs and refusals, no networkx, no child process;
a big field in a child process (rustworkx holds the GIL while it matches), as the rule."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from bot.features.rounds import pairing
from bot.rules import swiss


def _history(players: list[str], rounds: int, seed: int) -> list[swiss.Result]:
    """Results of `rounds` Swiss rounds with random outcomes (draws and upsets included)."""
    rng = random.Random(seed)
    results: list[swiss.Result] = []
    for _ in range(rounds):
        for a, b in swiss.pair_round(players, results):
            if b is None:
                results.append((a, None, 1.0, 0.0))
            else:
                score = rng.choice([1.0, 0.5, 0.0])
                results.append((a, b, score, 1.0 - score))
    return results


def _in_fresh_interpreter(players: list[str], results: list[swiss.Result]) -> dict[str, object]:
    """Call `pairing.pair_round` from a fresh process, as the bot, with child processes banned."""
    probe = (
        "import json, subprocess, sys\n"
        "def banned(*args, **kwargs):\n"
        "    raise AssertionError('a child process was started')\n"
        "subprocess.run = subprocess.Popen = banned\n"
        "from bot.features.rounds import pairing\n"
        "data = json.load(sys.stdin)\n"
        "try:\n"
        "    pairs = pairing.pair_round(data['players'], [tuple(r) for r in data['results']])\n"
        "    answer = {'pairs': [list(p) for p in pairs]}\n"
        "except ValueError as refused:\n"
        "    answer = {'refused': str(refused)}\n"
        "answer['networkx_here'] = 'networkx' in sys.modules\n"
        "print(json.dumps(answer))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe],
        input=json.dumps({"players": players, "results": results}),
        capture_output=True,
        text=True,
        check=True,
    )
    answer: dict[str, object] = json.loads(found.stdout)
    return answer


def test_the_bot_pairs_a_hard_round_in_process_as_the_rule_without_networkx() -> None:
    players = [f"player{i:02d}" for i in range(41)]  # odd: a bye too
    results = _history(players, rounds=5, seed=7)
    expected = [list(pair) for pair in swiss.pair_round(players, results)]
    answer = _in_fresh_interpreter(players, results)
    assert answer["pairs"] == expected
    assert answer["networkx_here"] is False


def test_the_rules_refusal_comes_back() -> None:
    players = ["alice", "bob"]
    results: list[swiss.Result] = [("alice", "bob", 1.0, 0.0)]  # no rematch: no pairing
    with pytest.raises(ValueError) as in_process:
        swiss.pair_round(players, results)
    answer = _in_fresh_interpreter(players, results)
    assert answer["refused"] == str(in_process.value)
    assert answer["networkx_here"] is False


def test_a_big_field_is_paired_in_a_child_process_as_the_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Above `pairing.CHILD_ABOVE` active players the rule runs in a child process (the bot's
    own copy of it is not called), with every argument, and answers as the rule."""
    players = [f"player{i:02d}" for i in range(41)]
    results = _history(players, rounds=5, seed=7)
    options = {"withdrawn": ["player03"], "bye_points": 0.5, "short_median_buchholz": "drop"}
    expected = swiss.pair_round(players, results, **options)  # type: ignore[arg-type]

    def in_this_process(*_: object, **__: object) -> list[swiss.Pair]:
        raise AssertionError("paired in the bot's process")

    monkeypatch.setattr(pairing, "CHILD_ABOVE", 39)  # 40 active players
    monkeypatch.setattr(pairing.swiss, "pair_round", in_this_process)
    assert pairing.pair_round(players, results, **options) == expected  # type: ignore[arg-type]


def test_the_rules_refusal_comes_back_from_the_child_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    players = ["alice", "bob"]
    results: list[swiss.Result] = [("alice", "bob", 1.0, 0.0)]
    with pytest.raises(ValueError) as in_process:
        swiss.pair_round(players, results)
    monkeypatch.setattr(pairing, "CHILD_ABOVE", 0)
    with pytest.raises(ValueError) as in_child:
        pairing.pair_round(players, results)
    assert str(in_child.value) == str(in_process.value)
