"""Issue 31, items 1, 2, 3 and 6 through the harness: policy code never reaches the live game or
a result, the benchmark derives every result from its own replay of the game's decisions, a
consistent forgery in a sequential test's or a suite's results is refused on resume, and counts
have upper bounds.  The cheating policies are in tests/harness/cheating_policies.py."""

from __future__ import annotations

import csv
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import dune_env.harness.workers as workers
from dune_env.harness import run_benchmark
from dune_env.harness.cli import main as bench_main
from dune_env.harness.outputs import OutputError
from dune_env.harness.replayed import (
    MAX_MESSAGE_BYTES,
    NotReplayed,
    checked_luck,
    decode_played,
    derive_rows,
)
from dune_env.harness.types import GameFailure, GameRecord
from dune_env.match import schedule

CHEAT = "tests.harness.cheating_policies"
# random under another name: the same seatings (and so the same games) as a line-up with a
# cheating policy in its place, which plays as random wherever it does not cheat.
RANDOM_COPY = "dune_env.policies.base:RandomPolicy"
ROOT = Path(__file__).resolve().parents[2]


def _outcomes(rows: list[Any]) -> list[tuple[Any, ...]]:
    return [(r.game, r.seat, r.won, r.reward, r.win_kind, r.rounds, r.decisions) for r in rows]


def _wins(rows: list[Any], policy: str) -> int:
    return sum(r.won for r in rows if r.policy == policy)


# --- item 1: policy code sees only what its seat may see -------------------------------------


def test_a_frame_walking_observation_callable_wins_no_more_than_an_honest_one() -> None:
    """The issue's attack: a plain observation callable (the ppo-4p network) walks
    sys._getframe up to a frame holding the live game and moves its reserve onto the board.
    It won 8 of its 16 seats against economic (the same callable without the walk: none); it
    now plays in its own process and plays exactly as the honest callable."""
    cheat, honest = f"{CHEAT}:frame_walker", f"{CHEAT}:honest_observer"
    cheating = run_benchmark(["economic", cheat], num_players=4, games=8, seed=5, plots=False)
    fair = run_benchmark(["economic", honest], num_players=4, games=8, seed=5, plots=False)
    assert not cheating.failures and not fair.failures
    assert _wins(cheating.rows, cheat) <= _wins(fair.rows, honest)
    assert _outcomes(cheating.rows) == _outcomes(fair.rows)


@pytest.mark.parametrize(
    ("cheat", "honest"),
    [("gc_walker", "honest_picker"), ("FrameWalkingEngine", RANDOM_COPY)],
    ids=["garbage-collector", "engine-policy-frames"],
)
def test_policy_code_reaches_no_live_game(cheat: str, honest: str) -> None:
    """A callable searching the garbage collector for games, and an engine policy (handed a
    copy) walking up to its callers' frames for the live game: neither changes a game."""
    spec = f"{CHEAT}:{cheat}"
    honest_spec = honest if ":" in honest else f"{CHEAT}:{honest}"
    cheating = run_benchmark(["economic", spec], num_players=4, games=4, seed=5, plots=False)
    fair = run_benchmark(["economic", honest_spec], num_players=4, games=4, seed=5, plots=False)
    assert not cheating.failures
    assert _outcomes(cheating.rows) == _outcomes(fair.rows)


def test_a_registered_factory_plays_in_a_process_of_its_own() -> None:
    """register_policy: the factory's policy is user code too (a frame walker here)."""
    from dune_env.policies.registry import _USER_POLICIES, register_policy
    from tests.harness.cheating_policies import FrameWalkingEngine

    register_policy("walker-31", FrameWalkingEngine)
    try:
        walked = run_benchmark(["economic", "walker-31"], num_players=4, games=4, seed=5)
        fair = run_benchmark(["economic", RANDOM_COPY], num_players=4, games=4, seed=5)
    finally:
        _USER_POLICIES.pop("walker-31")
    assert not walked.failures
    assert _outcomes(walked.rows) == _outcomes(fair.rows)


