"""`dune-bench --sprt`: play duplicate deals of A (the first policy) against B (the second) one
block at a time until the sequential test (harness/stats/sprt.py) decides, or `max_games` is reached.

The games are those of `schedule(..., duplicate=True, seatings=...)` for `max_games`, in deal
order (a deal: every seating of the line-up's design, `dune_env.seatings`); each block of deals
is played (in parallel), then the test is run again over all the whole deals.
Extra games finished in the block that decides are kept in results.csv but not counted.  The
folder holds run.json (with the test's design: --resume refuses another one), results.csv,
summary.json (the decision and the LLR trace), report.md and sprt.png.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..match import DEFAULT_MAX_DECISIONS, GameSpec, lineup, schedule
from ..provenance import software_record
from ..seatings import DEFAULT_SEATINGS, deal_seatings
from .benchmark import (
    check_luck,
    check_options,
    checked_policies,
    checked_timeout,
    keep_result,
    open_results,
    play_items,
    run_record,
)
from .play.types import GameFailure, SeatResult
from .runs.outputs import CsvSink
from .runs.report import save_figure, write_json
from .stats.sprt import (
    H0,
    H1,
    Decision,
    SprtDesign,
    deal_scores,
    decide,
    default_block,
    fixed_sample_deals,
)

DEFAULT_MAX_GAMES = 4000  # rounded down to whole blocks

WORDS = {
    H1: "H1 accepted: {a} is stronger than {b} by at least {d1}",
    H0: "H0 accepted: {a} is not stronger than {b} by more than {d0}",
    "undecided": "undecided: the maximum of {games} games was reached before a decision",
}


@dataclass
class SprtResult:
    decision: Decision
    rows: list[SeatResult]
    failures: list[GameFailure]
    summary: dict[str, Any]
    out_dir: Path | None


def complete_deals(rows: list[SeatResult], num_players: int, per_deal: int) -> list[SeatResult]:
    """The rows of the complete deals 0, 1, ... (`per_deal` games each) up to the first
    incomplete one."""
    seats: dict[int, int] = {}
    for r in rows:
        seats[r.game // per_deal] = seats.get(r.game // per_deal, 0) + 1
    complete = 0
    while seats.get(complete, 0) == per_deal * num_players:
        complete += 1
    return [r for r in rows if r.game // per_deal < complete]


def _fmt(value: float, metric: str) -> str:
    return f"{value:+.1%}" if metric in ("control", "win") else f"{value:+.3f}"


def sprt_summary(
    rows: list[SeatResult],
    policies: list[str],
    num_players: int,
    max_games: int,
    design: SprtDesign,
    metric: str,
    luck_adjusted: bool = False,
    per_deal: int | None = None,
) -> dict[str, Any]:
    """The test over the finished deals (`per_deal` games each; default: the player count, as
    rotations): decision, deals and games used, the trace, and the estimate of the effect over
    the deals used (of luck-adjusted scores if `luck_adjusted`)."""
    import statistics

    a, b = policies[0], policies[1]
    per_deal = num_players if per_deal is None else per_deal
    rows = complete_deals(rows, num_players, per_deal)
    scores = deal_scores(rows, a, b, metric, luck_adjusted)
    decision = decide(scores, design)
    used = scores[: decision.deals]
    mean = statistics.fmean(used) if used else 0.0
    sd = statistics.stdev(used) if len(used) > 1 else 0.0
    finished = decision.decision != "undecided" or len(scores) * per_deal >= max_games
    words = WORDS[decision.decision].format(
        a=a, b=b, d0=_fmt(design.delta0, metric), d1=_fmt(design.delta1, metric), games=max_games
    )
    return {
        "a": a,
        "b": b,
        "metric": metric,
        "luck_adjusted": luck_adjusted,
        "design": asdict(design),
        "bounds": [design.lower, design.upper],
        "decision": decision.decision,
        "decision_text": words if finished else "not finished (interrupted or a game failed)",
        "finished": finished,
        "deals_used": decision.deals,
        "games_per_deal": per_deal,
        "games_used": decision.deals * per_deal,
        "deals_played": len(scores),
        "max_games": max_games,
        "llr": decision.llr,
        "trace": [
            {
                "deals": (i + 1) * design.block,
                "games": (i + 1) * design.block * per_deal,
                "llr": v,
            }
            for i, v in enumerate(decision.trace)
        ],
        "effect": mean,
        "effect_se": sd / len(used) ** 0.5 if used else 0.0,
        "deal_sd": sd,
        "fixed_sample_games": (fixed_sample_deals(sd, design) * per_deal if sd > 0 else None),
    }


def sprt_text(summary: dict[str, Any]) -> str:
    """The decision in a few lines, for the terminal and report.md."""
    s = summary["sprt"]
    d = s["design"]
    metric = "control-win rate" if s["metric"] == "control" else "win rate"
    lines = [
        f"SPRT {s['a']} vs {s['b']} ({metric} per seat, A − B, paired over duplicate deals): "
        f"H0 effect <= {_fmt(d['delta0'], 'control')}, H1 effect >= "
        f"{_fmt(d['delta1'], 'control')}, alpha {d['alpha']}, beta {d['beta']}",
        f"decision: {s['decision_text']}",
        f"used {s['games_used']} games ({s['deals_used']} deals of {s['games_per_deal']} "
        f"games, in blocks of {d['block']} deals); LLR {s['llr']:+.2f}, bounds "
        f"[{s['bounds'][0]:+.2f}, {s['bounds'][1]:+.2f}]; played {summary['games']} games",
        f"effect over the deals used: {_fmt(s['effect'], 'control')} (SE {s['effect_se']:.1%})",
    ]
    if s["fixed_sample_games"] is not None:
        lines.append(
            f"a fixed-size test of the same hypotheses and error rates would need about "
            f"{s['fixed_sample_games']:,.0f} games (from the per-deal SD {s['deal_sd']:.3f})"
        )
    return "\n".join(lines)


def sprt_report(summary: dict[str, Any]) -> str:
    s = summary["sprt"]
    trace = "\n".join(f"| {t['games']} | {t['deals']} | {t['llr']:+.3f} |" for t in s["trace"])
    meta = summary["meta"]
    return (
        f"# Sequential test: {s['a']} vs {s['b']}\n\n"
        + sprt_text(summary).replace("\n", "\n\n")
        + "\n\n![LLR trace](sprt.png)\n\n## LLR after each block\n\n"
        "| games | deals | LLR |\n|---:|---:|---:|\n"
        + trace
        + f"\n\n{meta['policies']} at {summary['num_players']} players, seed {meta['seed']}, "
        f"at most {s['max_games']} games; {meta['seconds']:.1f} s; seated in "
        f"{meta.get('seatings', 'rotations')} seatings. Method: Wald's SPRT on the per-deal "
        "difference, normal model with the variance estimated from the deals so far, no "
        "decision before a quarter of the fixed-size test's deals "
        '(docs/baselines.md, "Sequential testing").\n'
    )


def write_sprt_plot(summary: dict[str, Any], out_dir: Path) -> Path:
    """sprt.png: the LLR after each block against the games played, with both bounds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = summary["sprt"]
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [0] + [t["games"] for t in s["trace"]]
    ax.plot(xs, [0.0] + [t["llr"] for t in s["trace"]], marker=".", label="LLR")
    lower, upper = s["bounds"]
    ax.axhline(upper, color="tab:green", linestyle="--", label=f"accept H1 ({upper:+.2f})")
    ax.axhline(lower, color="tab:red", linestyle="--", label=f"accept H0 ({lower:+.2f})")
    ax.set_xlabel("games")
    ax.set_ylabel("log-likelihood ratio")
    ax.set_title(f"SPRT {s['a']} vs {s['b']}: {s['decision']} after {s['games_used']} games")
    ax.legend(loc="best", fontsize="small")
    return save_figure(fig, out_dir / "sprt.png")


