"""Issue 12, "evaluation beyond one machine": `dune-bench --backend ray` plays the same seeded
schedule as Ray tasks, with the same results and the same failure semantics as the local
worker processes.  One local Ray instance (2 CPUs) serves the whole module: Ray takes seconds
to start, so the Ray tests are few and each plays a handful of games."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dune_env.harness import run_benchmark
from dune_env.harness.cli import main as bench_main
from dune_env.harness.play.backends import BackendError
from dune_env.policies.base import RandomPolicy
from dune_env.policies.registry import _USER_POLICIES, register_policy

BAD = "tests.harness.bad_policies"
ROOT = Path(__file__).resolve().parents[2]
LINEUP = ["aggressive", "economic", "random", "strategist"]

try:
    import ray
except ImportError:  # pragma: no cover - the dev install has Ray
    ray = None

needs_ray = pytest.mark.skipif(
    ray is None, reason="Ray is not installed (pip install 'dune-env[ray]')"
)


@pytest.fixture(scope="module")
def local_ray() -> Any:
    """One local Ray instance for the module; the backend uses it instead of starting its own."""
    assert ray is not None
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield ray
    ray.shutdown()


def _without_meta(path: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads(path.read_text())
    summary.pop("meta")  # timings, workers and backend differ by design
    return summary


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return sorted(csv.DictReader(handle), key=lambda r: (int(r["game"]), int(r["seat"])))


@needs_ray
def test_ray_backend_gives_the_local_results(local_ray: Any, tmp_path: Path) -> None:
    """Same seed, same schedule: summary.json (all but its meta) and every results.csv row are
    identical to the local backend's, for a duplicate schedule of heuristics and random."""
    common: dict[str, Any] = dict(
        num_players=4, games=24, seed=5, duplicate=True, plots=False, bootstrap=50
    )
    run_benchmark(LINEUP, workers=2, out_dir=tmp_path / "local", **common)
    remote = run_benchmark(LINEUP, workers=2, out_dir=tmp_path / "ray", backend="ray", **common)
    assert remote.summary["meta"]["backend"] == "ray"
    assert "on 2 worker(s) (Ray tasks)" in (tmp_path / "ray" / "report.md").read_text()
    assert remote.summary["games"] == 24 and not remote.failures
    assert _without_meta(tmp_path / "ray" / "summary.json") == _without_meta(
        tmp_path / "local" / "summary.json"
    )
    assert _csv_rows(tmp_path / "ray" / "results.csv") == _csv_rows(
        tmp_path / "local" / "results.csv"
    )


@needs_ray
@pytest.mark.parametrize(
    ("policy", "kind"), [("Raise", "exception"), ("Hang", "timeout"), ("HardExit", "crash")]
)
def test_failing_policy_in_a_ray_task_loses_only_its_games(
    local_ray: Any, tmp_path: Path, policy: str, kind: str
) -> None:
    """A policy that raises, hangs past --move-timeout or kills its process inside a Ray task
    loses that game, recorded with the policy and the kind as locally; the run goes on.
    workers=None: as many games at once as the cluster has CPUs."""
    spec = f"{BAD}:{policy}"
    result = run_benchmark(
        ["random", spec],
        num_players=3,
        games=4,
        seed=0,
        workers=None,
        out_dir=tmp_path,
        plots=False,
        move_timeout=1.0,
        backend="ray",
    )
    assert [f.game for f in result.failures] == [0, 2], [f.error for f in result.failures]
    assert {(f.policy, f.kind) for f in result.failures} == {(spec, kind)}
    assert sorted({r.game for r in result.rows}) == [1, 3]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [f["kind"] for f in summary["failures"]] == [kind, kind]
    assert summary["meta"]["workers"] == 2  # the module's Ray instance has 2 CPUs
    assert "Failed games" in (tmp_path / "report.md").read_text()


@needs_ray
def test_resume_on_ray_continues_a_local_run(local_ray: Any, tmp_path: Path) -> None:
    """--resume does not care which backend played the finished games: a local run cut after
    its first games, resumed with --backend ray, ends as the whole local run."""
    args = ["--policies", "economic", "random", "--players", "3", "--games", "6", "--seed", "2"]
    args += ["--no-progress", "--no-plots", "--bootstrap", "0", "--workers", "2"]
    assert bench_main([*args, "--out", str(tmp_path / "whole")]) == 0
    cut = tmp_path / "cut"
    assert bench_main([*args, "--out", str(cut)]) == 0
    lines = (cut / "results.csv").read_text().splitlines(keepends=True)
    (cut / "results.csv").write_text("".join(lines[: 1 + 3 * 2]))  # header and games 0, 1
    assert bench_main([*args, "--out", str(cut), "--resume", "--backend", "ray"]) == 0
    assert _without_meta(cut / "summary.json") == _without_meta(tmp_path / "whole" / "summary.json")
    assert json.loads((cut / "summary.json").read_text())["meta"]["resumed"] is True


def test_ray_backend_without_ray_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails as if not installed
    code = bench_main(
        ["--policies", "random", "aggressive", "--players", "3", "--games", "3", "--backend",
         "ray", "--no-progress", "--out", str(tmp_path / "run")]
    )  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.count("\n") == 0 and "needs Ray" in err and "dune-env[ray]" in err
    assert not (tmp_path / "run").exists()  # refused before anything was written


def test_address_without_ray_backend_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code = bench_main(["--policies", "random", "--address", "auto", "--no-progress"])
    assert code == 2
    assert "--address is only used with --backend ray" in capsys.readouterr().err


@needs_ray
def test_policies_only_this_process_knows_are_refused_for_ray(tmp_path: Path) -> None:
    """A policy registered with register_policy (or given as an object) exists only in the
    driver: refused with a message saying how to pass it, before anything runs."""
    register_policy("ray-test-only-here", lambda seed: RandomPolicy(seed))
    try:
        with pytest.raises(BackendError, match="register_policy.*module:attr"):
            run_benchmark(["random", "ray-test-only-here"], num_players=3, games=3, backend="ray")
        with pytest.raises(BackendError, match="Python object"):
            run_benchmark(["random", RandomPolicy(0)], num_players=3, games=3, backend="ray")  # type: ignore[list-item]
    finally:
        _USER_POLICIES.pop("ray-test-only-here", None)
    assert not list(tmp_path.iterdir())


@needs_ray
@pytest.mark.parametrize("address", ["127.0.0.1:1", "ray://127.0.0.1:1"])
def test_unreachable_ray_address_is_one_clear_line(tmp_path: Path, address: str) -> None:
    """A head node nobody answers at fails in seconds with one line (Ray alone retries for
    minutes), before anything is written.  In a subprocess: this module's Ray is connected."""
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-m", "dune_env.harness.cli", "--policies", "random", "aggressive",
         "--players", "3", "--games", "3", "--backend", "ray", "--address", address,
         "--no-progress", "--out", str(out)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0
    assert f"cannot connect to the Ray cluster at {address}: nothing answers" in done.stderr
    assert not out.exists()