def test_user_callables_are_untrusted_whatever_wraps_them() -> None:
    from dune_env.match import is_builtin
    from dune_env.policies.observation import ObservationPolicy
    from dune_env.policies.registry import load_policy, runs_foreign_code
    from tests.harness.cheating_policies import honest_picker

    assert not is_builtin(ObservationPolicy(honest_picker))
    assert not is_builtin(load_policy(f"{CHEAT}:honest_picker"))
    assert is_builtin(load_policy("ppo-4p"))  # the project's own network, read from data
    assert runs_foreign_code(f"{CHEAT}:honest_picker")
    assert not any(runs_foreign_code(name) for name in ("random", "strategist", "ppo-4p"))


def test_policy_code_never_runs_in_the_benchmarks_process() -> None:
    """The line-up check loads a policy module in a child process: what its import runs
    (here: nothing but being imported) never happens in the benchmark's process."""
    module = "tests.harness.import_marker"
    assert module not in sys.modules
    result = run_benchmark(["random", f"{module}:picker"], num_players=3, games=3, plots=False)
    assert not result.failures and len(result.rows) == 9
    assert module not in sys.modules


@pytest.mark.parametrize(
    ("callable_name", "kind", "words"),
    [
        ("returns_a_float", "exception", "ObservationPolicyError"),
        ("raises", "exception", "raised LookupError: deliberate"),
        ("exits", "exit", "SystemExit"),
        ("dies", "crash", "exited (9)"),
        ("NumpyOption", "illegal", "is a int64: give a Python int"),
        ("HugeOption", "illegal", "an integer of about 5001 digits"),
    ],
)
def test_a_hosted_policy_fails_as_it_would_in_process(
    callable_name: str, kind: str, words: str
) -> None:
    spec = f"tests.harness.import_marker:{callable_name}"
    result = run_benchmark(["random", spec], num_players=3, games=2, plots=False)
    assert [(f.kind, f.policy) for f in result.failures] == [(kind, spec)] * 2
    assert all(words in f.error for f in result.failures), result.failures[0].error


# --- item 2: results come from the benchmark's own replay ----------------------------------


def test_a_policy_patching_the_result_classes_changes_no_result() -> None:
    """It patches Outcome.__reduce__ (a 'control' win for its seat: 8 of 8 games forged before),
    SeatResult and the worker's encoder in its process: nothing reaches the benchmark."""
    spec = f"{CHEAT}:ResultPatcher"
    patched = run_benchmark(["random", spec], num_players=3, games=6, seed=2, plots=False)
    clean = run_benchmark(["random", RANDOM_COPY], num_players=3, games=6, seed=2, plots=False)
    assert not patched.failures
    assert _outcomes(patched.rows) == _outcomes(clean.rows)
    assert {r.win_kind for r in patched.rows} <= {"solo", "alliance", "timeout", "none"}


def _forging_worker(forge: Any) -> Any:
    """A replacement of the worker's `safe_play` (taken by the forked workers) that plays the
    game and then forges what it sends."""
    real = workers.safe_play

    def forged(spec: Any, *args: Any) -> Any:
        spec, result = real(spec, *args)
        return spec, forge(spec, result)

    return forged


@pytest.mark.parametrize(
    ("forge", "message"),
    [
        (lambda spec, r: GameRecord(r.options[:-2]), "not over after its"),
        (lambda spec, r: GameRecord((999,) + r.options), "decision 1 does not replay"),
        (lambda spec, r: GameRecord(r.options, ((0.5, 0.5),) * 3), "does not measure it"),
        (lambda spec, r: GameFailure(0, 0, "blame", "", "economic", "illegal"), "not a policy"),
    ],
    ids=["cut-short", "illegal-first", "luck-smuggled", "blame-another"],
)
def test_what_a_compromised_worker_sends_is_checked(
    monkeypatch: pytest.MonkeyPatch, forge: Any, message: str
) -> None:
    """Even a worker whose code was changed cannot make a result the replay does not give:
    its game fails, naming what was refused."""
    monkeypatch.setattr(workers, "safe_play", _forging_worker(forge))
    result = run_benchmark(["random", "aggressive"], num_players=3, games=2, plots=False)
    assert not result.rows and len(result.failures) == 2
    assert all(message in f.error and f.kind == "error" for f in result.failures), result.failures


