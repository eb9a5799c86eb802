"""Game configuration: player count, factions, variants (every [variant] of RULES.md), rewards.

A `GameConfig` is validated at construction; every error names the field, the bad value and
what is allowed.

Every field is described once, by its `ConfigOption` in `CONFIG_OPTIONS` (kind, rules, what it
changes, whether it is a rule variant agents see).  From it derive: the type checks of
`GameConfig`, the observation's `rules_variant` entries (`variant_entries`,
`variant_values`), the OpenSpiel game parameters and the two configuration tables of
docs/rules.md (`python -m dune_env.environment.docs`).  To add a rule variant: a field of
`GameConfig` and its `ConfigOption` here, then its rule in the step module that plays it.
"""

from __future__ import annotations

import math
import operator
from dataclasses import asdict, dataclass, fields
from typing import Any, Final, NamedTuple

from mypy_extensions import mypyc_attr

from .constants import (
    ALLIANCE_MIN_PLAYERS,
    FACTION_NAMES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    available_factions,
)
from .shown import shown

FACTION_MODES: Final = ("random", "assigned", "draft")
FACE_DANCER_MODES: Final = ("dice", "spice")


class ConfigError(ValueError):
    """An invalid game configuration."""


# The kinds of configuration fields: how each is checked, shown to agents and passed as an
# OpenSpiel parameter.
PLAYERS: Final = "players"  # an int in MIN_PLAYERS..MAX_PLAYERS
CHOICE: Final = "choice"  # one of `choices` (the first is the default)
FACTIONS: Final = "factions"  # None or one faction id per seat
SECTORS: Final = "sectors"  # distinct sectors 1..6
FLAG: Final = "flag"  # True or False
REWARD: Final = "reward"  # a finite number


class ConfigOption(NamedTuple):
    """What one `GameConfig` field is.

    Attributes:
        name: the field.
        kind: PLAYERS, CHOICE, FACTIONS, SECTORS, FLAG or REWARD.
        rules: the rule IDs it concerns ("—" for none), as docs/rules.md shows them.
        doc: what it changes (docs/rules.md's table).
        variant: it changes the rules an agent plays by, so agents see it in the
            observation's `rules_variant` slice.  A rule variant added after `dune_v1` was
            published (BATTLE-3's `battle_survives_fortress`) is declared `changes_rules`
            only: one entry more would change the observation layout, which only an
            environment version bump may do (CHANGELOG.md); it becomes a `variant` then.
        changes_rules: it is listed among the fields that change the rules (variants and
            rewards) rather than among those that set up the table or the interface.
        parameter: its OpenSpiel game parameter name ("" if it is none).
        choices: a CHOICE field's allowed values, the default first.
    """

    name: str
    kind: str
    rules: str
    doc: str
    variant: bool = False
    changes_rules: bool = False
    parameter: str = ""
    choices: tuple[str, ...] = ()


SEED_LIMIT: Final = 1 << 64  # game seeds are 64-bit: 0 <= seed < 2**64


def check_seed(seed: object, what: str = "seed") -> int:
    """`seed` as an int in [0, 2**64), or a clear error (larger seeds would wrap silently)."""
    try:
        if isinstance(seed, bool):
            raise TypeError
        value = operator.index(seed)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{what} must be an int in 0..2**64-1, not {shown(seed)}") from None
    if not 0 <= value < SEED_LIMIT:
        raise ValueError(f"{what}={shown(value)} is outside 0..2**64-1")
    return value


def _as_tuple(value: Any, name: str) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes, bytearray, memoryview, dict)):
        raise ConfigError(f"{name} must be a list, not {shown(value)}")
    try:
        return tuple(value)
    except TypeError:
        raise ConfigError(f"{name} must be a list, not {shown(value)}") from None


