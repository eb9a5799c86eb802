"""What produced a result: the package and its build, the interpreter, the key dependencies and,
in a clone, the git commit.  Every benchmark records it in summary.json (`meta.software`) and
names the build in report.md, so a figure can be traced to the code and versions behind it."""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from .compiled_build import build_info, package_dir

# The dependencies whose version can move a figure (speed or play).
KEY_PACKAGES = (
    "numpy",
    "scipy",
    "gymnasium",
    "pettingzoo",
    "torch",
    "stable-baselines3",
    "sb3-contrib",
    "ray",
    "open_spiel",
)


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        run = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return run.stdout.strip() if run.returncode == 0 else None


def git_commit() -> dict[str, Any] | None:
    """The commit of the clone this package runs from, and whether it has local changes; None
    for an installed package (or without git)."""
    root = package_dir().parent
    if not (root / ".git").exists():
        return None
    commit = _git(["rev-parse", "HEAD"], root)
    if commit is None:
        return None
    status = _git(["status", "--porcelain", "--untracked-files=no"], root)
    return {"commit": commit, "local_changes": bool(status)}


def software_record() -> dict[str, Any]:
    """A JSON-ready description of the software that runs now."""
    from . import __version__

    info = build_info()
    return {
        "dune_env": __version__,
        "build": "compiled" if info["compiled"] else "pure",
        "compiler": info["compiler"],
        "compile_failure": info["compile_failure"],
        "python": platform.python_version(),
        "platform": platform.platform(),
        "git": git_commit(),
        "packages": {name: _version(name) for name in KEY_PACKAGES},
    }


def build_sentence(record: dict[str, Any]) -> str:
    """One line for a report: which build and versions produced it."""
    git = record.get("git")
    where = ""
    if git:
        where = f", commit {git['commit'][:12]}"
        where += " + local changes" if git["local_changes"] else ""
    build = f"dune-env {record['dune_env']}, {record['build']} build"
    return f"{build}{where}, Python {record['python']}"
