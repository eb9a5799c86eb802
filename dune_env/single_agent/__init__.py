"""The single-agent view of `dune_v1`: one learning seat, the other seats played by policies.

`DuneSingleAgentEnv` (env.py) is the Gymnasium environment, registered as "dune_env/Dune-v1";
`seating` holds the learner-seat and opponent semantics it shares with `dune_env.vector` (many
games in one process).  Both sit above `dune_env.match`, which resolves the opponents' policy
names and plays their seats; the environment layer below knows neither.
"""

from .env import DuneSingleAgentEnv

__all__ = ["DuneSingleAgentEnv"]