# A plain Python class also when compiled: it validates its arguments itself (ConfigError, not a
# compiled constructor's TypeError), keeps the numbers it is given (int rewards stay ints) and
# pickles like any dataclass; the engine reads it rarely enough that speed does not matter.
@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class GameConfig:
    """Everything that defines a game before the seed: one field per `ConfigOption` of
    `CONFIG_OPTIONS` (below), which says what each field means and allows (docs/rules.md shows
    them as tables)."""

    num_players: int = 5
    faction_mode: str = "random"
    factions: tuple[int, ...] | None = None
    region_die_west_faces: tuple[int, ...] = (1, 4)
    strict_control: bool = False
    desert_landing: bool = True
    face_dancers: str = "dice"
    guild_income_per_lander: bool = False
    strict_alliance_victory: bool = False
    smugglers_land_anywhere: bool = False
    battle_survives_fortress: bool = False
    win_reward: float = 1.0
    loss_reward: float = -1.0
    skip_forced_decisions: bool = True
    record_events: bool = True

    def __post_init__(self) -> None:
        # Fields are read as plain objects: compiled code would check a declared type on access
        # and raise its own TypeError before these checks name the field and the bad value.
        raw: dict[str, Any] = vars(self)
        num_players = raw["num_players"]
        if isinstance(num_players, bool) or not isinstance(num_players, int):
            raise ConfigError(
                f"num_players must be an int from {MIN_PLAYERS} to {MAX_PLAYERS}, not "
                f"{shown(num_players)}"
            )
        if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
            raise ConfigError(
                f"num_players={shown(num_players)} is not allowed: the game is for "
                f"{MIN_PLAYERS} to {MAX_PLAYERS} players"
            )
        allowed = available_factions(num_players)
        allowed_text = ", ".join(f"{f}={FACTION_NAMES[f]}" for f in allowed)
        faction_mode, factions = raw["faction_mode"], raw["factions"]
        if not isinstance(faction_mode, str) or faction_mode not in FACTION_MODES:
            raise ConfigError(
                f"faction_mode={shown(faction_mode)} is unknown; use one of {FACTION_MODES}"
            )
        if faction_mode == "assigned":
            if factions is None:
                raise ConfigError("faction_mode='assigned' needs factions: one id per seat")
            facs = _as_tuple(factions, "factions")
            object.__setattr__(self, "factions", facs)
            if len(facs) != num_players:
                raise ConfigError(f"factions has {len(facs)} entries but num_players={num_players}")
            for f in facs:
                if isinstance(f, bool) or not isinstance(f, int) or f not in allowed:
                    raise ConfigError(
                        f"faction {shown(f)} is not available with {num_players} players; "
                        f"allowed: {allowed_text}"
                    )
            if len(set(facs)) != len(facs):
                raise ConfigError(f"factions {facs} names a faction twice; each at most once")
        elif factions is not None:
            raise ConfigError(
                f"factions is given but faction_mode={shown(faction_mode)}; "
                "set faction_mode='assigned' to use it"
            )
        for option in CONFIG_OPTIONS:
            _check_field(self, raw, option)

    @property
    def alliances_allowed(self) -> bool:
        """ALLY-1: alliances are played from five players on."""
        return self.num_players >= ALLIANCE_MIN_PLAYERS

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in _TUPLE_FIELDS:
            if data[key] is not None:
                data[key] = list(data[key])
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ConfigError(
                f"unknown configuration key(s) {sorted(unknown)}; known keys: {sorted(known)}"
            )
        # Lists become tuples in `__post_init__`, which refuses what is not a list (bytes, a
        # string, a mapping) as the constructor does.
        return cls(**data)

    @classmethod
    def known_keys(cls) -> list[str]:
        return [f.name for f in fields(cls)]


