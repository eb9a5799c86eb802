"""Do two versions of the training recipes train the same weights from the same seeds?

    python benchmarks/same_weights.py --base REV [--cases quick residual ...] [--keep DIR]

Each case is a short seeded run of a recipe (the shipped configs with a small budget).  It is
run twice, in fresh run folders: with this tree's `training/`, and with `training/` and
`configs/` as they were at git revision `--base` (extracted with `git archive`; both runs import
this tree's `dune_env`, so only the recipes differ).  The final safe exports
(`*.safetensors`) are compared tensor by tensor; per case it prints the number of tensors, how
many are bit-identical and the largest absolute difference.  Exit status 1 when any case differs.

Used when the recipes were rewritten on one skeleton (issue 32): `--base` the revision before.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# name -> (module, arguments); each writes one final safe export under --out-dir.
CASES: dict[str, tuple[str, list[str]]] = {
    "quick": (
        "training.ppo_selfplay",
        ["--config", "configs/ppo_4p_quick.yaml", "--total-timesteps", "6144"]
        + ["--eval-interval", "4096", "--eval-games", "8"],
    ),
    "residual": (
        "training.residual",
        ["--config", "configs/residual_4p.yaml", "--total-timesteps", "8192"]
        + ["--checkpoint-interval", "4096"],
    ),
    "bc": (
        "training.ppo_selfplay",
        ["--config", "configs/ppo_4p_quick.yaml", "--total-timesteps", "2048"]
        + ["--bc-games", "3", "--bc-dagger-rounds", "1", "--eval-interval", "0"],
    ),
    "lineup": (
        "training.ppo_selfplay",
        ["--config", "configs/bc_4p_lineup.yaml", "--bc-games", "3", "--bc-heldout-games", "1"]
        + ["--bc-dagger-rounds", "1", "--bc-epochs", "2"],
    ),
    "kickstart": (
        "training.ppo_selfplay",
        ["--config", "configs/ppo_4p_kickstart.yaml", "--total-timesteps", "4096"]
        + ["--critic-warmup-rollouts", "1", "--eval-interval", "0"],
    ),
}


def run_case(name: str, source: Path, out_dir: Path, reuse: bool = False) -> Path:
    """Run case `name` with the recipes under `source`; the path of its final safe export
    (with `reuse`, that of an earlier run in `out_dir` if there is one)."""
    if reuse and len(found := sorted(out_dir.rglob("final*.safetensors"))) == 1:
        return found[0]
    module, args = CASES[name]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this tree's dune_env
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", module, *args, "--out-dir", str(out_dir)],
        cwd=source,  # `python -m` puts the cwd first: its training/ is the one imported
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    found = sorted(out_dir.rglob("final*.safetensors"))
    if len(found) != 1:
        raise SystemExit(f"{name} in {source}: expected one final export, found {found}")
    print(f"  {name} ({source}): {time.perf_counter() - started:.0f} s", flush=True)
    return found[0]


def compare(a: Path, b: Path) -> tuple[int, int, float]:
    """(tensors, bit-identical tensors, largest absolute difference)."""
    import numpy as np
    from safetensors.numpy import load_file

    left, right = load_file(str(a)), load_file(str(b))
    if set(left) != set(right):
        raise SystemExit(f"{a} and {b} hold other tensors: {sorted(set(left) ^ set(right))}")
    same, worst = 0, 0.0
    for key in left:
        if left[key].shape != right[key].shape:
            return len(left), same, float("inf")
        same += int(np.array_equal(left[key], right[key]))
        worst = max(worst, float(np.abs(left[key] - right[key]).max(initial=0.0)))
    return len(left), same, worst


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="git revision of the recipes to compare")
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument(
        "--keep",
        help="folder for the runs, kept (default: a temporary one); the base's runs found "
        "there are reused",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(args.keep or temporary)
        base = work / "base"
        base.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "archive", args.base, "training", "configs"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        differing = 0
        print(f"{'case':<10} {'tensors':>7} {'identical':>9} {'max |diff|':>11}")
        for name in args.cases:
            old = run_case(name, base, work / "runs_base" / name, reuse=bool(args.keep))
            new = run_case(name, ROOT, work / "runs_tree" / name)
            tensors, same, worst = compare(old, new)
            differing += same != tensors
            print(f"{name:<10} {tensors:>7} {same:>9} {worst:>11.3g}", flush=True)
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
