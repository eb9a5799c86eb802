"""The phase flow of a game, as data: for each phase, the step module whose runner plays it,
the decision kinds asked in it, and the phases it can go to next (its `goto`s).

`markdown_table()` renders it; the table is copied into the docstring of this package and into
docs/architecture.md, and tests/test_phase_flow.py checks that the copies are current,
that every `goto` target of the step modules is listed, and that every transition and decision
seen in varied seeded games is listed.  Regenerate the copies with
`python -m dune_env.engine.steps.flow`.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from ..decision_spec import DecisionKind as K
from ..state import Phase as P


class PhaseStep(NamedTuple):
    phase: P
    module: str  # the step module (dune_env/engine/steps/<module>.py); "" for GAME_OVER
    kinds: tuple[K, ...]  # decision kinds asked in the phase
    next: tuple[P, ...]  # phases the step goes to next


# A new game (steps.setup.begin_setup) enters the draft in faction_mode="draft", else SETUP_PLACE.
START_PHASES: Final = (P.SETUP_DRAFT, P.SETUP_PLACE)

PHASE_FLOW: Final = (
    PhaseStep(P.SETUP_DRAFT, "setup", (K.CHOOSE_FACTION,), (P.SETUP_PLACE,)),
    PhaseStep(
        P.SETUP_PLACE, "setup", (K.ATREIDES_START, K.HARKONNEN_START, K.BG_PREDICTION), (P.ROLL,)
    ),
    PhaseStep(P.ROLL, "roll", (K.FIX_DICE,), (P.PITER,)),
    PhaseStep(P.PITER, "roll", (K.PITER_DE_VRIES,), (P.AXOLOTL,)),
    PhaseStep(P.AXOLOTL, "roll", (K.AXOLOTL_SYMBOL,), (P.ALLY_OFFER,)),
    PhaseStep(P.ALLY_OFFER, "ally", (K.ALLY_OFFER,), (P.ALLY_ANSWER, P.RECRUIT_ACTIVE)),
    PhaseStep(P.ALLY_ANSWER, "ally", (K.ALLY_ANSWER,), (P.ALLY_SPLIT, P.RECRUIT_ACTIVE)),
    PhaseStep(P.ALLY_SPLIT, "ally", (K.DICE_SPLIT,), (P.RECRUIT_ACTIVE,)),
    PhaseStep(P.RECRUIT_ACTIVE, "recruit", (K.RECRUIT,), (P.RECRUIT_ALLY, P.GHOLA)),
    PhaseStep(P.RECRUIT_ALLY, "recruit", (K.RECRUIT,), (P.GHOLA,)),
    PhaseStep(P.GHOLA, "recruit", (K.GHOLA,), (P.KANLY,)),
    PhaseStep(P.KANLY, "kanly", (K.KANLY,), (P.LAND_START,)),
    PhaseStep(P.LAND_START, "landing", (), (P.LAND_HARVESTER, P.LAND_GIFT)),
    PhaseStep(P.LAND_HARVESTER, "landing", (K.HARVESTER_DISCARD,), (P.LAND_GIFT,)),
    PhaseStep(P.LAND_GIFT, "landing", (K.SPICE_GIFT,), (P.LAND_CONSENT,)),
    PhaseStep(P.LAND_CONSENT, "landing", (K.LAND_CONSENT,), (P.LAND_ACTIVE,)),
    PhaseStep(P.LAND_ACTIVE, "landing", (K.LAND,), (P.LAND_GRANT, P.MOVE_TARGET)),
    PhaseStep(P.LAND_GRANT, "landing", (K.ALLY_GRANT,), (P.LAND_ALLY, P.MOVE_TARGET)),
    PhaseStep(P.LAND_ALLY, "landing", (K.LAND,), (P.MOVE_TARGET,)),
    PhaseStep(P.MOVE_TARGET, "movement", (K.MOVE_TARGET,), (P.MOVE_ACTIVE,)),
    PhaseStep(P.MOVE_ACTIVE, "movement", (K.MOVE,), (P.MOVE_ALLY, P.BATTLE_SELECT)),
    PhaseStep(P.MOVE_ALLY, "movement", (K.MOVE,), (P.BATTLE_SELECT,)),
    PhaseStep(P.BATTLE_SELECT, "battle", (K.BATTLE_ORDER,), (P.BATTLE_GHOLA, P.PROPERTY)),
    PhaseStep(P.BATTLE_GHOLA, "battle", (K.GHOLA,), (P.BATTLE_FORTRESS,)),
    PhaseStep(
        P.BATTLE_FORTRESS,
        "battle",
        (K.INFILTRATION, K.FORTRESS_VICTIM),
        (P.BATTLE_FACE_DANCERS, P.BATTLE_SELECT),
    ),
    PhaseStep(P.BATTLE_FACE_DANCERS, "battle", (K.FACE_DANCER,), (P.BATTLE_LEND, P.BATTLE_SELECT)),
    PhaseStep(P.BATTLE_LEND, "battle", (K.LEND_LEADER,), (P.BATTLE_BID_ATTACKER,)),
    PhaseStep(P.BATTLE_BID_ATTACKER, "battle", (K.BID,), (P.BATTLE_BID_DEFENDER,)),
    PhaseStep(P.BATTLE_BID_DEFENDER, "battle", (K.BID,), (P.BATTLE_SELECT,)),
    PhaseStep(P.PROPERTY, "property", (K.REORGANIZE,), (P.STORM,)),
    PhaseStep(P.STORM, "storm", (), (P.END_TURN,)),
    PhaseStep(P.END_TURN, "turn", (), (P.ROLL, P.GAME_OVER)),
    PhaseStep(P.GAME_OVER, "", (), ()),
)


def markdown_table() -> str:
    """PHASE_FLOW as a markdown table (the copy in docs/architecture.md and the docstring)."""
    lines = [
        "| Phase | Step module | Decisions asked | Goes next to |",
        "|---|---|---|---|",
        f"| (new game) | setup | - | {', '.join(p.name for p in START_PHASES)} |",
    ]
    for step in PHASE_FLOW:
        module = step.module or "-"
        kinds = ", ".join(k.name for k in step.kinds) or "-"
        nexts = ", ".join(p.name for p in step.next) or "-"
        lines.append(f"| {step.phase.name} | {module} | {kinds} | {nexts} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_table())