CONFIG_OPTIONS: Final[tuple[ConfigOption, ...]] = (
    ConfigOption(
        "num_players",
        PLAYERS,
        "SETUP-5",
        "3 to 8 players; decides the available factions (SETUP-5) and whether alliances "
        "exist (ALLY-1)",
        parameter="players",
    ),
    ConfigOption(
        "faction_mode",
        CHOICE,
        "SETUP-5",
        '`"random"`: factions drawn by the game\'s seeded generator from those available; '
        '`"assigned"`: `factions` gives them; `"draft"`: the players choose in the SETUP-5 '
        "order",
        parameter="faction_mode",
        choices=FACTION_MODES,
    ),
    ConfigOption(
        "factions",
        FACTIONS,
        "SETUP-5",
        'with `faction_mode="assigned"`: one faction id per seat, seat 0 first (0 Atreides, '
        "1 Harkonnen, 2 Fremen, 3 Bene Tleilax, 4 Corrino, 5 Spacing Guild, 6 Bene Gesserit, "
        "7 Smugglers)",
        parameter="factions",
    ),
    ConfigOption(
        "region_die_west_faces",
        SECTORS,
        "CL-1, MAP-3",
        "the region-die faces (sectors) that show **W**; every other face shows **E**",
        variant=True,
        changes_rules=True,
        parameter="region_die_west_faces",
    ),
    ConfigOption(
        "strict_control",
        FLAG,
        "CL-3, DEF-6",
        "`True`: you control a region only if no other faction is there (for the alliance "
        "count of END-2 the ally may be there too)",
        variant=True,
        changes_rules=True,
        parameter="strict_control",
    ),
    ConfigOption(
        "desert_landing",
        FLAG,
        "CL-6, LAND-3",
        "`False`: landing into a desert region is forbidden (the translator's reading)",
        variant=True,
        changes_rules=True,
        parameter="desert_landing",
    ),
    ConfigOption(
        "face_dancers",
        CHOICE,
        "TLX-4",
        '`"spice"`: each face-dancer replacement costs 1 spice instead of an unused faction die',
        variant=True,
        changes_rules=True,
        parameter="face_dancers",
        choices=FACE_DANCER_MODES,
    ),
    ConfigOption(
        "guild_income_per_lander",
        FLAG,
        "GLD-1",
        "`True`: the Guild gains +1 for *each* other player who lands outside the Polar Cap "
        "in a turn, instead of at most +1 per turn",
        variant=True,
        changes_rules=True,
        parameter="guild_income_per_lander",
    ),
    ConfigOption(
        "strict_alliance_victory",
        FLAG,
        "END-2",
        "`True`: no alliance victory while either ally shares any strategic region with a "
        "third faction",
        variant=True,
        changes_rules=True,
        parameter="strict_alliance_victory",
    ),
    ConfigOption(
        "smugglers_land_anywhere",
        FLAG,
        "SMG-1",
        "`True`: the Smugglers land into any region not under the storm for 1 spice a unit, "
        "whoever is there (the Polar Cap still costs 2)",
        variant=True,
        changes_rules=True,
        parameter="smugglers_land_anywhere",
    ),
    ConfigOption(
        "battle_survives_fortress",
        FLAG,
        "BATTLE-3",
        "`True`: when the fortress removes the attacker's last own unit in the region, the "
        "battle still takes place (the ally's units, a lent leader and the attacker's own "
        "leaders may fight), as the original decides the battle before the fortress acts "
        "(p. 6); by default no battle is left there. Not yet in agents' `rules_variant` (see "
        "docs/rules-notes.md)",
        changes_rules=True,
        parameter="battle_survives_fortress",
    ),
    ConfigOption(
        "win_reward",
        REWARD,
        "CL-4, END-7",
        "the reward of each winner",
        changes_rules=True,
        parameter="win_reward",
    ),
    ConfigOption(
        "loss_reward",
        REWARD,
        "CL-4, END-7",
        "the reward of every other player",
        changes_rules=True,
        parameter="loss_reward",
    ),
    ConfigOption(
        "skip_forced_decisions",
        FLAG,
        "—",
        "a decision with exactly one legal option is applied without asking (allowed by the "
        "specification; the option is still recorded)",
        parameter="skip_forced_decisions",
    ),
    ConfigOption(
        "record_events",
        FLAG,
        "—",
        "keep the engine's event log (`game.event_log()`); the environment `dune_v1` sets it "
        "to `False` unless asked",
    ),
)
VARIANT_OPTIONS: Final[tuple[ConfigOption, ...]] = tuple(o for o in CONFIG_OPTIONS if o.variant)
# Fields held as tuples (JSON lists in snapshots).
_TUPLE_FIELDS: Final[tuple[str, ...]] = tuple(
    o.name for o in CONFIG_OPTIONS if o.kind in (FACTIONS, SECTORS)
)
if tuple(o.name for o in CONFIG_OPTIONS) != tuple(f.name for f in fields(GameConfig)):
    raise AssertionError(  # pragma: no cover - a declaration error
        "CONFIG_OPTIONS must describe every GameConfig field, in the same order"
    )
