"""The action table of `dune_v1`: one `Discrete(N)` space shared by every agent.

Every decision kind of the engine owns a contiguous block of ids; inside a block, id
`offset + option` means the engine option `option` of that kind (see
`dune_env.engine.decisions` for the encoding of each kind).  The blocks are laid end to end in
`KIND_ORDER`: the order of the table positions declared by the kinds' `DecisionSpec`s -- not
an enum iteration, so that reordering the engine's enum can never silently renumber the
actions.  The table is pinned by `tests/env/golden/action_table.txt` and documented in
`docs/action_table.md` (regenerate with `python -m dune_env.environment.docs`).

Names are `"<KIND>: <option text>"`, unique over the whole table; `action_name(id)` and
`action_id(name)` convert both ways.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..engine.decisions import OPTION_COUNTS, SPECS, TABLE_ORDER, DecisionKind

# The order of the blocks: each kind's declared `table_position` (its `DecisionSpec`, in its
# step module), not the enum order, so that reordering the engine's enum can never silently
# renumber the actions.  Changing a position renumbers actions: update the golden file,
# regenerate docs/action_table.md and bump the environment's version (dune_v1).
KIND_ORDER: tuple[DecisionKind, ...] = TABLE_ORDER


class Action(NamedTuple):
    id: int
    kind: DecisionKind
    option: int
    name: str


class InvalidActionError(ValueError):
    """An action that is not an action of this environment at all: out of range, None for an
    agent that must act, or any action once the game is over."""


def check_action(action: Any, agent: str = "the agent") -> int:
    """`action` as a Python int in 0..NUM_ACTIONS-1, or a clear TypeError / InvalidActionError."""
    if type(action) is int:
        value = action
    elif isinstance(action, (bool, np.bool_)):
        raise TypeError(f"the action of {agent} must be an int action id, not the bool {action!r}")
    elif isinstance(action, (int, np.integer)):
        value = int(action)
    elif (
        isinstance(action, np.ndarray)
        and action.shape in ((), (1,))
        and (np.issubdtype(action.dtype, np.integer))
    ):
        value = int(action.reshape(()))
    elif action is None:
        raise InvalidActionError(
            f"{agent} must act: None is only for agents that are done (dead steps)"
        )
    else:
        raise TypeError(
            f"the action of {agent} must be an int action id in 0..{NUM_ACTIONS - 1}, "
            f"not {type(action).__name__} {action!r}"
        )
    if not 0 <= value < NUM_ACTIONS:
        raise InvalidActionError(
            f"action {value} of {agent} is out of range: action ids are 0..{NUM_ACTIONS - 1} "
            f"(Discrete({NUM_ACTIONS}))"
        )
    return value


def _build() -> tuple[tuple[Action, ...], dict[int, int]]:
    actions: list[Action] = []
    offsets: dict[int, int] = {}
    for kind in KIND_ORDER:
        offsets[int(kind)] = len(actions)
        spec = SPECS[kind]
        for option in range(spec.option_count):
            name = f"{kind.name}: {spec.describe(option)}"
            actions.append(Action(len(actions), kind, option, name))
    return tuple(actions), offsets


ACTIONS, _OFFSETS = _build()
NUM_ACTIONS = len(ACTIONS)

# offset of each kind's block, indexed by the kind's engine value
KIND_OFFSET: tuple[int, ...] = tuple(_OFFSETS[k] for k in range(len(DecisionKind)))
# kind and option of each action id, as arrays (vectorised decoding)
ACTION_KIND = np.array([a.kind for a in ACTIONS], dtype=np.int64)
ACTION_OPTION = np.array([a.option for a in ACTIONS], dtype=np.int64)

_BY_NAME: dict[str, int] = {a.name: a.id for a in ACTIONS}
if len(_BY_NAME) != NUM_ACTIONS:  # pragma: no cover - describe_option must stay unique
    raise AssertionError("action names are not unique")


def action_id(name_or_kind: str | int, option: int | None = None) -> int:
    """The id of an action, from its name (`"KANLY: no Kanly"`) or from (kind, option)."""
    if option is None:
        if not isinstance(name_or_kind, str):
            raise TypeError(
                "action_id takes an action name, or a decision kind and an option; "
                f"got {name_or_kind!r} alone"
            )
        try:
            return _BY_NAME[name_or_kind]
        except KeyError:
            close = [n for n in _BY_NAME if n.split(":")[0] == name_or_kind.split(":")[0]]
            hint = f"; names of that kind: {close[:8]}" if close else ""
            raise ValueError(
                f"no action is named {name_or_kind!r}; names look like "
                f"'KIND: option text', e.g. {ACTIONS[0].name!r}{hint}"
            ) from None
    if isinstance(name_or_kind, str):
        raise TypeError("pass either an action name, or a decision kind and an option")
    kind = DecisionKind(name_or_kind)
    if isinstance(option, bool) or not isinstance(option, int):
        raise TypeError(f"option must be an int, not {option!r}")
    if not 0 <= option < OPTION_COUNTS[kind]:
        raise ValueError(f"option {option} is outside 0..{OPTION_COUNTS[kind] - 1} for {kind.name}")
    return KIND_OFFSET[kind] + option


def action_name(action: int) -> str:
    """The readable name of an action id."""
    return ACTIONS[_checked(action)].name


def decode_action(action: int) -> tuple[DecisionKind, int]:
    """(decision kind, engine option) of an action id."""
    entry = ACTIONS[_checked(action)]
    return entry.kind, entry.option


def _checked(action: int) -> int:
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"an action id must be an int, not {type(action).__name__} {action!r}")
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action id {action} is outside 0..{NUM_ACTIONS - 1}")
    return int(action)


def table_lines() -> list[str]:
    """One line per action, `id<TAB>name`: the golden-file format."""
    return [f"{a.id}\t{a.name}" for a in ACTIONS]


def markdown() -> str:
    """docs/action_table.md."""
    lines = [
        "# Action table of `dune_v1`",
        "",
        "<!-- Generated by `python -m dune_env.environment.docs`; do not edit by hand. -->",
        "",
        f"One `Discrete({NUM_ACTIONS})` action space is shared by every agent. Each decision "
        "kind of the engine (RULES.md §9) owns one contiguous block of ids; inside a block, "
        "id = offset + engine option. The blocks follow the written order of "
        "`KIND_ORDER` in `dune_env/environment/action_table.py`. Only the ids of the pending "
        "decision's kind can be legal, and the observation's `action_mask` marks exactly the "
        "legal ones. Some ids can never be legal (for example `FIX_DICE: fix dice {}` or a "
        "Sardaukar of a faction other than Corrino); they keep the table a simple product of "
        "the engine's option encodings.",
        "",
        "`dune_env.environment.action_name(id)` gives the name, "
        "`dune_env.environment.action_id(name)` the id, "
        "`decode_action(id)` the (kind, option) pair.",
        "",
        "## Blocks",
        "",
        "| kind | first id | last id | size |",
        "|---|---:|---:|---:|",
    ]
    for kind in KIND_ORDER:
        start = KIND_OFFSET[kind]
        size = OPTION_COUNTS[kind]
        lines.append(f"| {kind.name} | {start} | {start + size - 1} | {size} |")
    lines += ["", "## Every action", "", "| id | name |", "|---:|---|"]
    for a in ACTIONS:
        lines.append(f"| {a.id} | `{a.name}` |")
    return "\n".join(lines) + "\n"
