"""The benchmark in plain words: a verdict per policy, the legend of the terms, and the flag
for games that cannot tell the policies apart (END-1/END-2 control wins vs END-5/END-6
time-out wins)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dune_env.harness import run_benchmark
from dune_env.harness.cli import main as bench_main
from dune_env.harness.play.types import SeatResult
from dune_env.harness.runs.report import leaderboard
from dune_env.harness.stats.summary import summarise
from dune_env.harness.stats.verdict import cannot_tell_apart, verdict_line, verdicts

WEAK = ["tests.harness.weak_policies:First", "tests.harness.weak_policies:Last", "random"]


def _row(game: int, seat: int, policy: str, won: int, kind: str) -> SeatResult:
    factions = ["A", "B", "C", "D"]
    return SeatResult(
        game, game, 4, seat, factions[(seat + game) % 4], policy, won, 0.0, kind, 0, 6, 9
    )


def _summary_where_x_wins_by_control(games: int = 80) -> dict:
    """x wins half its games by END-1, the others share the rest: x is clearly above."""
    rows = []
    for g in range(games):
        names = ["x", "random", "y", "random"]
        names = names[g % 4 :] + names[: g % 4]
        winner = names.index("x") if g % 2 == 0 else (g // 2) % 4
        rows += [_row(g, s, p, int(s == winner), "solo") for s, p in enumerate(names)]
    return summarise(rows, bootstrap=50)


def test_verdict_line_says_above_level_or_below_with_strength_interval_and_chance() -> None:
    summary = _summary_where_x_wins_by_control()
    assert summary["cannot_tell_apart"] is None
    line = verdict_line("x", summary)
    assert line.startswith("x vs random: above (stronger) — strength +")
    assert "log-odds; win rate" in line and "(chance at 4 players is 25%)" in line
    low, high = summary["policies"]["y"]["strength_ci95"]
    word = "above" if low > 0 else "below" if high < 0 else "level"
    assert verdict_line("y", summary).startswith(f"y vs random: {word}")
    # the reference is not judged against itself; strongest first
    assert [line.split(" vs ")[0] for line in verdicts(summary)] == ["x", "y"]


def test_leaderboard_shows_the_reference_as_such_not_as_a_certain_zero() -> None:
    text = leaderboard(_summary_where_x_wins_by_control())
    assert "| random | 160 | 0 (reference) | – |" in text
    assert "[+0.00, +0.00]" not in text


def test_only_time_out_wins_cannot_tell_policies_apart() -> None:
    """END-5: whoever holds the Guild wins a time-out, so games won only that way carry no
    evidence about the policies: flagged, never a zero-width interval."""
    rows = []
    for g in range(12):
        names = ["x", "y", "random", "random"]
        kind = "timeout" if g % 3 else "none"
        rows += [
            _row(g, s, p, int(kind == "timeout" and (s + g) % 4 == 0), kind)
            for s, p in enumerate(names)
        ]
    summary = summarise(rows, bootstrap=30)
    reason = cannot_tell_apart(summary)
    assert reason == (
        "no game of 12 was won by control (END-1/END-2); 8 time-out wins went to the "
        "faction, not the play; 4 of 12 had no winner"
    )
    assert summary["cannot_tell_apart"] == reason
    text = leaderboard(summary)
    assert "n/a ‡" in text and "‡ the games cannot tell the policies apart" in text
    assert verdict_line("x", summary).startswith("x vs random: cannot tell apart; win rate")


def test_a_tiny_run_of_weak_policies_is_flagged_in_terminal_and_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three weak policies at 3 players: every win is a time-out or nobody wins (the issue's
    case, which printed "+0.00 [-0.00, +0.00]" for every row)."""
    out = tmp_path / "weak"
    args = ["--policies", *WEAK, "--players", "3", "--games", "30", "--duplicate"]
    code = bench_main([*args, "--workers", "1", "--no-progress", "--no-plots", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "The games cannot tell the policies apart: no game of 30 was won by control" in printed
    assert "[-0.00, +0.00]" not in printed and "[+0.00, +0.00]" not in printed
    assert "chance at 3 players is 33%" in printed
    assert "How to read this (docs/baselines.md" in printed and "control win:" in printed
    report = (out / "report.md").read_text()
    assert "## Verdict" in report and "cannot tell the policies apart" in report
    assert "time-out win: nobody won by the end of round 6" in report


def test_decisive_games_are_judged() -> None:
    """Heuristics against random win by control (END-1/END-2): a verdict, not the flag."""
    result = run_benchmark(
        ["aggressive", "random"], num_players=3, games=12, duplicate=True, bootstrap=20
    )
    assert (
        result.summary["win_kinds"].get("solo", 0) + result.summary["win_kinds"].get("alliance", 0)
        > 0
    )
    assert result.summary["cannot_tell_apart"] is None
    (line,) = verdicts(result.summary)
    assert line.startswith("aggressive vs random: ") and "log-odds" in line


def test_wins_the_factions_explain_alone_cannot_tell_policies_apart() -> None:
    """One control win (END-1), by the faction that also wins every time-out (END-5): the fit
    gives it to the faction and every interval has zero width; flagged."""
    rows = []
    for g in range(30):
        names = ["x", "y", "random"]
        names = names[g % 3 :] + names[: g % 3]
        kind = "solo" if g == 0 else "timeout"
        for s, p in enumerate(names):
            faction = "ABC"[(s + g // 3) % 3]
            won = int(p == "x") if kind == "solo" else int(faction == "A")
            rows.append(SeatResult(g, g // 3, 3, s, faction, p, won, 0.0, kind, 0, 6, 9))
    summary = summarise(rows, duplicate=True, bootstrap=50)
    assert summary["cannot_tell_apart"] == (
        "every strength interval has zero width (the factions alone explain the wins)"
    )


def test_a_small_bootstrap_is_not_taken_for_a_failed_fit() -> None:
    """Fewer than 20 resamples mark the fit unconverged (stats.fit_strength); the games can
    still tell the policies apart."""
    rows = []
    for g in range(40):
        names = ["x", "random", "random", "random"]
        names = names[g % 4 :] + names[: g % 4]
        winner = (names.index("x") + (g % 5 == 0)) % 4  # x wins 4 games in 5
        rows += [_row(g, s, p, int(s == winner), "solo") for s, p in enumerate(names)]
    summary = summarise(rows, bootstrap=5)
    assert summary["strength_fit"]["converged"] is False
    assert summary["cannot_tell_apart"] is None
