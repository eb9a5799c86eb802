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

It is also the one action codec of every adapter (the AEC and vector environments, the
single-agent env, OpenSpiel, observation policies, replays, human play): `action_of` /
`option_of` convert between an action id and an option of the pending decision,
`legal_action_ids` / `fill_mask` give the legal ids and the action mask, and
`illegal_action_message` / `illegal_option_message` say what was wrong and what is legal.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from ..engine.decisions import OPTION_COUNTS, SPECS, TABLE_ORDER, DecisionKind
from ..engine.game import legal_options
from ..engine.state import GameState
from .config import ENV_NAME

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
    return action_of(kind, option)


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


# --- the codec: what every adapter uses to go between action ids and engine options -------


def action_of(kind: int, option: int) -> int:
    """The action id of `option` of decision kind `kind` (unchecked: for options the engine
    or a policy gave, already known to be legal)."""
    return KIND_OFFSET[kind] + option


def option_of(kind: int, action: int) -> int:
    """The engine option that action id `action` means at a decision of kind `kind`, or -1
    when the id belongs to another kind's block (it can then never be legal)."""
    option = action - KIND_OFFSET[kind]
    return option if 0 <= option < OPTION_COUNTS[kind] else -1


def action_ids(kind: int, options: Iterable[int], base: int = 0) -> list[int]:
    """The action ids of `options` of kind `kind`, each plus `base` (a row's start in a flat
    batch of masks: row * NUM_ACTIONS)."""
    offset = KIND_OFFSET[kind] + base  # (adding in Python is faster than in numpy here)
    return [offset + o for o in options]


def legal_action_ids(state: GameState, base: int = 0) -> list[int]:
    """The legal action ids of the pending decision (each plus `base`); [] once the game is
    over."""
    kind = state.pending_kind
    if kind < 0:
        return []
    return action_ids(kind, legal_options(state), base)


def fill_mask(mask: np.ndarray, state: GameState) -> np.ndarray:
    """Set the entries of the legal actions of the pending decision in `mask` (a zeroed
    array of NUM_ACTIONS entries) to 1; returns `mask`."""
    mask[legal_action_ids(state)] = 1
    return mask


def action_mask(state: GameState, seat: int) -> np.ndarray:
    """The int8 action mask of `seat`: its legal actions if it decides now, else all 0."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if state.pending_seat == seat:
        fill_mask(mask, state)
    return mask


def illegal_action_message(
    action: int, kind: int, options: Iterable[int], who: str, legal_label: str = "legal actions"
) -> str:
    """Why action id `action` cannot be played by `who` at a decision of kind `kind` whose
    legal options are `options`: its name and (the first 12 of) the legal ids with names."""
    legal = action_ids(kind, options)
    shown = ", ".join(f"{a}={ACTIONS[a].name!r}" for a in legal[:12])
    more = f", ... ({len(legal)} in all)" if len(legal) > 12 else ""
    return (
        f"action {action} ({ACTIONS[action].name!r}) is not legal for {who} at decision "
        f"{DecisionKind(kind).name}; {legal_label}: [{shown}{more}]"
    )


def illegal_option_message(who: str, option: object, kind: int, options: list[int]) -> str:
    """Why engine policy `who` may not choose `option` at a decision of kind `kind`."""
    return (
        f"{who} chose option {option!r}, which is not legal for {DecisionKind(kind).name}; "
        f"legal options: {options}"
    )


def table_lines() -> list[str]:
    """One line per action, `id<TAB>name`: the golden-file format."""
    return [f"{a.id}\t{a.name}" for a in ACTIONS]


def markdown() -> str:
    """docs/action_table.md."""
    lines = [
        f"# Action table of `{ENV_NAME}`",
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