def _checked_max_games(
    design: SprtDesign,
    metric: str,
    num_players: int,
    per_deal: int,
    max_games: int | None,
    seed: int,
    workers: int | None,
    config: dict[str, Any] | None,
) -> int:
    """`max_games` (default: the most whole blocks up to DEFAULT_MAX_GAMES, at least two)
    once the metric and the run's options are checked; ValueError names what is wrong."""
    from .stats.sprt import METRICS

    if metric not in METRICS:
        raise ValueError(f"metric={metric!r}: choose one of {', '.join(METRICS)}")
    unit = per_deal * design.block
    if max_games is None:
        max_games = max(2 * unit, DEFAULT_MAX_GAMES - DEFAULT_MAX_GAMES % unit)
    check_options(num_players, max_games, seed, workers, config)
    if max_games % unit or max_games < 2 * unit:
        raise ValueError(
            f"max games {max_games}: the test plays blocks of {design.block} deals of "
            f"{per_deal} games; give a multiple of {unit} of at least {2 * unit}"
        )
    return max_games


def _sized(
    policies: list[str],
    num_players: int,
    seatings: str,
    design: SprtDesign | None,
    metric: str,
    max_games: int | None,
    seed: int,
    workers: int | None,
    config: dict[str, Any] | None,
) -> tuple[int, SprtDesign, int]:
    """The games a deal, the test's design (default: `default_block` deals a block) and the
    checked maximum number of games."""
    if len(policies) < 2 or policies[0] == policies[1]:
        raise ValueError("the sequential test compares the first two policies: give two different")
    per_deal = len(deal_seatings(lineup(policies, num_players), seatings))
    design = design or SprtDesign(block=default_block(per_deal))
    max_games = _checked_max_games(
        design, metric, num_players, per_deal, max_games, seed, workers, config
    )
    return per_deal, design, max_games


