"""The phase-flow table (engine/steps/flow.py) matches the code: every phase's runner module,
every `goto` target and `ask`ed decision kind of the step modules, every transition seen in
varied seeded games; and its copies in the docs are current."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dune_env.engine.steps as steps_package
from dune_env.engine import GameConfig
from dune_env.engine.core import RUNNERS
from dune_env.engine.decisions import DecisionKind
from dune_env.engine.game import _apply_unchecked, legal_options, new_state
from dune_env.engine.rng import DiceRng
from dune_env.engine.state import Phase
from dune_env.engine.steps.flow import PHASE_FLOW, START_PHASES, markdown_table

STEPS_DIR = Path(steps_package.__file__).parent
ROOT = STEPS_DIR.parents[2]


def _by_phase() -> dict[int, tuple[str, set[int], set[int]]]:
    return {int(s.phase): (s.module, set(s.kinds), set(s.next)) for s in PHASE_FLOW}


def test_every_phase_once_with_its_runner_module() -> None:
    assert [s.phase for s in PHASE_FLOW] == list(Phase)
    for step in PHASE_FLOW:
        if step.phase == Phase.GAME_OVER:
            assert step.phase not in RUNNERS and not step.next
            continue
        assert RUNNERS[step.phase].__module__ == f"dune_env.engine.steps.{step.module}"


def _calls(module: str, names: set[str]) -> list[tuple[str, str]]:
    """(called function, enum member) for each `Phase.X`/`DecisionKind.X` argument of a call to
    one of `names` in a step module's source."""
    tree = ast.parse((STEPS_DIR / f"{module}.py").read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in names:
                for arg in node.args:
                    for sub in ast.walk(arg):
                        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
                            if sub.value.id in ("Phase", "DecisionKind"):
                                found.append((node.func.id, sub.attr))
    return found


MODULES = sorted({s.module for s in PHASE_FLOW if s.module})


@pytest.mark.parametrize("module", MODULES)
def test_every_goto_and_ask_of_a_step_module_is_in_the_table(module: str) -> None:
    listed_next = {p.name for s in PHASE_FLOW for p in s.next} | {p.name for p in START_PHASES}
    listed_kinds = {k.name for s in PHASE_FLOW if s.module == module for k in s.kinds}
    gotos = [member for fn, member in _calls(module, {"goto"})]
    asks = [member for fn, member in _calls(module, {"ask", "ask_faction", "ask_known"})]
    assert set(gotos) <= listed_next, set(gotos) - listed_next
    assert set(asks) <= listed_kinds, set(asks) - listed_kinds


def test_every_decision_kind_is_asked_in_some_phase() -> None:
    assert {k for s in PHASE_FLOW for k in s.kinds} == set(DecisionKind)


def test_played_transitions_and_decisions_are_in_the_table() -> None:
    """Seeded random games at every player count, with variants and the draft: each phase
    change and each decision posed is one the table lists."""
    table = _by_phase()
    chooser = DiceRng(0)
    variants = ({}, {"faction_mode": "draft"}, {"strict_control": True, "desert_landing": False})
    for players in range(3, 9):
        for variant in variants:
            for seed in range(3):
                state = new_state(GameConfig(num_players=players, **variant), seed)
                while state.phase != Phase.GAME_OVER:
                    before = state.phase
                    if state.pending_kind >= 0:
                        assert state.pending_kind in table[before][1], (before, state.pending_kind)
                        options = legal_options(state)
                        _apply_unchecked(state, options[chooser.below(len(options))])
                    else:
                        RUNNERS[before](state)
                    if state.phase != before:
                        assert state.phase in table[before][2], (Phase(before), Phase(state.phase))


def test_the_copies_of_the_table_are_current() -> None:
    """Regenerate with `python -m dune_env.engine.steps.flow`."""
    table = markdown_table()
    assert steps_package.__doc__ is not None and table in steps_package.__doc__
    assert table in (ROOT / "docs" / "architecture.md").read_text()
