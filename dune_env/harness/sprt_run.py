"""The sequential test (`run_sprt`, `dune-bench --sprt`): play duplicate deals of A (the first
policy) against B (the second) one block at a time until the test (stats/sprt.py) decides, or
`max_games` is reached.

The games are those of `schedule(..., duplicate=True, seatings=...)` for `max_games`, in deal
order (a deal: every seating of the line-up's design, `dune_env.seatings`); each block of deals
is played (in parallel), then the test is run again over all the whole deals.
Extra games finished in the block that decides are kept in results.csv but not counted.  The
folder holds run.json (with the test's design: --resume refuses another one), results.csv,
summary.json (the decision and the LLR trace), report.md and sprt.png.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..match import lineup
from ..seatings import deal_seatings
from .frame import finish_run, play_run, prepare, run_meta
from .options import RunOptions, with_given
from .play.types import GameFailure, SeatResult
from .runs.report import save_figure
from .stats.sprt import (
    H0,
    H1,
    METRICS,
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


def _sized(
    policies: list[str],
    num_players: int,
    design: SprtDesign | None,
    metric: str,
    max_games: int | None,
    options: RunOptions,
) -> tuple[int, SprtDesign, int]:
    """The games a deal, the test's design (default: `default_block` deals a block) and the
    maximum number of games (default: the most whole blocks up to DEFAULT_MAX_GAMES, at least
    two); ValueError names what is wrong."""
    if len(policies) < 2 or policies[0] == policies[1]:
        raise ValueError("the sequential test compares the first two policies: give two different")
    if metric not in METRICS:
        raise ValueError(f"metric={metric!r}: choose one of {', '.join(METRICS)}")
    per_deal = len(deal_seatings(lineup(policies, num_players), options.seatings))
    design = design or SprtDesign(block=default_block(per_deal))
    unit = per_deal * design.block
    if max_games is None:
        max_games = max(2 * unit, DEFAULT_MAX_GAMES - DEFAULT_MAX_GAMES % unit)
    options.check_game(num_players, max_games)
    if max_games % unit or max_games < 2 * unit:
        raise ValueError(
            f"max games {max_games}: the test plays blocks of {design.block} deals of "
            f"{per_deal} games; give a multiple of {unit} of at least {2 * unit}"
        )
    return per_deal, design, max_games


def run_sprt(
    policies: list[str],
    num_players: int = 4,
    max_games: int | None = None,
    *,
    design: SprtDesign | None = None,
    metric: str = "control",
    options: RunOptions | None = None,
    **given: Any,
) -> SprtResult:
    """Test "policies[0] beats policies[1] by at least design.delta1" against "by at most
    design.delta0" on duplicate deals of the `options.seatings` design, stopping at the
    decision or at `max_games` (whole blocks; default: the most up to 4000).  `design` None:
    the default hypotheses, blocks of `sprt.default_block` deals.  `options` (or its fields as
    keyword arguments) as for run_benchmark; with `luck_samples`, on luck-adjusted scores; the
    test draws no bootstrap.  A failed game stops the test (undecided; `resume` plays it
    again); on KeyboardInterrupt the finished deals' summary is written first."""
    options = with_given(options, given)
    per_deal, design, max_games = _sized(policies, num_players, design, metric, max_games, options)
    policies, specs, run = prepare(policies, num_players, max_games, True, options)
    run["sprt"] = {**asdict(design), "metric": metric}
    luck = bool(options.luck_samples)

    def tested(rows: list[SeatResult]) -> dict[str, Any]:  # the test over the finished deals
        return sprt_summary(rows, policies, num_players, max_games, design, metric, luck, per_deal)

    def undecided(rows: list[SeatResult], failures: list[GameFailure]) -> bool:
        return not failures and tested(rows)["decision"] == "undecided"

    label = f"SPRT {policies[0]} vs {policies[1]}"
    session = play_run(specs, run, options, label, per_deal * design.block, undecided)
    rows = session.rows
    summary = {
        "num_players": num_players,
        "games": len({r.game for r in rows}),
        "incomplete": session.interrupted,
        "failures": [asdict(f) for f in session.failures],
        "sprt": tested(rows),
    }
    summary["meta"] = run_meta(run, session, options) | {"max_games": max_games}
    plot = write_sprt_plot if options.plots else None
    finish_run(session, summary, sprt_report(summary), options, plot)
    a, b = policies[0], policies[1]
    scores = deal_scores(complete_deals(rows, num_players, per_deal), a, b, metric, luck)
    return SprtResult(decide(scores, design), rows, session.failures, summary, options.folder)
