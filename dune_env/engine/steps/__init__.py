"""One module per turn step.  Importing this package registers every runner, and collects the
`DecisionSpec` of every decision kind the steps pose (`DECISION_SPECS`; the registry with its
checks is `dune_env.engine.decisions`)."""

from ..decision_spec import DecisionSpec
from . import ally, battle, kanly, landing, movement, property, recruit, roll, setup, storm, turn

DECISION_SPECS: tuple[DecisionSpec, ...] = (
    *setup.DECISION_SPECS,
    *roll.DECISION_SPECS,
    *ally.DECISION_SPECS,
    *recruit.DECISION_SPECS,
    *kanly.DECISION_SPECS,
    *landing.DECISION_SPECS,
    *movement.DECISION_SPECS,
    *battle.DECISION_SPECS,
    *property.DECISION_SPECS,
)

__all__ = [
    "DECISION_SPECS",
    "ally",
    "battle",
    "kanly",
    "landing",
    "movement",
    "property",
    "recruit",
    "roll",
    "setup",
    "storm",
    "turn",
]
