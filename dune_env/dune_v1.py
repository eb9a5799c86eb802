"""The versioned environment module, as PettingZoo's own environments have one.

from dune_env import dune_v1
env = dune_v1.env(num_players=5)

Its environment is the environment layer's (`dune_env.environment.aec`) with the one thing that
layer cannot do: turn a policy name given to `policy_action` ("aggressive") into that policy,
which `dune_env.match` does (`seat_policy`: loaded once per environment and seat, seeded by the
seat).  `dune_env.env` and `dune_env.raw_env` are these.
"""

from __future__ import annotations

from typing import Any

from .environment import aec
from .match import seat_policy


class raw_env(aec.raw_env):  # noqa: N801 - PettingZoo's naming convention
    """The unwrapped `dune_v1` AEC environment (every keyword of `aec.raw_env`), whose
    `policy_action` also takes a registered policy name."""

    def named_policy(self, name: str, seat: int) -> Any:
        cache: dict[tuple[str, int], Any] = self.__dict__.setdefault("_named_policies", {})
        if (name, seat) not in cache:
            cache[(name, seat)] = seat_policy(name, seat)
        return cache[(name, seat)]


def env(**config: Any) -> aec.DuneOrderEnforcing:
    """The wrapped `dune_v1` environment (PettingZoo's classic stack, `aec.env`)."""
    return aec.wrap(raw_env(**config))


__all__ = ["env", "raw_env"]
