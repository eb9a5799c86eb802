"""The action table: explicit block order, one meaning per id, names both ways."""

from __future__ import annotations

import numpy as np
import pytest

from dune_env.engine import OPTION_COUNTS, DecisionKind, describe_option
from dune_env.engine.decisions import kanly_kill_option, land_option, offer_option
from dune_env.environment import (
    ACTIONS,
    KIND_OFFSET,
    KIND_ORDER,
    NUM_ACTIONS,
    action_id,
    action_name,
    decode_action,
)
from dune_env.environment.action_table import ACTION_KIND, ACTION_OPTION


def test_blocks_are_laid_end_to_end_in_the_written_order() -> None:
    assert sorted(KIND_ORDER) == sorted(DecisionKind)
    start = 0
    for kind in KIND_ORDER:
        assert KIND_OFFSET[kind] == start
        start += OPTION_COUNTS[kind]
    assert start == NUM_ACTIONS == 582


def test_every_id_is_one_option_of_one_kind() -> None:
    seen = set()
    for action in ACTIONS:
        kind, option = decode_action(action.id)
        assert (kind, option) == (action.kind, action.option)
        assert action_id(kind, option) == action.id
        assert action.name == f"{kind.name}: {describe_option(kind, option)}"
        assert ACTION_KIND[action.id] == kind and ACTION_OPTION[action.id] == option
        seen.add((kind, option))
    assert len(seen) == NUM_ACTIONS


def test_names_both_ways() -> None:
    names = [a.name for a in ACTIONS]
    assert len(set(names)) == NUM_ACTIONS
    for action in ACTIONS:
        assert action_id(action_name(action.id)) == action.id
    assert action_name(0) == "CHOOSE_FACTION: Atreides"
    assert action_id("ALLY_ANSWER: yes") == KIND_OFFSET[DecisionKind.ALLY_ANSWER] + 1
    assert action_id("BID: bid done") == KIND_OFFSET[DecisionKind.BID]
    assert action_id("KANLY: kill Fremen unit in Arrakeen") == KIND_OFFSET[
        DecisionKind.KANLY
    ] + kanly_kill_option(6, 2, 0)
    assert action_id("LAND: land Sardaukar in Polar Cap") == KIND_OFFSET[
        DecisionKind.LAND
    ] + land_option(9, 1)
    assert action_id("ALLY_OFFER: offer Bene Tleilax with symbol Corrino") == KIND_OFFSET[
        DecisionKind.ALLY_OFFER
    ] + offer_option(3, 4)
    assert action_name(np.int64(581)) == "REORGANIZE: place Ornithopter"


def test_bad_lookups_name_the_problem() -> None:
    with pytest.raises(ValueError, match="no action is named 'KANLY: nonsense'.*KANLY: no Kanly"):
        action_id("KANLY: nonsense")
    with pytest.raises(ValueError, match="action id 582 is outside 0..581"):
        action_name(582)
    with pytest.raises(ValueError, match="outside"):
        decode_action(-1)
    with pytest.raises(TypeError, match="must be an int"):
        action_name("3")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be an int"):
        action_name(True)
    with pytest.raises(ValueError, match="option 2 is outside 0..1 for GHOLA"):
        action_id(DecisionKind.GHOLA, 2)
    with pytest.raises(TypeError):
        action_id(5)