def test_a_worker_sending_garbage_loses_its_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "encode_played", lambda result: b"\x80garbage")
    result = run_benchmark(["random"], num_players=3, games=2, plots=False)
    assert [f.kind for f in result.failures] == ["error", "error"]
    assert "sent an unusable result: its message is not JSON" in result.failures[0].error


def _spec() -> Any:
    return schedule(["random", "economic"], 3, 1, 4)[0]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"[1]", "not a JSON object"),
        (b"[" * 100_000, "not JSON"),
        (b'{"options": [true], "luck": []}', "small non-negative integers"),
        (b'{"options": [-1], "luck": []}', "small non-negative integers"),
        (b'{"options": [0], "luck": [[NaN, 0]]}', "not finite"),
        (b'{"options": [0], "luck": [], "won": [0]}', "keys"),
        (b'{"failure": {"error": "", "detail": "", "policy": "", "kind": "won"}}', "kind"),
        (b" " * (MAX_MESSAGE_BYTES + 1), "more than"),
    ],
    ids=["list", "deep", "bool", "negative", "nan-luck", "extra-key", "bad-kind", "too-big"],
)
def test_decode_refuses_malformed_messages(data: bytes, message: str) -> None:
    with pytest.raises(NotReplayed, match=message):
        decode_played(_spec(), data)


def test_luck_is_bounded_by_the_rolls_the_replay_counted() -> None:
    spec = schedule(["random", "economic"], 3, 1, 4, duplicate=False, luck_samples=2)[0]
    assert checked_luck(((0.3, -0.2),) * 3, spec, rolls=5) == ((0.3, -0.2),) * 3
    with pytest.raises(NotReplayed, match="outside"):
        checked_luck(((5.0, 0.0),) * 3, spec, rolls=5)
    with pytest.raises(NotReplayed, match="2 values for each of 3 seats"):
        checked_luck(((0.0, 0.0),) * 2, spec, rolls=5)


def test_rows_come_from_the_replay_alone() -> None:
    from dune_env.harness.runner import play_game, play_record

    spec = _spec()
    record = play_record(spec)
    rows = derive_rows(spec, record)
    assert rows.decisions == record.options and list(rows) == play_game(spec)
    # (results.csv counts every decision, the forced ones the engine plays itself included)
    assert all(r.decisions >= len(record.options) for r in rows)


# --- item 3: the sequential test's and the suite's results on resume ------------------------


def _forge_first_solo_win(results: Path) -> None:
    with results.open(newline="") as handle:
        reader = csv.DictReader(handle)
        fields, rows = list(reader.fieldnames or []), list(reader)
    game = next(r["game"] for r in rows if r["win_kind"] == "solo")
    seats = [r for r in rows if r["game"] == game]
    winner = next(r for r in seats if r["won"] == "1")
    loser = next(r for r in seats if r["won"] == "0")
    for key in ("won", "reward"):
        winner[key], loser[key] = loser[key], winner[key]
    with results.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


SPRT = ["--sprt", "--policies", "aggressive", "random", "--players", "4", "--sprt-block", "2"]
SPRT += ["--sprt-delta", "0", "0.1", "--max-games", "48", "--no-progress", "--no-plots"]


