"""The rules engine of Dune, the Dice Game: pure, seeded, no RL notions.

See `Game` for the entry point, `GameConfig` for options, `Scenario` for building positions.
"""

from .config import ConfigError, GameConfig
from .constants import CARD, NO_ONE, RESERVE, Die, Faction, KanlyFace, Token, UnitType
from .constants import FACTION_NAMES as FACTION_NAMES_BY_ID
from .decisions import OPTION_COUNTS, DecisionKind, describe_option
from .events import EventKind, render
from .game import Decision, Game, IllegalOptionError, legal_options
from .map_data import DEFAULT_MAP, Region
from .scenario import Scenario
from .state import GameState, Phase
from .validate import SnapshotError

__all__ = [
    "CARD",
    "FACTION_NAMES_BY_ID",
    "ConfigError",
    "DEFAULT_MAP",
    "Decision",
    "DecisionKind",
    "Die",
    "EventKind",
    "Faction",
    "Game",
    "GameConfig",
    "GameState",
    "IllegalOptionError",
    "KanlyFace",
    "NO_ONE",
    "OPTION_COUNTS",
    "Phase",
    "RESERVE",
    "Region",
    "Scenario",
    "SnapshotError",
    "Token",
    "UnitType",
    "describe_option",
    "legal_options",
    "render",
]
