"""Issue 11 §3: the benchmark always finishes and keeps every result.  Misbehaving policies
come from tests/harness/bad_policies.py; with --seed 0 they go wrong in the even games only."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from dune_env.engine import Game, GameConfig
from dune_env.harness import run_benchmark
from dune_env.harness.cli import main as bench_main
from dune_env.harness.runs.outputs import OutputError
from dune_env.policies.observation import ObservationPolicy, ObservationPolicyError

BAD = "tests.harness.bad_policies"
# random under another name: the same seatings (and so the same games) as a line-up with a
# misbehaving policy in its place, which plays as random wherever it does not misbehave.
RANDOM_COPY = "dune_env.policies.base:RandomPolicy"
ROOT = Path(__file__).resolve().parents[2]


def _csv_games(path: Path) -> dict[int, int]:
    counts: dict[int, int] = {}
    with path.open() as handle:
        for row in csv.DictReader(handle):
            counts[int(row["game"])] = counts.get(int(row["game"]), 0) + 1
    return counts


def _outcomes(rows: list) -> list[tuple[int, int, int, float, int, int]]:
    return [(r.game, r.seat, r.won, r.reward, r.rounds, r.decisions) for r in rows]


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize(
    ("policy", "kind"),
    [("Exit", "exit"), ("Interrupt", "exit"), ("HardExit", "crash"), ("SelfKill", "crash")],
)
def test_exiting_or_dying_policy_loses_only_its_games(
    tmp_path: Path, policy: str, kind: str, workers: int
) -> None:
    """sys.exit, KeyboardInterrupt, os._exit and SIGKILL in a policy: that game is a failure
    naming the policy, the worker is replaced, the other games are kept (also with one
    worker), and summary.json / report.md are written."""
    spec = f"{BAD}:{policy}"
    result = run_benchmark(
        ["random", spec],
        num_players=3,
        games=4,
        seed=0,
        workers=workers,
        out_dir=tmp_path,
        plots=False,
    )
    assert [f.game for f in result.failures] == [0, 2]
    assert {f.kind for f in result.failures} == {kind}
    assert {f.policy for f in result.failures} == {spec}
    assert all(spec in f.error for f in result.failures)
    assert sorted({r.game for r in result.rows}) == [1, 3]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["failed_games"] == 2 and summary["games"] == 2
    assert {f["policy"] for f in summary["failures"]} == {spec}
    assert {f["kind"] for f in summary["failures"]} == {kind}
    assert "Failed games" in (tmp_path / "report.md").read_text()
    assert _csv_games(tmp_path / "results.csv") == {1: 3, 3: 3}
    # The games that went right are exactly those of a run without the misbehaviour.
    clean = run_benchmark(["random", RANDOM_COPY], num_players=3, games=4, seed=0, plots=False)
    assert _outcomes(result.rows) == [o for o in _outcomes(clean.rows) if o[0] in (1, 3)]


@pytest.mark.parametrize("workers", [1, 2])
def test_hanging_policy_times_out_naming_the_policy(tmp_path: Path, workers: int) -> None:
    spec = f"{BAD}:Hang"
    result = run_benchmark(
        ["random", spec],
        num_players=3,
        games=4,
        seed=0,
        workers=workers,
        out_dir=tmp_path,
        plots=False,
        move_timeout=1.0,
    )
    assert [f.game for f in result.failures] == [0, 2]
    assert {f.kind for f in result.failures} == {"timeout"}
    assert {f.policy for f in result.failures} == {spec}
    assert "move timeout of 1 s" in result.failures[0].error
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [f["kind"] for f in summary["failures"]] == ["timeout", "timeout"]
    assert summary["games"] == 2


def test_hanging_observation_policy_times_out(tmp_path: Path) -> None:
    spec = f"{BAD}:slow_observation_policy"
    result = run_benchmark(
        ["random", spec],
        num_players=3,
        games=1,
        seed=0,
        out_dir=tmp_path,
        plots=False,
        move_timeout=1.0,
    )
    assert [(f.kind, f.policy) for f in result.failures] == [("timeout", spec)]


def test_decision_cap_fails_the_game_naming_the_deciding_policy() -> None:
    result = run_benchmark(
        ["random"], num_players=3, games=2, seed=0, plots=False, max_decisions=25
    )
    assert [f.kind for f in result.failures] == ["decision-cap", "decision-cap"]
    assert all(f.policy == "random" and "cap of 25" in f.error for f in result.failures)


def test_policy_editing_its_game_changes_nothing() -> None:
    """Engine policies decide on a clone: a policy that rewinds the round and moves its
    pieces (which made the game endless before) plays exactly as RandomPolicy."""
    edited = run_benchmark(["random", f"{BAD}:Editor"], num_players=3, games=3, seed=2, plots=False)
    clean = run_benchmark(["random", RANDOM_COPY], num_players=3, games=3, seed=2, plots=False)
    assert not edited.failures
    assert _outcomes(edited.rows) == _outcomes(clean.rows)


def test_a_policy_claiming_a_project_module_name_still_decides_on_a_clone() -> None:
    """Trust is by class identity: an Editor whose class says it lives in
    dune_env.policies.heuristics is handed a clone, so its edits change nothing."""
    spoofed = run_benchmark(
        ["random", f"{BAD}:SpoofedEditor"], num_players=3, games=3, seed=2, plots=False
    )
    clean = run_benchmark(["random", RANDOM_COPY], num_players=3, games=3, seed=2, plots=False)
    assert not spoofed.failures
    assert _outcomes(spoofed.rows) == _outcomes(clean.rows)


def test_a_policy_patching_the_result_class_in_its_worker_changes_no_result() -> None:
    """The worker sends the engine's final outcome as plain data; the rows are built by the
    benchmark's own process, so a patched SeatResult in the worker forges nothing."""
    forged = run_benchmark(
        ["random", f"{BAD}:ResultForger"], num_players=3, games=3, seed=2, plots=False
    )
    clean = run_benchmark(["random", RANDOM_COPY], num_players=3, games=3, seed=2, plots=False)
    assert not forged.failures
    assert _outcomes(forged.rows) == _outcomes(clean.rows)
    assert sum(r.won for r in forged.rows) < len(forged.rows)


