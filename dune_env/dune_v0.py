"""Deprecated: the environment before rules revision 2 and the counter-based chance model.

`dune_v0` is kept importable for one minor release (CHANGELOG.md, "Versions of the
environment"), but it now gives `dune_v1`: the rules, the dice of a seed and the observation
(a `rules_variant` slice appended) changed, so results obtained with `dune_v0` are not
comparable.  Import `dune_env.dune_v1`.
"""

import warnings

from .dune_v1 import env, raw_env

warnings.warn(
    "dune_env.dune_v0 is deprecated and now gives dune_v1 (rules revision 2, counter-based dice, "
    "observation with a rules_variant slice): import dune_env.dune_v1",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["env", "raw_env"]
