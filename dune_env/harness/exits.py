"""How `dune-bench` ends a run it cannot finish (`dune_env.exits`: one line on stderr and the exit
code, 2 for bad input, 130 for an interruption), the same for a single run, a suite and a
sequential test."""

from __future__ import annotations

from .. import exits

PROGRAM = "dune-bench"


def bad_input_errors() -> tuple[type[BaseException], ...]:
    """The errors that mean the command's input was wrong (a policy, a game option, a value)."""
    from ..engine import ConfigError
    from ..policies.registry import PolicyLoadError

    return (PolicyLoadError, ConfigError, ValueError, TypeError)


def refused(problem: object) -> int:
    return exits.refuse(PROGRAM, problem)


def interrupted(what_next: str) -> int:
    return exits.interrupted(PROGRAM, what_next)
