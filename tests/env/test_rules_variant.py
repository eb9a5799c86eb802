"""The `rules_variant` slice: every rule variant of the configuration is visible to agents
(in observations and in the global state), the same for every observer, constant in a game."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import numpy as np
import pytest

from dune_env.engine import Game, GameConfig
from dune_env.engine.config import (
    CHOICE,
    CONFIG_OPTIONS,
    FLAG,
    SECTORS,
    VARIANT_OPTIONS,
    ConfigError,
    ConfigOption,
)
from dune_env.environment import OBS_LAYOUT
from dune_env.environment.aec import raw_env
from dune_env.environment.fields import LEGACY_OBS_SIZE, OBS_SIZE, RULES_VARIANT_ENTRIES
from dune_env.environment.observer import STATE_LAYOUT, rules_variant_values
from dune_env.policies.observation import observation_and_mask

from .helpers import VARIANTS_ON, random_action

# The entries of the variants of rules revision 2, by name (a variant added later adds entries
# elsewhere in the slice, which these tests then leave alone; the golden layout pins the order).
V2_ENTRIES = RULES_VARIANT_ENTRIES[:12]
DEFAULT_VECTOR = [1, 0, 0, 1, 0, 0] + [0, 1, 0, 0, 0, 0]  # W on faces 1 and 4; desert landing


def by_name(values: list[float] | np.ndarray) -> dict[str, float]:
    """The rules-revision-2 entries of a `rules_variant` vector, by entry name."""
    named = dict(zip(RULES_VARIANT_ENTRIES, [float(v) for v in values], strict=True))
    return {name: named[name] for name in V2_ENTRIES}


def test_every_rule_changing_config_flag_has_an_entry() -> None:
    """CL-1, CL-3, CL-6, TLX-4, GLD-1, END-2, SMG-1: one entry per variant (the west faces one
    per die face); only rewards and engine conveniences are left out."""
    assert len(RULES_VARIANT_ENTRIES) == OBS_LAYOUT["rules_variant"].size >= 12
    assert V2_ENTRIES[6:] == (
        "strict_control",
        "desert_landing",
        "face_dancers == 'spice'",
        "guild_income_per_lander",
        "strict_alliance_victory",
        "smugglers_land_anywhere",
    )
    not_rules = {"num_players", "faction_mode", "factions", "win_reward", "loss_reward"}
    not_rules |= {"skip_forced_decisions", "record_events"}
    # BATTLE-3's variant came after dune_v1 was published: an entry more would change the
    # observation layout, so it is observed from the next environment version on.
    after_v1 = {"battle_survives_fortress"}
    flags = set(GameConfig.known_keys()) - not_rules - {"region_die_west_faces", "face_dancers"}
    assert flags - after_v1 <= set(RULES_VARIANT_ENTRIES)
    for option in CONFIG_OPTIONS:
        if option.name in after_v1:
            assert option.changes_rules and not option.variant
            assert option.name not in RULES_VARIANT_ENTRIES
    expected = dict(zip(V2_ENTRIES, DEFAULT_VECTOR, strict=True))
    assert by_name(rules_variant_values(GameConfig())) == expected


@pytest.mark.parametrize("variants", [False, True])
def test_rules_variant_slice_reflects_the_config_for_every_agent(variants: bool) -> None:
    """Observations and the global state carry the configuration's variants, for every
    observer and throughout the game."""
    cfg: dict[str, object] = dict(VARIANTS_ON) if variants else {}
    env = raw_env(num_players=6, **cfg)
    env.reset(seed=5)
    expected = rules_variant_values(env.unwrapped.game.config)
    if variants:
        # faces 2, 5 show W; strict control; no desert landing; face dancers by spice; the
        # three rev. 2 variants on.
        on = [0, 1, 0, 0, 1, 0] + [1, 0, 1, 1, 1, 1]
        assert by_name(expected) == dict(zip(V2_ENTRIES, on, strict=True))
    else:
        assert by_name(expected) == dict(zip(V2_ENTRIES, DEFAULT_VECTOR, strict=True))
    rng = random.Random(0)
    for _ in range(40):
        for agent in env.possible_agents:
            obs = env.observe(agent)["observation"]
            np.testing.assert_array_equal(OBS_LAYOUT.view(obs, "rules_variant"), expected)
        np.testing.assert_array_equal(STATE_LAYOUT.view(env.state(), "rules_variant"), expected)
        agent = env.agent_selection
        if env.terminations[agent]:
            break
        env.step(random_action(env.action_mask(agent), rng))


def test_engine_policies_see_the_variants_too() -> None:
    """ObservationPolicy builds the same slice from an engine game (the harness path)."""
    game = Game(GameConfig(num_players=4, smugglers_land_anywhere=True), seed=1)
    obs, _ = observation_and_mask(game, 0)
    seen = by_name(OBS_LAYOUT.raw(obs, "rules_variant"))
    assert seen["smugglers_land_anywhere"] == 1
    assert seen["desert_landing"] == 1  # the default


def test_rules_variant_is_the_last_slice() -> None:
    """A model trained before the slice existed sees a prefix of the observation."""
    assert OBS_LAYOUT["rules_variant"].stop == OBS_SIZE
    assert LEGACY_OBS_SIZE == OBS_SIZE - OBS_LAYOUT["rules_variant"].size
    assert STATE_LAYOUT["rules_variant"].stop == STATE_LAYOUT.size


# --- a variant is declared once (CONFIG_OPTIONS) and reaches every place that must know it ------


def _non_default(option: ConfigOption) -> object:
    """A valid value of the field other than its default."""
    default = getattr(GameConfig(), option.name)
    if option.kind == FLAG:
        return not default
    if option.kind == CHOICE:
        return option.choices[1]
    if option.kind == SECTORS:
        return (2, 5) if default != (2, 5) else (1,)
    raise AssertionError(f"{option.name}: kind {option.kind} is no variant kind")


@pytest.mark.parametrize("option", VARIANT_OPTIONS, ids=lambda o: o.name)
def test_each_variant_reaches_the_observation_openspiel_docs_and_validation(
    option: ConfigOption,
) -> None:
    """CL-1, CL-3, CL-6, TLX-4, GLD-1, END-2, SMG-1: a rule variant declared in CONFIG_OPTIONS
    is seen by agents (its own `rules_variant` entries change, no other), is an OpenSpiel
    parameter that reaches the configuration, has its row in docs/rules.md, and a bad value
    is refused with its name.  A variant missing from any of them fails here."""
    value = _non_default(option)
    changed = GameConfig(**{option.name: value})
    before, after = rules_variant_values(GameConfig()), rules_variant_values(changed)
    moved = {
        RULES_VARIANT_ENTRIES[i]
        for i, (a, b) in enumerate(zip(before, after, strict=True))
        if a != b
    }
    assert moved and all(name.startswith(option.name) for name in moved)
    assert option.parameter, f"{option.name} has no OpenSpiel parameter"
    if importlib.util.find_spec("pyspiel") is not None:
        from dune_env.openspiel import PARAMETERS, config_from_params

        assert option.parameter in PARAMETERS
        text = ";".join(map(str, value)) if option.kind == SECTORS else value
        assert getattr(config_from_params({option.parameter: text}), option.name) == value
    rules_doc = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()
    assert f"| `{option.name}` | {option.rules} |" in rules_doc
    assert option.rules != "—"
    with pytest.raises(ConfigError, match=option.name):
        GameConfig(**{option.name: "not a value" if option.kind != CHOICE else "bogus"})


def test_config_options_describe_every_gameconfig_field_in_order() -> None:
    assert [o.name for o in CONFIG_OPTIONS] == GameConfig.known_keys()
    for option in CONFIG_OPTIONS:
        if option.kind == CHOICE:  # the default is the first choice
            assert getattr(GameConfig(), option.name) == option.choices[0]
        assert not option.variant or option.changes_rules
