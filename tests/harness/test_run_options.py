"""`RunOptions`: the one value the benchmark, the sequential test and the suite take."""

from __future__ import annotations

from pathlib import Path

import pytest

from dune_env.engine import ConfigError
from dune_env.harness import RunOptions, run_benchmark, run_sprt, run_suite
from dune_env.harness.cli import main as bench_main


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("seed", -1, "seed"),
        ("workers", 0, "workers=0"),
        ("bootstrap", -5, "bootstrap=-5"),
        ("move_timeout", 0, "move_timeout=0"),
        ("move_timeout", "fast", "move_timeout='fast'"),
        ("seatings", "circles", "circles"),
        ("backend", "cloud", "cloud"),
        ("luck_model", "values.npz", "luck value model"),
    ],
)
def test_a_bad_field_is_refused_by_name(field: str, value: object, named: str) -> None:
    with pytest.raises((ValueError, TypeError, ConfigError), match=named):
        RunOptions(**{field: value})  # type: ignore[arg-type]


def test_game_options_the_harness_sets_are_refused() -> None:
    with pytest.raises(ConfigError, match="'num_players' cannot be set"):
        RunOptions(config={"num_players": 4})
    with pytest.raises(ConfigError, match="unknown game option 'strikt'"):
        RunOptions(config={"strikt": True})


def test_resume_needs_a_run_folder() -> None:
    with pytest.raises(ValueError, match="resume=True needs out_dir"):
        RunOptions(resume=True)


def test_keyword_arguments_of_earlier_versions_are_the_options_fields() -> None:
    """`run_benchmark(..., seed=3)` and `options=RunOptions(seed=3)` play the same games."""
    by_keyword = run_benchmark(["random", "economic"], 3, 6, seed=3, plots=False, bootstrap=0)
    options = RunOptions(seed=3, plots=False, bootstrap=0)
    by_value = run_benchmark(["random", "economic"], 3, 6, options=options)
    assert by_keyword.rows == by_value.rows
    assert by_keyword.summary["meta"]["seed"] == 3
    with pytest.raises(TypeError, match="unknown run option.*sede"):
        run_benchmark(["random", "economic"], 3, 6, sede=3)


def test_the_suite_refuses_options_that_would_change_its_games() -> None:
    with pytest.raises(ValueError, match="the suite fixes its games: leave seatings"):
        run_suite(["random"], short=True, options=RunOptions(seatings="rotations"))


def test_the_sequential_test_takes_the_same_options(tmp_path: Path) -> None:
    options = RunOptions(seed=4, out_dir=tmp_path / "t", plots=False)
    result = run_sprt(["economic", "random"], 3, max_games=96, options=options)
    assert result.summary["meta"]["seed"] == 4
    assert (tmp_path / "t" / "summary.json").is_file()


def test_sprt_refuses_a_bootstrap_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """--bootstrap was silently ignored by --sprt; now it is refused, the other refusals as
    before."""
    args = ["--sprt", "--policies", "economic", "random", "--players", "3"]
    assert bench_main([*args, "--bootstrap", "50"]) == 2
    assert capsys.readouterr().err.strip() == (
        "dune-bench: --sprt draws no bootstrap (the test has no strength intervals); "
        "drop --bootstrap"
    )
    assert bench_main([*args, "--games", "10"]) == 2
    assert capsys.readouterr().err.strip() == (
        "dune-bench: --sprt chooses the number of games itself (give --max-games) and always "
        "plays duplicate deals; drop --games"
    )
    assert bench_main(["--policies", "economic", "random", "--bootstrap", "-1"]) == 2
    assert capsys.readouterr().err.strip() == "dune-bench: --bootstrap must be from 0 to 100,000"
