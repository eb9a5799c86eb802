"""Golden files: the action table and the observation / state layouts are part of the
public contract of dune_v1; docs/action_table.md and docs/observation.md are generated from
the code and must be up to date.

To accept an intended change: DUNE_UPDATE_GOLDEN=1 pytest tests/env/test_golden.py, then
`python -m dune_env.environment.docs`, and bump the environment's version.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dune_env.environment import docs
from dune_env.environment.action_table import table_lines
from dune_env.environment.observer import OBS_LAYOUT, STATE_LAYOUT

GOLDEN = Path(__file__).parent / "golden"


def _check(name: str, lines: list[str]) -> None:
    path = GOLDEN / name
    text = "\n".join(lines) + "\n"
    if os.environ.get("DUNE_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} changed; see this module's docstring"


def test_action_table_golden() -> None:
    _check("action_table.txt", table_lines())


def test_observation_layout_golden() -> None:
    _check("observation_layout.txt", OBS_LAYOUT.golden_lines())


def test_state_layout_golden() -> None:
    _check("state_layout.txt", STATE_LAYOUT.golden_lines())


@pytest.mark.parametrize("name", sorted(docs.generated_files()))
def test_generated_docs_are_up_to_date(name: str) -> None:
    path = docs.DOCS_DIR / name
    assert path.read_text(encoding="utf-8") == docs.generated_files()[name], (
        f"docs/{name} is stale: run python -m dune_env.environment.docs"
    )


def test_docs_check_mode() -> None:
    assert docs.main(["--check"]) == 0


def test_the_frozen_v1_observation_layout_is_todays() -> None:
    """The layout the shipped models were trained on (`policies.layouts.LAYOUT_V1`, frozen) is
    today's layout; when the layout changes this fails with the golden files, and the models
    keep loading through their field names (tests/policies/test_model_layout.py)."""
    from dune_env.policies.layouts import LAYOUT_V1, fields_of

    assert fields_of(OBS_LAYOUT) == LAYOUT_V1
