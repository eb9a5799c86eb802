"""How much strength a copy of the strategist loses per point of disagreement (issue 23's first
diagnostic): the strategist defers a share of its decisions to the imitation `bc-4p`, so that it
makes bc-4p's kind of errors at a chosen rate, and the harness measures it against the strategist.

    python benchmarks/agreement_curve.py --shares 0.16 0.4 1.0 --games 2016 --workers 2

Each share q plays `MODEL strategist economic aggressive` at 4 players on duplicate deals (the
harness's default balanced seatings: for four different policies every permutation of the
line-up, 24 games a deal; `--seatings rotations` for the former, biased design:
docs/baselines.md, Seat order), MODEL
being the strategist that takes bc-4p's choice on a share q of its decisions (its own generator
decides which).  Printed per share: the measured disagreement (decisions where the deferred-to
choice differs from the strategist's, over all decisions with a choice), and MODEL's paired
strength minus the strategist's with its 95% interval.  q = 1 is bc-4p with the strategist's
forced-decision handling; bc-4p disagrees with the strategist on about 12% of decisions, so
q = 0.16 / 0.4 / 1.0 are about 2% / 5% / 12% errors.  Each share's run folder resumes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
# The harness's workers import the deferring policy by `module:attr`.
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(HERE), str(HERE.parent), os.environ.get("PYTHONPATH", "")) if p
)

from dune_env.engine import Game  # noqa: E402
from dune_env.policies.base import SeededPolicy  # noqa: E402
from dune_env.seatings import DEFAULT_SEATINGS, SEATINGS  # noqa: E402


class Deferring(SeededPolicy):
    """The strategist, taking `student`'s choice on a share of its decisions; counts how often
    that choice differs from its own (in `self.counts`, and in a JSON file per process when
    `DUNE_AGREEMENT_LOG` names a folder)."""

    def __init__(self, share: float, seed: int = 0) -> None:
        from dune_env.policies.heuristics.strategist import StrategistPolicy
        from dune_env.policies.registry import load_policy

        super().__init__(seed)
        self.teacher = StrategistPolicy(seed)
        self.student = load_policy("bc-4p", seed=seed)
        self.threshold = round(share * 1_000_000)
        self.name = f"strategist-defers-{round(share * 100)}"
        self.counts = {"choices": 0, "deferred": 0, "differs": 0}

    def reseed(self, seed: int) -> None:
        super().reseed(seed ^ 0xA6EE)
        self.teacher.reseed(seed)
        reseed = getattr(self.student, "reseed", None)
        if reseed is not None:
            reseed(seed)

    def act(self, game: Game, seat: int) -> int:
        own = self.teacher.act(game, seat)
        if len(game.legal_options()) < 2:
            return own
        self.counts["choices"] += 1
        if self.rng.below(1_000_000) >= self.threshold:
            return own
        self.counts["deferred"] += 1
        chosen = self.student.act(game, seat)
        self.counts["differs"] += int(chosen != own)
        self._log()
        return chosen

    def _log(self) -> None:
        folder = os.environ.get("DUNE_AGREEMENT_LOG")
        if folder and self.counts["deferred"] % 10 == 0:
            path = Path(folder) / f"{self.name}.{os.getpid()}.json"
            path.write_text(json.dumps(self.counts))


class Defer16(Deferring):
    def __init__(self, seed: int = 0) -> None:
        super().__init__(0.16, seed)


class Defer40(Deferring):
    def __init__(self, seed: int = 0) -> None:
        super().__init__(0.40, seed)


class Defer100(Deferring):
    def __init__(self, seed: int = 0) -> None:
        super().__init__(1.0, seed)


FACTORIES = {0.16: "Defer16", 0.4: "Defer40", 1.0: "Defer100"}


def main() -> None:
    from dune_env.harness import run_benchmark

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shares", type=float, nargs="+", default=sorted(FACTORIES))
    parser.add_argument("--games", type=int, default=2016)
    parser.add_argument("--seatings", choices=list(SEATINGS), default=DEFAULT_SEATINGS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default="runs/agreement_curve")
    args = parser.parse_args()
    for share in args.shares:
        if share not in FACTORIES:
            raise SystemExit(f"--shares: choose among {sorted(FACTORIES)}")
        name = FACTORIES[share] + ("" if args.seatings == "rotations" else "-perm")
        out = Path(args.out) / name
        log = Path(args.out) / f"{name}-agreement"
        log.mkdir(parents=True, exist_ok=True)
        os.environ["DUNE_AGREEMENT_LOG"] = str(log)
        model = f"agreement_curve:{FACTORIES[share]}"
        result = run_benchmark(
            [model, "strategist", "economic", "aggressive"],
            num_players=4,
            games=args.games,
            workers=args.workers,
            out_dir=out,
            duplicate=True,
            seatings=args.seatings,
            resume=(out / "run.json").exists(),
            overwrite=False,
            trust_checkpoints=True,
            plots=False,
        )
        counts = [json.loads(p.read_text()) for p in log.glob("*.json")]
        deferred = sum(c["deferred"] for c in counts)
        differs = sum(c["differs"] for c in counts)
        choices = sum(c["choices"] for c in counts)
        pair = next(
            (
                h
                for h in result.summary.get("head_to_head", [])
                if {h.get("a"), h.get("b")} == {model, "strategist"}
            ),
            None,
        )
        print(
            f"share {share:.2f}: disagreement {differs}/{choices} = "
            f"{differs / max(choices, 1):.1%} of decisions (deferred {deferred}); "
            f"head-to-head vs strategist: {json.dumps(pair)}"
        )


if __name__ == "__main__":
    main()
