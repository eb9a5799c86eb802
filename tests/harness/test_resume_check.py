"""`--resume` checks every row of results.csv against the run's schedule (issue 21, item 4): a
tampered file is refused, naming its first bad row, instead of being summarised as given."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from dune_env.harness import run_benchmark
from dune_env.harness.cli import main as bench_main
from dune_env.harness.runs.outputs import OutputError

from .run_folder import Rows, copy_run, read_results, write_results

POLICIES = ["random", "economic"]
RUN = {"num_players": 3, "games": 6, "seed": 4}


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("finished") / "run"
    run_benchmark(POLICIES, out_dir=out, plots=False, **RUN)  # type: ignore[arg-type]
    return out


def _resume(out: Path) -> None:
    run_benchmark(POLICIES, out_dir=out, plots=False, resume=True, **RUN)  # type: ignore[arg-type]


def _first(rows: Rows, won: str) -> int:
    """Index of the first row of a game with a single winner whose `won` is as given."""
    solo = {r["game"] for r in rows if r["win_kind"] == "solo"}
    return next(i for i, r in enumerate(rows) if r["game"] in solo and r["won"] == won)


def _forge_win(rows: Rows) -> None:  # a loser marked as the winner, reward left as played
    rows[_first(rows, "0")]["won"] = "1"


def _forge_win_and_reward(rows: Rows) -> None:  # ... and its reward too: two solo winners
    row = rows[_first(rows, "0")]
    row["won"], row["reward"] = "1", "1.0"


def _extra_game(game: str) -> Callable[[Rows], None]:
    def tamper(rows: Rows) -> None:
        rows.extend({**r, "game": game} for r in rows[:3])

    return tamper


def _duplicate_row(rows: Rows) -> None:
    rows.append(dict(rows[4]))


def _swap_policy(rows: Rows) -> None:
    row = rows[2]
    row["policy"] = "economic" if row["policy"] == "random" else "random"


def _change_faction(rows: Rows) -> None:
    row = rows[1]
    row["faction"] = "Atreides" if row["faction"] != "Atreides" else "Harkonnen"


def _mixed_win_kind(rows: Rows) -> None:
    row = rows[_first(rows, "0")]
    row["win_kind"] = "timeout"


def _bad_number(rows: Rows) -> None:
    rows[3]["rounds"] = "many"


def _wrong_seed(rows: Rows) -> None:
    rows[0]["seed"] = str(int(rows[0]["seed"]) + 1)


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (_forge_win, r"won=1 but its reward is -1"),
        (_forge_win_and_reward, r"a solo win \(win_kind 'solo'\) with 2 winners"),
        (_extra_game("9999"), r"game 9999 is not in this run \(games 0 to 5\)"),
        (_extra_game("-5"), r"game -5 is not in this run \(games 0 to 5\)"),
        (_duplicate_row, r"a second row for game \d, seat \d"),
        (_swap_policy, r"policy '\w+' but the schedule seats '\w+' there"),
        (_change_faction, r"faction '\w+' but the schedule deals '\w+' there"),
        (_mixed_win_kind, r"win_kind '\w+' but line \d+ of the same game says '\w+'"),
        (_bad_number, r"rounds='many' is not an integer"),
        (_wrong_seed, r"seed \d+ but game 0 is played with seed \d+"),
    ],
)
def test_resume_refuses_a_tampered_results_csv_naming_the_first_bad_row(
    finished_run: Path, tmp_path: Path, tamper: Callable[[Rows], None], message: str
) -> None:
    out = copy_run(finished_run, tmp_path)
    fieldnames, rows = read_results(out)
    tamper(rows)
    write_results(out, fieldnames, rows)
    before = (out / "summary.json").read_text()
    with pytest.raises(OutputError, match=r"results\.csv line \d+ \(game -?\d+, seat \d+\): ") as e:
        _resume(out)
    assert e.match(message)
    assert (out / "summary.json").read_text() == before  # nothing summarised from forged rows


def test_resume_of_an_untouched_run_plays_nothing_and_keeps_its_rows(
    finished_run: Path, tmp_path: Path
) -> None:
    out = copy_run(finished_run, tmp_path)
    _, rows = read_results(out)
    result = run_benchmark(POLICIES, out_dir=out, plots=False, resume=True, **RUN)  # type: ignore[arg-type]
    assert result.summary["games"] == 6
    assert read_results(out)[1] == rows


def test_resume_replays_a_game_whose_last_row_a_crash_cut_short(
    finished_run: Path, tmp_path: Path
) -> None:
    out = copy_run(finished_run, tmp_path)
    text = (out / "results.csv").read_text()
    (out / "results.csv").write_text(text[: text.rstrip("\n").rfind(",")])  # mid-row
    _, rows = read_results(copy_run(finished_run, tmp_path / "clean"))
    result = run_benchmark(POLICIES, out_dir=out, plots=False, resume=True, **RUN)  # type: ignore[arg-type]
    assert result.summary["games"] == 6
    key = ["game", "seat", "won", "reward", "decisions"]
    assert sorted([r[k] for k in key] for r in read_results(out)[1]) == sorted(
        [r[k] for k in key] for r in rows
    )


def test_command_names_the_bad_row_in_one_line(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = copy_run(finished_run, tmp_path)
    fieldnames, rows = read_results(out)
    _duplicate_row(rows)
    write_results(out, fieldnames, rows)
    argv = ["--policies", *POLICIES, "--players", "3", "--games", "6", "--seed", "4"]
    code = bench_main([*argv, "--out", str(out), "--resume", "--no-progress", "--no-plots"])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "line 20 (game" in err and "a second row for game" in err


def test_a_resume_that_plays_nothing_reports_no_speed(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 21, item 6: the speed counts only the games played in this session."""
    out = copy_run(finished_run, tmp_path)
    argv = ["--policies", *POLICIES, "--players", "3", "--games", "6", "--seed", "4"]
    assert bench_main([*argv, "--out", str(out), "--resume", "--no-progress", "--no-plots"]) == 0
    printed = capsys.readouterr().out
    meta = json.loads((out / "summary.json").read_text())["meta"]
    assert meta["games_played"] == 0 and meta["games_per_second"] == 0.0
    assert "games/s" not in printed and "6 games (none played now" in printed
