"""Worker processes die with their `dune-bench` (issue 21, item 1): a `kill -9` of the benchmark
leaves no worker running a policy with nobody to stop it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BAD = "tests.harness.bad_policies"

pytestmark = pytest.mark.skipif(
    not Path(f"/proc/self/task/{os.getpid()}/children").exists(),
    reason="finds the workers through /proc/PID/task/TID/children (Linux)",
)


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found.update(int(p) for p in (task / "children").read_text().split())
        except OSError:
            pass
    return found


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for init to reap it counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


# dune-bench as run from a terminal; or with Linux's parent-death signal disabled, which leaves
# the portable fallback (a thread in each worker watching its parent) to do the work.
COMMAND = ["-m", "dune_env.harness.cli"]
WITHOUT_KERNEL_SIGNAL = [
    "-c",
    "import sys; import dune_env.harness.play.workers as w; w._PR_SET_PDEATHSIG = 0; "
    "from dune_env.harness.cli import main; sys.exit(main(sys.argv[1:]))",
]


@pytest.mark.parametrize(
    ("policies", "workers", "command"),
    [
        (["random", "economic"], 2, COMMAND),
        (["random", "economic"], 1, COMMAND),
        ([f"{BAD}:Hang", "random"], 2, COMMAND),
        ([f"{BAD}:Hang", "random"], 2, WITHOUT_KERNEL_SIGNAL),
    ],
)
def test_kill_9_of_dune_bench_leaves_no_worker_alive(
    tmp_path: Path, policies: list[str], workers: int, command: list[str]
) -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            *command,
            "--policies",
            *policies,
            "--players",
            "4",
            "--games",
            "100000",
            "--workers",
            str(workers),
            "--move-timeout",
            "3600",
            "--out",
            str(tmp_path / "o"),
            "--no-plots",
            "--no-progress",
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        start_new_session=True,  # the cleanup below reaches every process of the run
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        results = tmp_path / "o" / "results.csv"
        while time.monotonic() < deadline and not (
            len(_children(process.pid)) >= workers
            and results.exists()
            and results.stat().st_size > 200
        ):
            time.sleep(0.2)
        children = _children(process.pid)
        assert len(children) >= workers, "the workers never started"
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(_alive(c) for c in children):
            time.sleep(0.1)
        assert not [c for c in children if _alive(c)], "workers outlived a killed dune-bench"
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