def test_the_project_trusts_only_its_registered_classes() -> None:
    from dune_env.match import is_builtin
    from dune_env.policies.registry import load_policy
    from tests.harness.bad_policies import SpoofedEditor

    assert all(is_builtin(load_policy(name)) for name in ("random", "aggressive", "mcts"))
    assert is_builtin(load_policy("aggressive-eps20"))
    assert not is_builtin(SpoofedEditor())
    patched = load_policy("aggressive")
    patched.act = lambda game, seat: 0  # type: ignore[method-assign]
    assert not is_builtin(patched)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("stop", ["ctrl-c", "sigterm"])
def test_ctrl_c_stops_promptly_and_writes_the_summary(tmp_path: Path, stop: str) -> None:
    out = tmp_path / "run"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dune_env.harness.cli",
            "--policies",
            "random",
            "--players",
            "3",
            "--games",
            "100000",
            "--workers",
            "2",
            "--out",
            str(out),
            "--no-plots",
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A suite started in the background by a non-interactive shell ignores SIGINT, and an
        # ignored signal is inherited: dune-bench would then (rightly) ignore Ctrl-C too.
        preexec_fn=_default_sigint,
    )
    try:
        deadline = time.monotonic() + 60
        while (
            time.monotonic() < deadline
            and len(_csv_games(out / "results.csv") if (out / "results.csv").exists() else {}) < 3
        ):
            time.sleep(0.2)
        if stop == "ctrl-c":
            os.killpg(process.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        else:
            os.kill(process.pid, signal.SIGTERM)  # a job scheduler, `timeout`
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["incomplete"] is True
    assert summary["games"] >= 3
    assert "Incomplete run" in (out / "report.md").read_text()


def test_resume_plays_only_the_missing_games(tmp_path: Path) -> None:
    full = run_benchmark(["random", "economic"], num_players=3, games=5, seed=4, plots=False)
    out = tmp_path / "run"
    run_benchmark(["random", "economic"], num_players=3, games=5, seed=4, out_dir=out, plots=False)
    # Simulate a run cut short: keep games 0-1 and half of game 2's rows.
    lines = (out / "results.csv").read_text().splitlines()
    header, rows = lines[0], lines[1:]
    rows.sort(key=lambda line: int(line.split(",")[0]))
    (out / "results.csv").write_text("\n".join([header, *rows[:7]]) + "\n")
    with pytest.raises(OutputError, match="not empty; pass --resume"):
        run_benchmark(
            ["random", "economic"], num_players=3, games=5, seed=4, out_dir=out, overwrite=False
        )
    with pytest.raises(OutputError, match="different games"):
        run_benchmark(
            ["random", "economic"], num_players=3, games=6, seed=4, out_dir=out, resume=True
        )
    resumed = run_benchmark(
        ["random", "economic"],
        num_players=3,
        games=5,
        seed=4,
        out_dir=out,
        plots=False,
        resume=True,
    )
    assert _outcomes(resumed.rows) == _outcomes(full.rows)
    assert _csv_games(out / "results.csv") == {g: 3 for g in range(5)}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 5


@pytest.mark.parametrize("name", ["summary.json", "results.csv", "report.md"])
def test_symlink_planted_in_the_output_folder_is_not_followed(tmp_path: Path, name: str) -> None:
    out = tmp_path / "run"
    run_benchmark(["random"], num_players=3, games=1, seed=0, out_dir=out, plots=False)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (out / name).unlink()
    (out / name).symlink_to(victim)
    with pytest.raises(OutputError, match="symbolic link"):
        run_benchmark(["random"], num_players=3, games=1, seed=0, out_dir=out, resume=True)
    assert victim.read_text() == "precious"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "bogus=1"], "unknown game option 'bogus'"),
        (["--set", "num_players=5"], "'num_players' cannot be set"),
        (["--set", "faction_mode=draft"], "'faction_mode' cannot be set"),
        (["--set", "win_reward=1e400"], "finite"),
        (["--games", "0"], "positive number of games"),
        (["--games", "-3"], "positive number of games"),
        (["--seed", "-1"], "seed"),
        (["--seed", str(2**64)], "seed"),
        (["--workers", "0"], "at least 1"),
        (["--move-timeout", "0"], "positive number of seconds"),
        (["--resume"], "--resume needs --out"),
    ],
)
def test_command_errors_are_one_line(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = bench_main(
        [
            "--policies",
            "random",
            "--players",
            "3",
            "--games",
            "1",
            "--no-progress",
            "--out",
            str(tmp_path / "o"),
            *args,
        ]
        if "--resume" not in args
        else ["--policies", "random", *args]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and message in err, err


def test_command_refuses_an_out_that_is_a_file_or_not_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    base = ["--policies", "random", "--players", "3", "--games", "1", "--no-progress", "--no-plots"]
    assert bench_main([*base, "--out", str(a_file)]) == 2
    assert "is an existing file" in capsys.readouterr().err
    assert bench_main([*base, "--out", str(tmp_path / "run")]) == 0
    capsys.readouterr()
    assert bench_main([*base, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not empty; pass --resume" in err


def test_command_without_out_never_overwrites_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    base = ["--policies", "random", "--players", "3", "--games", "1", "--no-progress", "--no-plots"]
    assert bench_main(base) == 0
    first = (tmp_path / "runs/benchmark/results.csv").read_text()
    assert bench_main(base) == 0
    assert (tmp_path / "runs/benchmark/results.csv").read_text() == first
    assert (tmp_path / "runs/benchmark-2/summary.json").exists()
    assert "runs/benchmark-2/report.md" in capsys.readouterr().out


def test_command_imports_module_policies_from_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: `dune-bench --policies my_module:my_policy` run from the module's folder."""
    (tmp_path / "my_bench_policy_i11.py").write_text(
        "def my_policy(observation, action_mask):\n    return int(action_mask.nonzero()[0][0])\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    code = bench_main(
        [
            "--policies",
            "my_bench_policy_i11:my_policy",
            "random",
            "--players",
            "3",
            "--games",
            "2",
            "--no-progress",
            "--no-plots",
            "--out",
            "o",
        ]
    )
    assert code == 0
    assert json.loads((tmp_path / "o/summary.json").read_text())["games"] == 2


def test_progress_without_a_terminal_is_plain_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_benchmark(["random"], num_players=3, games=4, seed=0, plots=False, progress=True)
    err = capsys.readouterr().err
    assert "\r" not in err
    assert "3p benchmark: 4/4 games" in err.splitlines()


@pytest.mark.parametrize("action", [8.9, 8.0, "8", None])
def test_observation_policy_rejects_non_integer_actions(action: object) -> None:
    """As the env does (check_action): 8.9 used to be truncated to 8."""
    game = Game(GameConfig(num_players=3), seed=0)
    legal = game.legal_options()
    policy = ObservationPolicy(lambda obs, mask: action, name="floaty")
    with pytest.raises(ObservationPolicyError, match="floaty"):
        policy.act(game, game.pending.seat)
    assert legal  # (the game itself is untouched)


def test_observation_policy_accepts_numpy_integers() -> None:
    game = Game(GameConfig(num_players=3), seed=0)
    policy = ObservationPolicy(lambda obs, mask: np.int64(np.flatnonzero(mask)[0]), name="np")
    assert policy.act(game, game.pending.seat) in game.legal_options()


@pytest.mark.parametrize("name", ["random", "aggressive", "economic"])
def test_project_policies_never_edit_the_game(name: str) -> None:
    """The harness hands the project's own policies the live game (no clone): they must only
    read it."""
    from dune_env.policies.registry import load_policy

    policy = load_policy(name, seed=1)
    for seed in range(3):
        game = Game(GameConfig(num_players=5), seed=seed)
        while not game.terminal:
            before = game.to_json()
            seat = game.pending.seat
            option = policy.act(game, seat)
            assert game.to_json() == before
            game.apply(option)


def test_api_overwrite_replaces_the_earlier_runs_files_without_following_links(
    tmp_path: Path,
) -> None:
    """run_benchmark(overwrite=True), the API default: no stale failures.txt survives, and a
    planted link is removed, not written through."""
    out = tmp_path / "run"
    run_benchmark(["random", f"{BAD}:Exit"], num_players=3, games=2, seed=0, out_dir=out)
    assert (out / "failures.txt").exists()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (out / "summary.json").unlink()
    (out / "summary.json").symlink_to(victim)
    run_benchmark(["random"], num_players=3, games=2, seed=0, out_dir=out, plots=False)
    assert not (out / "failures.txt").exists()
    assert not (out / "summary.json").is_symlink()
    assert json.loads((out / "summary.json").read_text())["games"] == 2
    assert victim.read_text() == "precious"