NUM_SECTORS_ON_DIE: Final = 6  # the region die's faces, sectors 1..6 (MAP-3)


def config_option(name: str) -> ConfigOption:
    """The `ConfigOption` of field `name`."""
    for option in CONFIG_OPTIONS:
        if option.name == name:
            return option
    raise KeyError(f"GameConfig has no field {name!r}")


def _check_field(config: GameConfig, raw: dict[str, Any], option: ConfigOption) -> None:
    """The checks of one field that depend on its kind alone (PLAYERS and FACTIONS, which
    depend on each other, are checked in `GameConfig.__post_init__`).  `raw` holds the fields
    as plain objects (see there)."""
    name = option.name
    value = raw[name]
    if option.kind == FLAG:
        if not isinstance(value, bool):
            raise ConfigError(f"{name} must be True or False, not {shown(value)}")
    elif option.kind == CHOICE:
        if not isinstance(value, str) or value not in option.choices:
            raise ConfigError(f"{name}={shown(value)} is unknown; use one of {option.choices}")
    elif option.kind == SECTORS:
        sectors = _as_tuple(value, name)
        object.__setattr__(config, name, sectors)
        rule = option.rules.split(",")[0]
        if any(
            isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= NUM_SECTORS_ON_DIE
            for s in sectors
        ):
            raise ConfigError(f"{name}={shown(sectors)} must list sectors from 1 to 6 ({rule})")
        if len(set(sectors)) != len(sectors):
            raise ConfigError(f"{name}={sectors} repeats a sector")
    elif option.kind == REWARD:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{name} must be a number, not {shown(value)}")
        try:
            finite = math.isfinite(float(value))
        except OverflowError:
            finite = False
        if not finite:
            raise ConfigError(f"{name}={shown(value)} must be a finite number (END-7 reward)")


def variant_entries() -> list[str]:
    """The names of the `rules_variant` entries agents see, in order: one per FLAG variant,
    one per non-default choice of a CHOICE variant, one per sector of a SECTORS variant."""
    names: list[str] = []
    for option in VARIANT_OPTIONS:
        if option.kind == SECTORS:
            names += [f"{option.name} has {s}" for s in range(1, NUM_SECTORS_ON_DIE + 1)]
        elif option.kind == CHOICE:
            names += [f"{option.name} == {c!r}" for c in option.choices[1:]]
        elif option.kind == FLAG:
            names.append(option.name)
        else:  # pragma: no cover - a declaration error, caught by the tests
            raise ValueError(f"variant {option.name}: kind {option.kind} cannot be observed")
    return names


def variant_values(config: GameConfig) -> list[float]:
    """The `rules_variant` entries of `config` (1.0 = on), in `variant_entries()` order."""
    values: list[float] = []
    for option in VARIANT_OPTIONS:
        value = getattr(config, option.name)
        if option.kind == SECTORS:
            values += [float(s in value) for s in range(1, NUM_SECTORS_ON_DIE + 1)]
        elif option.kind == CHOICE:
            values += [float(value == c) for c in option.choices[1:]]
        else:
            values.append(float(value))
    return values


def variant_summary() -> str:
    """What each `rules_variant` entry means, for the observation's docs."""
    parts: list[str] = []
    index = 0
    for option in VARIANT_OPTIONS:
        rule = option.rules.split(",")[0]
        if option.kind == SECTORS:
            last = index + NUM_SECTORS_ON_DIE - 1
            parts.append(
                f"entries {index}-{last} region-die faces 1..{NUM_SECTORS_ON_DIE} showing W "
                f"({rule} `{option.name}`)"
            )
            index = last + 1
        elif option.kind == CHOICE:
            for choice in option.choices[1:]:
                parts.append(f"{index} `{option.name}` is {choice!r} ({rule})")
                index += 1
        else:
            parts.append(f"{index} `{option.name}` ({rule})")
            index += 1
    return ", ".join(parts)
