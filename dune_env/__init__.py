"""dune-env: Dune, the Dice Game as a rules engine (`dune_env.engine`) and RL environments."""

__version__ = "0.1.0"
