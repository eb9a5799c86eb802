"""Run one benchmark on both builds of dune_env (compiled and pure Python) in one run.

A benchmark script calls `measure_both(script, argv, rounds)`: each round runs the script once
per build in a subprocess (`--build current --json`; `DUNE_ENV_PURE=1` for the pure one),
alternating builds so that a busy machine slows both alike, and returns the JSON each printed,
per build.  `paired_ratios` gives the ratio of each round's pair and their median, which one
slow round moves less than the ratio of the totals.  `describe()` is what the running process
is (for the JSON).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

BUILDS = ("compiled", "pure")


def require(script: str, *modules: str) -> None:
    """Stop with one line naming the extra to install when a module `script` needs is missing
    (everything benchmarks/ imports is in the `[bench]` extra, which `make bench` installs)."""
    import importlib.util

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise SystemExit(
            f"{script} needs {', '.join(missing)}: pip install -e '.[bench]' (or `make bench`)"
        )


def describe() -> dict[str, Any]:
    import dune_env

    build_info = getattr(dune_env, "build_info", None)  # (absent before the compiled build)
    if build_info is None:
        return {"compiled": False, "compiler": None}
    info = build_info()
    return {"compiled": info["compiled"], "compiler": info["compiler"]}


def run_build(script: Path, argv: list[str], build: str) -> dict[str, Any]:
    env = dict(os.environ)
    env.pop("DUNE_ENV_PURE", None)
    if build == "pure":
        env["DUNE_ENV_PURE"] = "1"
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    out = subprocess.run(
        [sys.executable, str(script), *argv, "--build", "current", "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"the {build} run of {script.name} failed:\n{out.stderr.strip()}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def measure_both(script: Path, argv: list[str], rounds: int) -> dict[str, list[dict[str, Any]]]:
    """Per build, the results of its rounds.  Exits with a message if the compiled build is
    not there (then there is nothing to compare)."""
    results: dict[str, list[dict[str, Any]]] = {b: [] for b in BUILDS}
    for _ in range(rounds):
        for build in BUILDS:
            result = run_build(script, argv, build)
            if build == "compiled" and not result["build"]["compiled"]:
                raise SystemExit(
                    "no compiled build of dune_env here (run `make build`); "
                    "measure the running build alone with --build current"
                )
            results[build].append(result)
    return results


def paired_ratios(
    results: dict[str, list[dict[str, Any]]], value: Callable[[dict[str, Any]], float]
) -> str:
    """'per-round compiled / pure: a b c; median m' for `value(result)` (a rate: bigger is
    faster), each round's compiled run against the pure run that followed it."""
    pairs = zip(results["compiled"], results["pure"], strict=True)
    ratios = [value(c) / value(p) for c, p in pairs]
    listed = " ".join(f"{r:.2f}" for r in ratios)
    return f"per-round compiled / pure: {listed}; median {median(ratios):.2f}"


def run_in_tree(command: list[str], tree: Path, label: str) -> dict[str, Any]:
    """Run `command` (a benchmark printing JSON on its last line) with `tree`'s dune_env on
    PYTHONPATH, in `tree`; the JSON, or exit naming `label` if it failed."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    run = subprocess.run(command, env=env, capture_output=True, text=True, cwd=tree, check=False)
    if run.returncode != 0:
        raise SystemExit(f"{label}: the benchmark failed: {run.stderr.strip()[-400:]}")
    return dict(json.loads(run.stdout.strip().splitlines()[-1]))
