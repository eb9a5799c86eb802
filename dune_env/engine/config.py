"""Game configuration: player count, factions, variants (every [variant] of RULES.md), rewards.

A `GameConfig` is validated at construction; every error names the field, the bad value and
what is allowed.
"""

from __future__ import annotations

import math
import operator
from dataclasses import asdict, dataclass, fields
from typing import Any, Final

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
    if isinstance(value, (str, bytes, dict)):
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
    """Everything that defines a game before the seed.

    Attributes:
        num_players: 3 to 8 (SETUP-5).
        faction_mode: "random" (factions drawn by the seeded generator from those available),
            "assigned" (`factions` gives one per seat) or "draft" (players choose, SETUP-5).
        factions: with faction_mode="assigned", the faction id of each seat, clockwise.
        region_die_west_faces: CL-1 [variant]: the region-die sectors that show W; the rest
            show E.  Default (1, 4).
        strict_control: CL-3 [variant]: control also requires that no other faction (other
            than the ally, for an alliance victory) is present.  Default False.
        desert_landing: CL-6 [variant] (rev. 2): allow landing into desert regions.  Default
            True (the rulebook's p. 12 example); False is the translator's "no desert" reading.
        face_dancers: TLX-4 [variant]: "dice" (unused faction dice) or "spice" (1 spice each).
        guild_income_per_lander: GLD-1 [variant]: the Guild gains +1 for each other player
            landing outside the Polar Cap in a turn, instead of at most +1 per turn.  Default
            False.
        strict_alliance_victory: END-2 [variant]: no alliance victory while either ally shares
            any strategic region with a third faction.  Default False.
        smugglers_land_anywhere: SMG-1 [variant]: the Smugglers land (1 spice a unit) into any
            region not under the storm, whoever is there (desert per CL-6; the Polar Cap still
            costs 2).  Default False.
        win_reward, loss_reward: CL-4 rewards (END-7).
        skip_forced_decisions: apply decisions that have exactly one legal option without
            asking (RULES.md §9 allows it).  Default True.
        record_events: keep the structured event log (slower when on).  Default True.
    """

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
        west = _as_tuple(raw["region_die_west_faces"], "region_die_west_faces")
        object.__setattr__(self, "region_die_west_faces", west)
        if any(isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= 6 for s in west):
            raise ConfigError(
                f"region_die_west_faces={shown(west)} must list sectors from 1 to 6 (CL-1)"
            )
        if len(set(west)) != len(west):
            raise ConfigError(f"region_die_west_faces={west} repeats a sector")
        for name in (
            "strict_control",
            "desert_landing",
            "guild_income_per_lander",
            "strict_alliance_victory",
            "smugglers_land_anywhere",
            "skip_forced_decisions",
            "record_events",
        ):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be True or False, not {shown(getattr(self, name))}")
        face_dancers = raw["face_dancers"]
        if not isinstance(face_dancers, str) or face_dancers not in FACE_DANCER_MODES:
            raise ConfigError(
                f"face_dancers={shown(face_dancers)} is unknown; use one of {FACE_DANCER_MODES}"
            )
        for name in ("win_reward", "loss_reward"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"{name} must be a number, not {shown(value)}")
            try:
                finite = math.isfinite(float(value))
            except OverflowError:
                finite = False
            if not finite:
                raise ConfigError(f"{name}={shown(value)} must be a finite number (END-7 reward)")

    @property
    def alliances_allowed(self) -> bool:
        """ALLY-1: alliances are played from five players on."""
        return self.num_players >= ALLIANCE_MIN_PLAYERS

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("factions", "region_die_west_faces"):
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
        kwargs = dict(data)
        for key in ("factions", "region_die_west_faces"):
            if kwargs.get(key) is not None:
                kwargs[key] = tuple(kwargs[key])
        return cls(**kwargs)

    @classmethod
    def known_keys(cls) -> list[str]:
        return [f.name for f in fields(cls)]
