"""The map of Arrakis as data (MAP-1, MAP-2; CL-2: reconstructed).

The engine plays this one map, `DEFAULT_MAP`: its ten regions are fixed in `Region`,
`NUM_REGIONS`, snapshots and the observation layout, and the rules name some of them (the
Polar Cap, the Fremen sietches).  `GameMap` checks the data's consistency (one entry per
region, symmetric borders); it is not a configuration option.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


class Region:
    """Region indices of the default map (MAP-1 table order), plain ints.
    `Region.label(Region.ARRAKEEN)` is the name "Arrakeen", `Region.from_label("Arrakeen")`
    the way back, `Region.ALL` every index in order.  (`Final`: class constants, also compiled.)"""

    CIELAGO_PLAIN: Final = 0
    GREAT_FLAT: Final = 1
    HABBANYA_SIETCH: Final = 2
    SIETCH_TABR: Final = 3
    CARTHAG: Final = 4
    BROKEN_LAND: Final = 5
    ARRAKEEN: Final = 6
    MINOR_ERG: Final = 7
    TUEKS_SIETCH: Final = 8
    POLAR_CAP: Final = 9

    ALL: Final = tuple(range(10))

    @staticmethod
    def label(region: int) -> str:
        """The region's name on the default map (MAP-1), e.g. "Arrakeen"."""
        if isinstance(region, bool) or not isinstance(region, int) or not 0 <= region < 10:
            raise ValueError(f"region {region!r} is not a region index 0..9")
        return DEFAULT_MAP.names[region]

    @staticmethod
    def from_label(label: str) -> int:
        """The index of the region named `label` (case-insensitive, as in MAP-1)."""
        for region, name in enumerate(DEFAULT_MAP.names):
            if name.lower() == label.strip().lower():
                return region
        raise ValueError(f"no region is named {label!r}; regions: {', '.join(DEFAULT_MAP.names)}")


NUM_SECTORS: Final = 6


@dataclass(frozen=True)
class GameMap:
    """Regions with their sector, flags and adjacency.  Sector 0 means "in no sector"."""

    names: tuple[str, ...]
    sectors: tuple[int, ...]
    strategic: tuple[bool, ...]
    desert: tuple[bool, ...]
    adjacency: tuple[frozenset[int], ...]
    polar_cap: int

    def __post_init__(self) -> None:
        n = len(self.names)
        for field_name in ("sectors", "strategic", "desert", "adjacency"):
            if len(getattr(self, field_name)) != n:
                raise ValueError(f"GameMap.{field_name} must have one entry per region ({n})")
        for a, neighbours in enumerate(self.adjacency):
            for b in neighbours:
                if a not in self.adjacency[b]:
                    raise ValueError(
                        f"GameMap adjacency must be symmetric: {self.names[a]} lists "
                        f"{self.names[b]} but not the reverse"
                    )
        if self.sectors[self.polar_cap] != 0:
            raise ValueError("the Polar Cap must lie in no storm sector (sector 0)")

    @property
    def num_regions(self) -> int:
        return len(self.names)

    def regions_in_sector(self, sector: int) -> tuple[int, ...]:
        return tuple(r for r, s in enumerate(self.sectors) if s == sector)

    @property
    def strategic_regions(self) -> tuple[int, ...]:
        return tuple(r for r, s in enumerate(self.strategic) if s)

    @property
    def non_strategic_sector_regions(self) -> tuple[int, ...]:
        """Non-strategic regions other than the Polar Cap (ATR-0, HAR-0, FRE-0)."""
        return tuple(
            r for r in range(self.num_regions) if not self.strategic[r] and r != self.polar_cap
        )


def _adjacency(pairs: list[tuple[int, int]], n: int) -> tuple[frozenset[int], ...]:
    table: list[set[int]] = [set() for _ in range(n)]
    for a, b in pairs:
        table[a].add(b)
        table[b].add(a)
    return tuple(frozenset(s) for s in table)


R: Final = Region
_PAIRS: Final = [
    # MAP-2, each border once.
    (R.POLAR_CAP, R.CIELAGO_PLAIN),
    (R.POLAR_CAP, R.GREAT_FLAT),
    (R.POLAR_CAP, R.SIETCH_TABR),
    (R.POLAR_CAP, R.CARTHAG),
    (R.POLAR_CAP, R.ARRAKEEN),
    (R.POLAR_CAP, R.MINOR_ERG),
    (R.CIELAGO_PLAIN, R.GREAT_FLAT),
    (R.CIELAGO_PLAIN, R.HABBANYA_SIETCH),
    (R.CIELAGO_PLAIN, R.MINOR_ERG),
    (R.CIELAGO_PLAIN, R.TUEKS_SIETCH),
    (R.GREAT_FLAT, R.HABBANYA_SIETCH),
    (R.GREAT_FLAT, R.SIETCH_TABR),
    (R.HABBANYA_SIETCH, R.SIETCH_TABR),
    (R.SIETCH_TABR, R.CARTHAG),
    (R.SIETCH_TABR, R.BROKEN_LAND),
    (R.CARTHAG, R.BROKEN_LAND),
    (R.CARTHAG, R.ARRAKEEN),
    (R.BROKEN_LAND, R.ARRAKEEN),
    (R.ARRAKEEN, R.MINOR_ERG),
    (R.ARRAKEEN, R.TUEKS_SIETCH),
    (R.MINOR_ERG, R.TUEKS_SIETCH),
]

DEFAULT_MAP: Final = GameMap(
    names=(
        "Cielago Plain",
        "Great Flat",
        "Habbanya Sietch",
        "Sietch Tabr",
        "Carthag",
        "Broken Land",
        "Arrakeen",
        "Minor Erg",
        "Tuek's Sietch",
        "Polar Cap",
    ),
    sectors=(1, 2, 2, 3, 4, 4, 5, 6, 6, 0),
    strategic=(False, False, True, True, True, False, True, False, True, False),
    desert=(True, True, True, True, False, True, False, False, False, False),
    adjacency=_adjacency(_PAIRS, 10),
    polar_cap=R.POLAR_CAP,
)
