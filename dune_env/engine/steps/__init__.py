"""One module per turn step.  Importing this package registers every runner and decision."""

from . import ally, battle, kanly, landing, movement, property, recruit, roll, setup, storm, turn

__all__ = [
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
