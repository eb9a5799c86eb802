"""One module per turn step.  Importing this package registers every runner, and collects the
`DecisionSpec` of every decision kind the steps pose (`DECISION_SPECS`; the registry with its
checks is `dune_env.engine.decisions`).

A *runner* per phase either poses the pending decision (`core.ask`) or moves the phase on
(`core.goto`); a decision's apply function (named in its spec) changes the state and may
`goto` too.  The phase flow of a game (generated from `flow.PHASE_FLOW` by
`python -m dune_env.engine.steps.flow`; tests/test_phase_flow.py checks it against the code):

| Phase | Step module | Decisions asked | Goes next to |
|---|---|---|---|
| (new game) | setup | - | SETUP_DRAFT, SETUP_PLACE |
| SETUP_DRAFT | setup | CHOOSE_FACTION | SETUP_PLACE |
| SETUP_PLACE | setup | ATREIDES_START, HARKONNEN_START, BG_PREDICTION | ROLL |
| ROLL | roll | FIX_DICE | PITER |
| PITER | roll | PITER_DE_VRIES | AXOLOTL |
| AXOLOTL | roll | AXOLOTL_SYMBOL | ALLY_OFFER |
| ALLY_OFFER | ally | ALLY_OFFER | ALLY_ANSWER, RECRUIT_ACTIVE |
| ALLY_ANSWER | ally | ALLY_ANSWER | ALLY_SPLIT, RECRUIT_ACTIVE |
| ALLY_SPLIT | ally | DICE_SPLIT | RECRUIT_ACTIVE |
| RECRUIT_ACTIVE | recruit | RECRUIT | RECRUIT_ALLY, GHOLA |
| RECRUIT_ALLY | recruit | RECRUIT | GHOLA |
| GHOLA | recruit | GHOLA | KANLY |
| KANLY | kanly | KANLY | LAND_START |
| LAND_START | landing | - | LAND_HARVESTER, LAND_GIFT |
| LAND_HARVESTER | landing | HARVESTER_DISCARD | LAND_GIFT |
| LAND_GIFT | landing | SPICE_GIFT | LAND_CONSENT |
| LAND_CONSENT | landing | LAND_CONSENT | LAND_ACTIVE |
| LAND_ACTIVE | landing | LAND | LAND_GRANT, MOVE_TARGET |
| LAND_GRANT | landing | ALLY_GRANT | LAND_ALLY, MOVE_TARGET |
| LAND_ALLY | landing | LAND | MOVE_TARGET |
| MOVE_TARGET | movement | MOVE_TARGET | MOVE_ACTIVE |
| MOVE_ACTIVE | movement | MOVE | MOVE_ALLY, BATTLE_SELECT |
| MOVE_ALLY | movement | MOVE | BATTLE_SELECT |
| BATTLE_SELECT | battle | BATTLE_ORDER | BATTLE_GHOLA, PROPERTY |
| BATTLE_GHOLA | battle | GHOLA | BATTLE_FORTRESS |
| BATTLE_FORTRESS | battle | INFILTRATION, FORTRESS_VICTIM | BATTLE_FACE_DANCERS, BATTLE_SELECT |
| BATTLE_FACE_DANCERS | battle | FACE_DANCER | BATTLE_LEND, BATTLE_SELECT |
| BATTLE_LEND | battle | LEND_LEADER | BATTLE_BID_ATTACKER |
| BATTLE_BID_ATTACKER | battle | BID | BATTLE_BID_DEFENDER |
| BATTLE_BID_DEFENDER | battle | BID | BATTLE_SELECT |
| PROPERTY | property | REORGANIZE | STORM |
| STORM | storm | - | END_TURN |
| END_TURN | turn | - | ROLL, GAME_OVER |
| GAME_OVER | - | - | - |
"""

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
