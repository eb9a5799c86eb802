"""A user's install: the wheel `python -m build` makes, installed into a fresh venv with the newest
versions pyproject.toml allows, runs compiled and plays the same games as the source tree.

`make check-wheel` copies this file out of the source tree and runs it in that venv (CI does it
after `make test`), with DUNE_ENV_SOURCE_TREE naming the clone whose fixtures it compares with;
elsewhere it is skipped.  Run from inside the clone, pytest would put the clone on `sys.path`
(its `tests` package), and the clone's `dune_env` would shadow the installed one.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.skipif(
    os.environ.get("DUNE_ENV_WHEEL_CHECK") != "1",
    reason="runs in `make check-wheel`'s venv, on the installed wheel",
)

SOURCE_TREE = Path(os.environ.get("DUNE_ENV_SOURCE_TREE", Path(__file__).parents[2])).resolve()
TESTS = SOURCE_TREE / "tests"


def _fingerprint_module() -> ModuleType:
    # By path, so that only its `dune_env` imports resolve, and they resolve to the wheel.
    path = TESTS / "policies" / "heuristics_fingerprint.py"
    spec = importlib.util.spec_from_file_location("heuristics_fingerprint", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_installed_package_is_the_wheel_and_runs_compiled() -> None:
    import dune_env

    package = Path(dune_env.__file__).resolve().parent
    site_packages = Path(sysconfig.get_paths()["platlib"]).resolve()
    assert package.parent == site_packages, f"imported {package}, not the installed wheel"
    info = dune_env.build_info()
    assert info["compiled"], dune_env.compiled_build.describe_build(info)
    assert info["compile_failure"] is None
    for name in info["modules"]:
        assert sys.modules[name].__file__.startswith(str(package))
    # The shipped models, the replay viewer's assets and the published suite table are
    # package data.
    assert (package / "policies" / "checkpoints" / "bc_4p.safetensors").is_file()
    assert (package / "replay" / "assets" / "replay.html").is_file()
    assert list((package / "harness" / "data").glob("leaderboard_v*.json"))


def test_the_wheel_plays_the_recorded_games() -> None:
    """The compiled engine and heuristics of the wheel reproduce the fingerprints recorded from
    the source tree (the engine's dice and 40 games of each heuristic style)."""
    fingerprint = _fingerprint_module()
    expected = json.loads(fingerprint.FIXTURE.read_text())
    games = 40
    got = fingerprint.fingerprints(games)
    assert got["engine"] == expected["engine"]
    for style in fingerprint.STYLES:
        assert got[style] == expected[style][:games], style


def test_the_environment_passes_pettingzoo_api_test_on_the_newest_versions() -> None:
    from pettingzoo.test import api_test

    import dune_env

    api_test(dune_env.env(num_players=4), num_cycles=200)


def test_the_console_script_benchmarks_and_records_the_build(tmp_path: Path) -> None:
    out = tmp_path / "run"
    bench = Path(sys.executable).parent / "dune-bench"
    run = subprocess.run(
        [str(bench), "--policies", "economic", "random", "random", "--players", "3"]
        + ["--games", "6", "--workers", "1", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 6
    assert summary["meta"]["software"]["build"] == "compiled"
