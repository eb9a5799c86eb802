"""How `dune-bench` ends a run it cannot finish: one line on stderr and the exit code (2 for bad
input, 130 for an interruption), the same for a single run, a suite and a sequential test."""

from __future__ import annotations

import sys


def bad_input_errors() -> tuple[type[BaseException], ...]:
    """The errors that mean the command's input was wrong (a policy, a game option, a value)."""
    from ..engine import ConfigError
    from ..policies.registry import PolicyLoadError

    return (PolicyLoadError, ConfigError, ValueError, TypeError)


def refused(exc: BaseException) -> int:
    print(f"dune-bench: {exc}", file=sys.stderr)
    return 2


def interrupted(what_next: str) -> int:
    print(f"\ndune-bench: interrupted; {what_next}", file=sys.stderr)
    return 130