def test_a_sequential_test_refuses_a_forged_win_on_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue moved the effect from +20.8% to +43.1% with consistent forgeries."""
    out = tmp_path / "sprt"
    bench_main([*SPRT, "--out", str(out)])
    _forge_first_solo_win(out / "results.csv")
    capsys.readouterr()
    assert bench_main([*SPRT, "--resume", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "won is" in err and "but the game's decisions replay to" in err, err


@pytest.mark.usefixtures("cheap_suite")
def test_a_suite_refuses_a_forged_line_up_on_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--suite", "standard-short", "--policies", "random", "--workers", "1"]
    args += ["--no-progress", "--no-plots", "--out", str(tmp_path / "suite")]
    assert bench_main(args) == 0
    lineup = next(p for p in sorted((tmp_path / "suite").glob("*p/lineup*")) if p.is_dir())
    for results in sorted((tmp_path / "suite").glob("*p/lineup*/results.csv")):
        try:
            _forge_first_solo_win(results)
            lineup = results.parent
            break
        except StopIteration:
            continue
    capsys.readouterr()
    assert bench_main([*args, "--resume"]) == 2
    err = capsys.readouterr().err.strip()
    assert str(lineup) in err and "but the game's decisions replay to" in err, err


# --- item 6: counts have upper bounds ------------------------------------------------------


def _limit_memory() -> None:
    limit = 3 << 30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--games", "1000000000"], "at most 1,000,000"),
        (["--workers", "1000000"], "at most 1024"),
        (["--max-decisions", "1000000000"], "from 1 to 1,000,000"),
        (["--bootstrap", "1000000000"], "from 0 to 100,000"),
    ],
)
def test_huge_counts_are_refused_at_once(tmp_path: Path, args: list[str], words: str) -> None:
    """`--games 1000000000` grew past 1.8 GB in 25 s and ignored SIGTERM for minutes: the
    count is refused before any game is scheduled (here under a 3 GB address-space limit)."""
    command = [sys.executable, "-m", "dune_env.harness.cli", "--policies", "random"]
    command += ["--players", "3", "--out", str(tmp_path / "o"), "--no-progress", *args]
    start = time.monotonic()
    try:
        run = subprocess.run(
            command,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=60,
            preexec_fn=_limit_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(args)} was not refused within 60 s")
    assert run.returncode == 2, run.stderr[-500:]
    err = run.stderr.strip()
    assert len(err.splitlines()) == 1 and words in err, err
    assert time.monotonic() - start < 30


def test_save_replays_past_the_games_picks_them_all() -> None:
    from dune_env.harness.replays import pick_replays
    from dune_env.harness.types import SeatResult

    rows = [SeatResult(g, g, 3, 0, "Atreides", "p", 0, 0.0, "none", 0, 6, 100) for g in range(4)]
    assert pick_replays(rows, [], 10**12) == [0, 1, 2, 3]


def test_a_resumed_run_replays_its_games_with_luck_measured_again(tmp_path: Path) -> None:
    """A luck-adjusted run: the worker's luck is checked as it comes in, and a resume measures
    it again from the decisions (an edited luck value is refused)."""
    args: dict[str, Any] = {"num_players": 3, "games": 6, "seed": 1, "duplicate": True}
    args |= {"luck_samples": 2, "plots": False}
    out = tmp_path / "luck"
    first = run_benchmark(["random", "economic"], out_dir=out, **args)
    assert not first.failures and any(r.luck_win for r in first.rows)
    text = (out / "results.csv").read_text()
    assert run_benchmark(["random", "economic"], out_dir=out, resume=True, **args).rows
    lines = text.splitlines(keepends=True)
    header = lines[0].rstrip("\n").split(",")
    cells = lines[1].rstrip("\n").split(",")
    cells[header.index("luck_win")] = "-0.75"
    lines[1] = ",".join(cells) + "\n"
    (out / "results.csv").write_text("".join(lines))
    with pytest.raises(OutputError, match="luck_win is -0.75, but the game's decisions replay"):
        run_benchmark(["random", "economic"], out_dir=out, resume=True, **args)
    shutil.rmtree(out)


def test_decisions_file_holds_every_finished_game(tmp_path: Path) -> None:
    run_benchmark(["random"], num_players=3, games=4, seed=3, out_dir=tmp_path, plots=False)
    lines = [json.loads(line) for line in (tmp_path / "decisions.jsonl").read_text().splitlines()]
    assert sorted(line["game"] for line in lines) == [0, 1, 2, 3]
    specs = schedule(["random"], 3, 4, 3)
    for line in lines:
        rows = derive_rows(specs[line["game"]], GameRecord(tuple(line["options"])))
        assert line["seed"] == specs[line["game"]].seed and len(rows) == 3
