"""Wall time of one `dune-bench` run on the Ray backend against the local backend.

    python benchmarks/bench_ray_backend.py --games 40 --workers 2

Runs the same duplicate schedule (strategist, economic, aggressive, random; 4 players) with
`--backend local` and `--backend ray --address local` (a new local Ray instance, as a user
without a cluster gets), alternately `--repeats` times, each as its own `dune-bench` process.
Prints, per backend, the best whole-command wall time (Ray's start and stop included) and the
best "games in X s" figure (connected, from the first game to the last), their ratios
ray/local, and checks that both backends wrote the same summary.json (all but its meta).
On one machine Ray can only add its start-up; it pays off on a cluster with more cores.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from builds import require

ROOT = Path(__file__).resolve().parents[1]
LINEUP = ["strategist", "economic", "aggressive", "random"]


def run(backend: str, games: int, workers: int, out: Path) -> tuple[float, float, dict[str, Any]]:
    command = [sys.executable, "-m", "dune_env.harness.cli", "--policies", *LINEUP]
    command += ["--players", "4", "--games", str(games), "--duplicate", "--seed", "0"]
    command += ["--workers", str(workers), "--no-progress", "--no-plots", "--out", str(out)]
    command += ["--backend", backend] + (["--address", "local"] if backend == "ray" else [])
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=True)
    wall = time.perf_counter() - start
    found = re.search(r"(\d+) games in ([\d.]+) s", done.stdout)
    assert found is not None, done.stdout
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    summary.pop("meta")
    return wall, float(found.group(2)), summary


def main() -> None:
    require("bench_ray_backend.py", "ray")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="a multiple of 4 (default 40)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    best: dict[str, tuple[float, float]] = {}
    summaries: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for repeat in range(args.repeats):
            for backend in ("local", "ray"):
                out = Path(folder) / f"{backend}-{repeat}"
                wall, games_seconds, summaries[backend] = run(
                    backend, args.games, args.workers, out
                )
                old = best.get(backend, (float("inf"), float("inf")))
                best[backend] = (min(old[0], wall), min(old[1], games_seconds))
    for backend, (wall, games_seconds) in best.items():
        print(f"{backend:5s}: whole command {wall:6.1f} s, games {games_seconds:6.1f} s")
    print(
        f"ray / local: whole command {best['ray'][0] / best['local'][0]:.2f}x, "
        f"games {best['ray'][1] / best['local'][1]:.2f}x "
        f"({args.games} games, --workers {args.workers}, best of {args.repeats})"
    )
    same = summaries["ray"] == summaries["local"]
    print(f"same summary.json (but meta): {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