def _play_blocks(
    pool: Any,
    specs: list[GameSpec],
    unit: int,
    undecided: Callable[[], bool],
    rows: list[SeatResult],
    failures: list[GameFailure],
    sink: CsvSink | None,
    bar: Any,
) -> bool:
    """Play `specs` in deal order, `unit` games at a time, while the test is `undecided` and
    no game failed; keep the results in `rows`/`failures` (and `sink`, `bar`, closed at the
    end).  True when interrupted (KeyboardInterrupt)."""
    remaining = sorted(specs, key=lambda s: s.index)
    try:
        while remaining and not failures:
            if not undecided():
                break
            batch, remaining = remaining[:unit], remaining[unit:]
            for _spec, result in play_items(pool, batch):
                keep_result(result, rows, failures, sink, bar)
    except KeyboardInterrupt:
        return True
    finally:
        if sink is not None:
            sink.close()
        if bar is not None:
            bar.close()
    return False


def _sprt_meta(
    run: dict[str, Any], max_games: int, workers: int, backend: str, resume: bool, start: float
) -> dict[str, Any]:
    """summary.json's "meta" of a sequential test."""
    keys = ("policies", "num_players", "seed", "config", "max_decisions")
    return {
        **{k: run[k] for k in keys},
        "seatings": run.get("seatings", "rotations"),
        "luck_samples": run.get("luck_samples", 0),
        "luck_model": run.get("luck_model", ""),
        "max_games": max_games,
        "workers": workers,
        "backend": backend,
        "resumed": resume,
        "seconds": time.perf_counter() - start,
        "software": software_record(),
    }


