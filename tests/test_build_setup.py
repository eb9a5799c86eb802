"""The project's own set-up: the compile's type check depends on nothing but what it compiles,
and a failed compile is said plainly and retried, never left as a silently slow install.

These copy the sources into a temporary folder and run the real `setup.py` / `Makefile` there
with this interpreter (no venv is made, nothing is downloaded).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import dune_env
from dune_env import compiled_build

ROOT = Path(dune_env.__file__).resolve().parent.parent
TOP_FILES = ("setup.py", "pyproject.toml", "Makefile", "constraints.txt", "README.md", "LICENSE")
needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")


def _copy_sources(destination: Path) -> Path:
    ignore = shutil.ignore_patterns(
        "*.so", "__pycache__", compiled_build.MANIFEST_MODULE + ".py", "_build_status.json"
    )
    shutil.copytree(ROOT / "dune_env", destination / "dune_env", ignore=ignore)
    for name in TOP_FILES:
        shutil.copy2(ROOT / name, destination / name)
    return destination


def _compile_type_check(tree: Path) -> subprocess.CompletedProcess[str]:
    """mypy on the compiled modules with exactly the flags setup.py hands mypyc."""
    paths = [str(p.relative_to(tree)) for p in compiled_build.compiled_sources(tree / "dune_env")]
    return subprocess.run(
        [sys.executable, "-m", "mypy", *compiled_build.MYPYC_TYPECHECK_FLAGS, *paths],
        cwd=tree,
        capture_output=True,
        text=True,
    )


def test_the_compile_type_check_ignores_what_it_does_not_compile(tmp_path: Path) -> None:
    """An error in a module the compiled ones merely import (e.g. an ignore made unused by a
    dependency's new type hints, under the linters' `warn_unused_ignores`) cannot fail the
    compile; an error in a compiled module still does."""
    tree = _copy_sources(tmp_path)
    followed = tree / "dune_env" / "environment" / "aec.py"
    followed.write_text(
        followed.read_text()
        + "\n_drift: int = 'not an int'\n_stale = 1  # type: ignore[override]\n"
    )
    run = _compile_type_check(tree)
    assert run.returncode == 0, run.stdout + run.stderr

    compiled = tree / "dune_env" / "engine" / "rng.py"
    compiled.write_text(compiled.read_text() + "\n_bad: int = 'not an int'\n")
    run = _compile_type_check(tree)
    assert run.returncode == 1
    assert "dune_env/engine/rng.py" in run.stdout


@needs_make
def test_a_failed_compile_is_reported_at_the_end_and_retried(tmp_path: Path) -> None:
    tree = _copy_sources(tmp_path)
    env = {**os.environ, "CC": "false"}  # every C compiler call fails
    env.pop("DUNE_ENV_COMPILE", None)
    env.pop(compiled_build.PURE_ENV_VAR, None)
    make = ["make", "--no-print-directory", "build", f"PY={sys.executable}"]
    for attempt in (1, 2):
        run = subprocess.run(make, cwd=tree, env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert "setup.py --quiet build_ext --inplace" in run.stdout, f"attempt {attempt}"
        assert "installed the PURE-PYTHON package" in run.stderr
        last = run.stdout.strip().splitlines()[-1]
        assert last.startswith("dune-env: PURE-PYTHON build"), last
        assert "compiling failed" in last
        assert not (tree / "build" / "compiled.stamp").exists()
        assert not list((tree / "dune_env").rglob("*.so")), "a partial build was left behind"

    # The pure package says so when imported, not only in the build's log.
    probe = (
        "import warnings; warnings.simplefilter('error', RuntimeWarning)\n"
        "try:\n    import dune_env\nexcept RuntimeWarning as w:\n    print('WARNED', w)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=tree, env=env, capture_output=True, text=True
    )
    assert run.stdout.startswith("WARNED dune_env: compiling the engine failed"), run.stdout


def test_the_build_line_says_which_build_runs() -> None:
    info = dune_env.build_info()
    line = compiled_build.describe_build(info)
    if info["compiled"]:
        assert line.startswith("dune-env: compiled build (")
        assert compiled_build.main(["--require"]) == 0
    else:
        assert line.startswith("dune-env: PURE-PYTHON build")
        assert "make build" in line
        assert compiled_build.main(["--require"]) == 1
    pure = {**info, "compiled": False, "pure_forced": False, "modules": []}
    failed = compiled_build.describe_build({**pure, "compile_failure": "CompileError: boom"})
    assert "compiling failed: CompileError: boom" in failed
    assert "DUNE_ENV_PURE is set" in compiled_build.describe_build({**pure, "pure_forced": True})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compiled_build.main(["--bogus"]) == 2


def test_a_benchmark_records_the_build_and_versions_behind_its_figures(tmp_path: Path) -> None:
    from dune_env.harness import run_benchmark

    result = run_benchmark(
        ["random", "aggressive", "random"], num_players=3, games=3, out_dir=tmp_path, plots=False
    )
    software = result.summary["meta"]["software"]
    assert software["build"] == ("compiled" if dune_env.build_info()["compiled"] else "pure")
    assert software["dune_env"] == dune_env.__version__
    assert software["python"] == ".".join(map(str, sys.version_info[:3]))
    assert software["packages"]["numpy"] == __import__("numpy").__version__
    if (ROOT / ".git").exists() and shutil.which("git"):
        assert len(software["git"]["commit"]) == 40
    report = (tmp_path / "report.md").read_text()
    assert f"Software: dune-env {dune_env.__version__}, {software['build']} build" in report
