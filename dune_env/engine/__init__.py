"""The rules engine of Dune, the Dice Game: pure, seeded, no RL notions.

See `Game` for the entry point, `GameConfig` for options, `Scenario` for building positions,
`options` for building and naming the options of every decision.
"""

from . import options
from .config import ConfigError, GameConfig
from .constants import CARD, NO_ONE, RESERVE, Die, Faction, KanlyFace, Token, UnitType
from .constants import FACTION_NAMES as FACTION_NAMES_BY_ID
from .decisions import OPTION_COUNTS, DecisionKind, describe_option
from .events import EventKind, render
from .game import (
    BattleResult,
    BattleSide,
    Decision,
    DecisionPendingError,
    Game,
    IllegalOptionError,
    LeaderCount,
    PhaseNotReachedError,
    legal_options,
)
from .map_data import DEFAULT_MAP, Region
from .scenario import NEUTRAL_DICE, WORM, Scenario, ScenarioError
from .state import GameState, Phase
from .validate import SnapshotError

__all__ = [
    "BattleResult",
    "BattleSide",
    "CARD",
    "FACTION_NAMES_BY_ID",
    "ConfigError",
    "DEFAULT_MAP",
    "Decision",
    "DecisionKind",
    "DecisionPendingError",
    "Die",
    "EventKind",
    "Faction",
    "Game",
    "GameConfig",
    "GameState",
    "IllegalOptionError",
    "KanlyFace",
    "LeaderCount",
    "NEUTRAL_DICE",
    "NO_ONE",
    "OPTION_COUNTS",
    "Phase",
    "PhaseNotReachedError",
    "RESERVE",
    "Region",
    "Scenario",
    "ScenarioError",
    "SnapshotError",
    "Token",
    "UnitType",
    "WORM",
    "describe_option",
    "legal_options",
    "options",
    "render",
]
