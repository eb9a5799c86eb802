"""Short names shared by the rule tests."""

from dune_env.engine import Faction, Region, UnitType

ATR = Faction.ATREIDES
HAR = Faction.HARKONNEN
FRE = Faction.FREMEN
TLX = Faction.TLEILAX
COR = Faction.CORRINO
GLD = Faction.GUILD
BG = Faction.BENE_GESSERIT
SMG = Faction.SMUGGLERS
REG = UnitType.REGULAR
ELITE = UnitType.ELITE
POLAR = Region.POLAR_CAP
