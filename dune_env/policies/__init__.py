"""Baseline policies: random, heuristics, information-set MCTS; loaders and the registry."""

from .base import EnginePolicy, RandomPolicy, SeededPolicy
from .registry import BUILTIN_POLICIES, PolicyLoadError, load_policy, policy_names, register_policy

__all__ = [
    "BUILTIN_POLICIES",
    "EnginePolicy",
    "PolicyLoadError",
    "RandomPolicy",
    "SeededPolicy",
    "load_policy",
    "policy_names",
    "register_policy",
]
