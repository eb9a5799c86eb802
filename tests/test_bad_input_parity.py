"""Bad snapshots get the same error, naming the field, on the compiled and the pure build
(issue 21, item 5; the pure build is the reference).  Deep nesting, integers of thousands of
digits and huge strings are described briefly in the message, never a RecursionError or a
ValueError from building it.

The cases run here on this process's build and, when a compiled build is present, in
subprocesses on both builds, which must report the same outcome for every case."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import dune_env
from dune_env import compiled_build as _compiled

ROOT = Path(dune_env.__file__).resolve().parent.parent
HAS_COMPILED = any(_compiled.extension_file(p) for p in _compiled.compiled_sources())

# Prints [case, error type or "ok", message] for every case, as JSON.
CASES = r"""
import json
from dune_env.engine import Game, GameConfig

game = Game(GameConfig(num_players=4), seed=1)
text = game.to_json()
snap = json.loads(text)

def deep(depth, leaf=1):
    value = leaf
    for _ in range(depth):
        value = [value]
    return value

def edited(path, value):
    data = json.loads(text)
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data

def restored(path, value):
    return lambda: Game.restore(edited(path, value))

def from_json_edit(old, new):
    assert old in text
    return lambda: Game.from_json(text.replace(old, new, 1))

BIG = "1" * 5000
cases = {
    "from_json bytes": lambda: Game.from_json(text.encode()),
    "from_json bytearray": lambda: Game.from_json(bytearray(text.encode())),
    "from_json None": lambda: Game.from_json(None),
    "from_json int": lambda: Game.from_json(12),
    "from_json 5000-digit round": from_json_edit('"round":1', '"round":' + BIG),
    "from_json 5000-digit reward": from_json_edit('"win_reward":1.0', '"win_reward":' + BIG),
    "from_json 5000-digit unit": from_json_edit('"units":[[0', '"units":[[' + BIG),
    "restore deep faction_mode": restored(["config", "faction_mode"], deep(5000)),
    "restore deep num_players": restored(["config", "num_players"], deep(5000)),
    "restore deep win_reward": restored(["config", "win_reward"], deep(5000)),
    "restore deep factions": restored(
        ["config"], {**snap["config"], "faction_mode": "assigned", "factions": [deep(5000)] * 4}
    ),
    "restore deep round": restored(["round"], deep(5000)),
    "restore deep unit": restored(["units", 0, 0], deep(5000)),
    "restore deep version": restored(["version"], deep(5000)),
    "restore huge round": restored(["round"], 10**5000),
    "restore huge num_players": restored(["config", "num_players"], 10**5000),
    "restore huge win_reward": restored(["config", "win_reward"], 10**5000),
    "restore long faction_mode": restored(["config", "faction_mode"], "x" * 10**6),
    "restore string round": restored(["round"], "1"),
    "config west faces as a list": lambda: GameConfig(region_die_west_faces=[2, 3, 5]),
    "config factions as a list": lambda: GameConfig(
        num_players=3, faction_mode="assigned", factions=[0, 1, 2]
    ),
    "config faction_mode a list": lambda: GameConfig(faction_mode=["random"]),
    "config num_players a string": lambda: GameConfig(num_players="4"),
    "config factions an int": lambda: GameConfig(faction_mode="assigned", factions=5),
    # issue 31, item 9
    "restore west faces as bytes": restored(["config", "region_die_west_faces"], b"\x01\x04"),
    "restore 4000-digit rewards": restored(["rewards"], [int("9" * 4000)] * 4),
    "apply a deeply nested list": lambda: game.apply(deep(10**5)),
    "apply a 5000-digit option": lambda: game.apply(10**5000),
}
results = []
for name, case in cases.items():
    try:
        case()
    except Exception as exc:
        results.append([name, type(exc).__name__, str(exc)])
    else:
        results.append([name, "ok", ""])
print(json.dumps(results))
"""

# Where each case's message must point (its field), for the cases that must fail.
FIELDS = {
    "from_json None": "snapshot JSON must be text, not NoneType",
    "from_json int": "snapshot JSON must be text, not int",
    "from_json 5000-digit round": "'round'",
    "from_json 5000-digit reward": "win_reward",
    "from_json 5000-digit unit": "units",
    "restore deep faction_mode": "faction_mode",
    "restore deep num_players": "num_players",
    "restore deep win_reward": "win_reward",
    "restore deep factions": "faction",
    "restore deep round": "'round'",
    "restore deep unit": "units",
    "restore deep version": "'version'",
    "restore huge round": "'round'",
    "restore huge num_players": "num_players",
    "restore huge win_reward": "win_reward",
    "restore long faction_mode": "faction_mode",
    "restore string round": "'round'",
    "config faction_mode a list": "faction_mode=['random'] is unknown",
    "config num_players a string": "num_players must be an int from 3 to 8, not '4'",
    "config factions an int": "factions must be a list, not 5",
    "restore west faces as bytes": "region_die_west_faces must be a list",
    "restore 4000-digit rewards": "'rewards'",
    "apply a deeply nested list": "is a list: give a Python int",
    "apply a 5000-digit option": "an integer of about 5001 digits",
}
ACCEPTED = {"from_json bytes", "from_json bytearray", "config west faces as a list"}
ACCEPTED |= {"config factions as a list"}


def _run(pure: bool | None) -> list[list[str]]:
    """The cases' outcomes: in a subprocess on the given build, or here (None)."""
    if pure is None:
        namespace: dict[str, Any] = {}
        from contextlib import redirect_stdout
        from io import StringIO

        out = StringIO()
        with redirect_stdout(out):
            exec(CASES, namespace)  # noqa: S102 - the test's own code
        return json.loads(out.getvalue())
    env = dict(os.environ)
    env.pop(_compiled.PURE_ENV_VAR, None)
    if pure:
        env[_compiled.PURE_ENV_VAR] = "1"
    env["PYTHONPATH"] = str(ROOT)
    run = subprocess.run(
        [sys.executable, "-c", CASES], env=env, capture_output=True, text=True, cwd=ROOT
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_bad_snapshots_are_snapshot_errors_naming_the_field() -> None:
    for name, kind, message in _run(None):
        if name in ACCEPTED:
            assert kind == "ok", (name, kind, message)
            continue
        expected = "ConfigError" if name.startswith("config") else "SnapshotError"
        expected = "IllegalOptionError" if name.startswith("apply") else expected
        assert kind == expected, (name, kind, message[:300])
        assert FIELDS[name] in message, (name, message[:300])
        assert len(message) < 600, (name, message[:300])  # described briefly


@pytest.mark.skipif(not HAS_COMPILED, reason="no compiled build here (setup.py build_ext)")
def test_both_builds_give_the_same_errors() -> None:
    compiled, pure = _run(False), _run(True)
    assert compiled == pure
