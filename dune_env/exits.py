"""How every command line (`dune-bench`, `dune-replay`, `dune-play`, the leaderboard, the export)
ends a run it cannot finish: one line `program: what was wrong` on stderr, not a traceback, and
the exit code: 2 for bad input, 130 for an interruption."""

from __future__ import annotations

import sys


def refuse(program: str, problem: object) -> int:
    """Say what was wrong with the command's input; exit code 2."""
    print(f"{program}: {problem}", file=sys.stderr)
    return 2


def interrupted(program: str, what_next: str) -> int:
    """Say how to continue an interrupted run; exit code 130."""
    print(f"\n{program}: interrupted; {what_next}", file=sys.stderr)
    return 130
