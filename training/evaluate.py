"""Evaluate any checkpoint with the benchmark harness, in one command.

    python -m training.evaluate runs/ppo/ppo_4p_seed0/final_model.safetensors --games 200
    python -m training.evaluate runs/ppo/ppo_4p_seed0/final_model.zip --trust-checkpoints
    python -m training.evaluate runs/rllib/rllib_4p_seed0/checkpoint --trust-checkpoints
    python -m training.evaluate ppo-4p

A stable-baselines3 .zip or an RLlib folder is pickle-based (loading it can run code) and needs
--trust-checkpoints; see SECURITY.md.

The checkpoint (a safe-format .safetensors, a MaskablePPO .zip, an RLlib checkpoint folder, or a
registered name) takes one seat against copies of each opponent, on duplicate deals (every deal
played with the checkpoint in every seat). For each opponent it prints a verdict: the
checkpoint's faction-adjusted strength against the opponent (log-odds, 95% bootstrap interval
over deals: above, below or level), its win rate next to the chance level 1/players, its
control-win rate, or that the games cannot tell the two apart; it writes the harness reports
under --out (one folder per opponent) and evaluation.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dune_env.replay.cli import HelpFormatter  # the docstring as written, defaults after help
from training.fields import EvaluationFields


@dataclass(frozen=True)
class EvaluationPlan:
    """The periodic evaluation of a training run: its group, the heuristics it measures against
    (the pool's `heuristic_opponents`), the players and the seed of the games."""

    fields: EvaluationFields
    heuristics: tuple[str, ...]
    num_players: int
    seed: int


def evaluate_against(
    checkpoint: str,
    opponent: str,
    players: int,
    games: int,
    seed: int = 0,
    workers: int | None = 1,
    out_dir: str | Path | None = None,
    trust_checkpoints: bool = False,
    bootstrap: int = 200,
    progress: bool = False,
) -> dict[str, Any]:
    """`checkpoint` in one seat, `opponent` in the others, over `games` rounded up to whole
    duplicate deals (the harness's balanced seatings: here every seat for the checkpoint);
    the summary's strengths are measured against the opponent.  The harness's reports are
    written into `out_dir` if given."""
    from dune_env.harness import run_benchmark
    from dune_env.harness.stats.summary import summarise

    games = whole_deals([checkpoint] + [opponent] * (players - 1), players, games)
    result = run_benchmark(
        [checkpoint] + [opponent] * (players - 1),
        num_players=players,
        games=games,
        seed=seed,
        workers=workers,
        out_dir=out_dir,
        trust_checkpoints=trust_checkpoints,
        duplicate=True,
        bootstrap=bootstrap if out_dir is not None else 0,  # (its own fit is the one used)
        plots=out_dir is not None,
        progress=f"vs {opponent}" if progress else False,
    )
    return summarise(
        result.rows,
        result.failures,
        duplicate=True,
        bootstrap=bootstrap,
        seed=seed,
        reference=opponent,
    )


def evaluation_record(summary: dict[str, Any], name: str) -> dict[str, Any]:
    """What evaluation.json keeps of one opponent's summary."""
    from dune_env.harness.stats.verdict import judgement, verdict_line

    me = summary["policies"][name]
    return {
        "judgement": judgement(name, summary),
        "games": summary["games"],
        "failed_games": summary["failed_games"],
        "chance_win_rate": summary["chance_win_rate"],
        "win_rate": me["win_rate"],
        "ci95": me["win_rate_ci95"],
        "control_win_rate": me["control_win_rate"],
        "control_win_rate_ci95": me["control_win_rate_ci95"],
        "strength": me["strength"],
        "strength_ci95": me["strength_ci95"],
        "cannot_tell_apart": summary["cannot_tell_apart"],
        "verdict": verdict_line(name, summary),
    }


def lineup_of(heuristics: tuple[str, ...] | list[str], players: int) -> list[str]:
    """The other seats of the benchmark's line-up: `heuristics` in order, repeated to fill
    players - 1 seats (4 players, strategist economic aggressive: those three)."""
    return [heuristics[i % len(heuristics)] for i in range(players - 1)]


def evaluate_lineup(
    checkpoint: str, others: list[str], players: int, games: int, seed: int = 0, workers: int = 1
) -> dict[str, Any]:
    """The harness's summary of `checkpoint` with `others` in one line-up, on duplicate deals
    in the harness's balanced seatings (`games` rounded up to whole deals): the benchmark's
    measurement, its head-to-head entries pairing the checkpoint with each of the others over
    the same deals, played in `workers` processes (the results do not depend on them).  (The
    line-up's rotations would put the checkpoint just before the same seat in every game: a
    copy of the strategist then scores about -0.5 against it; docs/baselines.md, Seat order.)"""
    from dune_env.harness import run_benchmark

    return run_benchmark(
        [checkpoint, *others],
        num_players=players,
        games=whole_deals([checkpoint, *others], players, games),
        seed=seed,
        workers=workers,
        duplicate=True,
        plots=False,
    ).summary


def whole_deals(policies: list[str], players: int, games: int) -> int:
    """`games` rounded up to whole deals of the line-up's balanced seatings."""
    from dune_env.match import lineup
    from dune_env.seatings import deal_seatings

    per_deal = len(deal_seatings(lineup(policies, players)))
    return per_deal * math.ceil(games / per_deal)


def paired_record(summary: dict[str, Any], name: str, other: str) -> dict[str, Any]:
    """`name` against `other` in a duplicate line-up: its paired strength minus the other's
    (log-odds, 95% interval over deals), control-win rate difference, judgement (above,
    below, level, or "cannot tell apart" without a strength fit), and `name`'s win rate."""
    pair = next(h for h in summary.get("head_to_head", []) if {h["a"], h["b"]} == {name, other})
    sign = 1.0 if pair["a"] == name else -1.0
    diff, ci = pair.get("strength_diff"), pair.get("strength_diff_ci95")
    record: dict[str, Any] = {
        "games": summary["games"],
        "win_rate": summary["policies"][name]["win_rate"],
        "chance_win_rate": summary["chance_win_rate"],
        "control_win_rate_diff": sign * pair["control_win_rate_diff"],
        "strength_diff": None if diff is None else sign * diff,
        "strength_diff_ci95": None if ci is None else sorted(sign * c for c in ci),
        "judgement": "cannot tell apart",
    }
    if record["strength_diff_ci95"] is not None and not summary.get("cannot_tell_apart"):
        low, high = record["strength_diff_ci95"]
        record["judgement"] = "above" if low > 0 else "below" if high < 0 else "level"
    return record


def evaluate_model(model: Any, plan: EvaluationPlan, run_dir: Path) -> dict[str, dict[str, Any]]:
    """During a training run (`training.callbacks`), on duplicate deals via the harness:
    with eval_mode "each", the current model in one seat against copies of random and of each
    heuristic, per opponent the record of `evaluation_record` (win rate, chance level, strength
    against the opponent with its interval, judgement); with "lineup", the model in the
    benchmark's line-up (`lineup_of`), per other policy the `paired_record`.  Appended to
    evaluations.jsonl."""
    from dune_env.policies.weights import export_policy, weight_paths

    export_policy(model, run_dir / f"eval_model_{model.num_timesteps:09d}")
    tensors, description = weight_paths(run_dir / f"eval_model_{model.num_timesteps:09d}")
    records = {}
    players, games, seed = plan.num_players, plan.fields.eval_games, plan.seed
    if plan.fields.eval_mode == "lineup":
        others = lineup_of(plan.heuristics, players)
        summary = evaluate_lineup(str(tensors), others, players, games, seed)
        records = {other: paired_record(summary, str(tensors), other) for other in others}
    else:
        for opponent in ("random", *plan.heuristics):
            summary = evaluate_against(str(tensors), opponent, players, games, seed=seed)
            records[opponent] = evaluation_record(summary, str(tensors))
    with (run_dir / "evaluations.jsonl").open("a") as log:
        log.write(json.dumps({"num_timesteps": model.num_timesteps, **records}) + "\n")
    description.unlink()
    tensors.unlink()
    return records


def main(argv: list[str] | None = None) -> int:
    from dune_env.engine import ConfigError
    from dune_env.harness.stats.verdict import legend, verdicts
    from dune_env.policies.registry import PolicyLoadError, load_policy

    parser = argparse.ArgumentParser(
        prog="python -m training.evaluate", description=__doc__, formatter_class=HelpFormatter
    )
    parser.add_argument(
        "checkpoint",
        help=".safetensors or .zip model, RLlib checkpoint folder, or registered policy name",
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["random", "aggressive", "economic"],
        metavar="POLICY",
        help="opponent policies; each is evaluated separately, filling every other seat",
    )
    parser.add_argument("--players", type=int, default=4, help="players per game (3 to 8)")
    parser.add_argument(
        "--games",
        type=int,
        default=200,
        help="games per opponent (rounded up to a multiple of --players: whole deals)",
    )
    parser.add_argument("--seed", type=int, default=0, help="schedule and dice seed")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="processes (this machine's cores)"
    )
    parser.add_argument(
        "--out", default="runs/eval", help="folder for the reports (one sub-folder per opponent)"
    )
    parser.add_argument(
        "--trust-checkpoints",
        action="store_true",
        help="allow a pickle-based checkpoint (SB3 .zip, RLlib folder): it can run code",
    )
    args = parser.parse_args(argv)
    try:  # a clear error now rather than in every worker
        load_policy(args.checkpoint, trust=args.trust_checkpoints)
    except PolicyLoadError as exc:
        parser.exit(2, f"evaluate: {exc}\n")
    name = args.checkpoint
    if name in args.opponents:
        parser.exit(
            2, f"evaluate: {name} cannot be measured against itself; drop it from --opponents\n"
        )
    results = {}
    for opponent in args.opponents:
        try:
            summary = evaluate_against(
                name,
                opponent,
                args.players,
                args.games,
                seed=args.seed,
                workers=args.workers,
                out_dir=Path(args.out) / f"vs_{opponent}",
                trust_checkpoints=args.trust_checkpoints,
                progress=True,
            )
        except (PolicyLoadError, ConfigError, ValueError, TypeError) as exc:
            parser.exit(2, f"evaluate: {exc}\n")
        for line in verdicts(summary, [name]):
            print(line)
        results[opponent] = evaluation_record(summary, name)
    print("\n" + legend())
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "evaluation.json").write_text(json.dumps(results, indent=2))
    print(f"\nreports written under {args.out}/ (evaluation.json, vs_OPPONENT/report.md)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