def run_sprt(
    policies: list[str],
    num_players: int = 4,
    max_games: int | None = None,
    seed: int = 0,
    design: SprtDesign | None = None,
    metric: str = "control",
    workers: int | None = 1,
    out_dir: str | Path | None = None,
    progress: bool = False,
    config: dict[str, Any] | None = None,
    plots: bool = True,
    move_timeout: float | None = None,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    resume: bool = False,
    overwrite: bool = True,
    trust_checkpoints: bool = False,
    backend: str = "local",
    address: str | None = None,
    luck_samples: int = 0,
    luck_model: str = "",
    seatings: str = DEFAULT_SEATINGS,
) -> SprtResult:
    """Test "policies[0] beats policies[1] by at least design.delta1" against "by at most
    design.delta0" on duplicate deals of the `seatings` design, stopping at the decision or at
    `max_games` (whole blocks; default: the most up to 4000).  `design` None: the default
    hypotheses, blocks of `sprt.default_block` deals.  Other arguments as run_benchmark (with
    `luck_samples`, on luck-adjusted scores).  A failed game stops the test (undecided; --resume
    plays it again); on KeyboardInterrupt the finished deals' summary is written first."""
    from .play.backends import open_backend
    from .runs.outputs import progress_bar

    check_luck(luck_samples, luck_model)
    luck, chance = bool(luck_samples), (luck_samples, luck_model)
    per_deal, design, max_games = _sized(
        policies, num_players, seatings, design, metric, max_games, seed, workers, config
    )
    unit, timeout = per_deal * design.block, checked_timeout(move_timeout)
    policies = checked_policies(policies, num_players, backend, address, trust_checkpoints)
    specs = schedule(policies, num_players, max_games, seed, config, True, *chance, seatings)
    run = run_record(
        policies, num_players, max_games, seed, config, True, max_decisions, *chance, seatings
    )
    run["sprt"] = {**asdict(design), "metric": metric}
    directory = Path(out_dir) if out_dir is not None else None
    rows: list[SeatResult] = []
    failures: list[GameFailure] = []

    def tested() -> dict[str, Any]:  # the test over the deals finished so far
        return sprt_summary(rows, policies, num_players, max_games, design, metric, luck, per_deal)

    start = time.perf_counter()
    with open_backend(backend, workers, timeout, max_decisions, address) as pool:
        sink = None
        if directory is not None:
            rows, sink, specs = open_results(directory, run, specs, resume, overwrite)
        bar = progress_bar(max_games, f"SPRT {policies[0]} vs {policies[1]}") if progress else None
        if bar is not None:
            bar.update(len({r.game for r in rows}))

        def undecided() -> bool:
            return bool(tested()["decision"] == "undecided")

        interrupted = _play_blocks(pool, specs, unit, undecided, rows, failures, sink, bar)
    rows.sort(key=lambda r: (r.game, r.seat))
    summary = {
        "num_players": num_players,
        "games": len({r.game for r in rows}),
        "incomplete": interrupted,
        "failures": [asdict(f) for f in failures],
        "sprt": tested(),
    }
    summary["meta"] = _sprt_meta(run, max_games, pool.size, backend, resume, start)
    if directory is not None:
        _write_sprt_outputs(directory, summary, failures, plots)
    if interrupted:
        raise KeyboardInterrupt
    a, b = policies[0], policies[1]
    scores = deal_scores(complete_deals(rows, num_players, per_deal), a, b, metric, luck)
    return SprtResult(decide(scores, design), rows, failures, summary, directory)


def _write_sprt_outputs(
    directory: Path, summary: dict[str, Any], failures: list[GameFailure], plots: bool
) -> None:
    """summary.json, report.md, failures.txt (when a game failed) and sprt.png (`plots`)."""
    from .runs.outputs import write_output

    write_json(directory / "summary.json", summary)
    write_output(directory / "report.md", sprt_report(summary))
    if failures:
        write_output(
            directory / "failures.txt",
            "\n\n".join(f"game {f.game} seed {f.seed} ({f.kind}): {f.error}" for f in failures),
        )
    if plots:
        write_sprt_plot(summary, directory)
