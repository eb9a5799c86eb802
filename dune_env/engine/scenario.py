"""Scenario building: set up any legal position without playing up to it.

    game = (
        Scenario([Faction.ATREIDES, Faction.CORRINO, Faction.HARKONNEN])
        .units(Faction.ATREIDES, Region.ARRAKEEN, 3)
        .units(Faction.ATREIDES, CARD, 2)
        .dice(factions=[ATR, ATR, COR, HAR], region=4, spice=1, kanly=KanlyFace.SNOOPER)
        .active(Faction.ATREIDES)
        .at(Phase.ALLY_OFFER)
    )

Every faction starts with all its pieces in its reserve (leaders too) and the board bare (all
property tokens, Shield, Snooper and Thumpers in the common supply); the methods move pieces
from there.  `at` builds the game at the start of a step with the dice as given (all fixed);
`at_turn_start` builds it before the roll, and `next_roll` (or the raw `force`) queues dice
outcomes for the rolls that follow.  Inputs are checked as they are given: an impossible
position raises ScenarioError naming what is wrong.  Documented in docs/scenarios.md.

Neutral defaults (what a position has unless you say otherwise), chosen so that no default
forces a choice: round 1, the first and active player is seat 0, the storm on sector 1
(Cielago Plain only, a non-strategic region), and the dice `NEUTRAL_DICE`: four Atreides
symbols, region die 4 (Carthag or Broken Land, neither under that storm), spice die 1 (no
storm symbol: the storm stays) and Kanly die Thumper (an optional token; nobody can be killed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from .config import GameConfig, check_seed
from .constants import (
    CARD,
    FACTION_DIE_SYMBOLS,
    FACTION_NAMES,
    LEADER_COUNTS,
    MAX_ROUNDS,
    NO_ONE,
    NUM_DICE,
    NUM_FACTIONS,
    NUM_REGIONS,
    NUM_TOKEN_TYPES,
    NUM_UNIT_TYPES,
    RESERVE,
    SHAI_HULUD_FACE,
    STORAGE_CAP,
    Die,
    Faction,
    KanlyFace,
    UnitType,
)
from .core import clear_pending
from .game import Game, advance
from .map_data import NUM_SECTORS, Region
from .records import opening_row
from .state import GameState, Phase, initial_pieces
from .steps.recruit import begin_recruit
from .steps.turn import reset_turn, start_turn

WORM: Final = "worm"
_MAX_POOL: Final = 99  # the snapshot validator's bound

# The dice of a Scenario that does not call `dice` (see the module docstring).
NEUTRAL_DICE: Final[dict[str, Any]] = {
    "factions": (Faction.ATREIDES,) * 4,
    "region": 4,
    "spice": 1,
    "kanly": KanlyFace.THUMPER,
}
NEUTRAL_STORM_SECTOR: Final = 1


class ScenarioError(ValueError):
    """An impossible position or a value out of range given to a Scenario."""


def _name(faction: int) -> str:
    return FACTION_NAMES[faction]


def _whole(value: int, low: int, high: int, what: str, rule: str = "") -> int:
    """`value` if it is an int in low..high (not a bool), else a ScenarioError naming `what`,
    the range and the rule that sets it."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(f"{what} {value!r} must be an int {low}..{high}")
    if not low <= value <= high:
        why = f" ({rule})" if rule else ""
        raise ScenarioError(f"{what} must be {low}..{high}{why}, not {value}")
    return int(value)


def dice_faces(
    factions: Sequence[int] | None = None,
    region: int | None = None,
    spice: int | str | None = None,
    kanly: int | None = None,
) -> dict[int, int]:
    """Die index -> engine face (0-5) of the dice given, in the convention of
    `Scenario.dice`: faction ids for the faction dice, region sector 1-6, spice 1-5 or
    "worm", a KanlyFace.  Dice left as None are not in the result."""
    faces: dict[int, int] = {}
    if factions is not None:
        factions = list(factions)
        if len(factions) != 4:
            raise ScenarioError(f"give the 4 faction dice, not {len(factions)}: {factions}")
        for die, f in enumerate(factions):
            if isinstance(f, bool) or not isinstance(f, int) or f not in FACTION_DIE_SYMBOLS:
                allowed = ", ".join(f"{int(x)}={_name(x)}" for x in FACTION_DIE_SYMBOLS)
                raise ScenarioError(
                    f"faction die {die + 1} cannot show {f!r}: the symbols are {allowed} "
                    "(Tleilax and Smugglers have none, COMP-1)"
                )
            faces[die] = FACTION_DIE_SYMBOLS.index(int(f))
    if region is not None:
        if isinstance(region, bool) or not isinstance(region, int) or not 1 <= region <= 6:
            raise ScenarioError(f"region={region!r}: the region die shows a sector 1 to 6")
        faces[Die.REGION] = region - 1
    if spice is not None:
        if spice == WORM:
            faces[Die.SPICE] = SHAI_HULUD_FACE
        elif isinstance(spice, bool) or not isinstance(spice, int) or not 1 <= spice <= 5:
            raise ScenarioError(f'spice={spice!r}: the spice die shows 1 to 5 or "worm"')
        else:
            faces[Die.SPICE] = spice - 1
    if kanly is not None:
        if isinstance(kanly, bool) or not isinstance(kanly, int) or not 0 <= kanly <= 5:
            raise ScenarioError(f"kanly={kanly!r}: use a KanlyFace (0-5)")
        faces[Die.KANLY] = int(kanly)
    return faces


class Scenario:
    """A position under construction; `at(phase)` or `at_turn_start()` makes it a `Game`."""

    def __init__(
        self, factions: list[int], seed: int = 0, leaders_on_card: bool = False, **config: Any
    ) -> None:
        """`factions` in seat order; `config`: GameConfig options.  Every piece starts in its
        faction's reserve, leaders too unless `leaders_on_card=True` (as after set-up, where
        every leader waits on its card); `leaders(f, on_card)` sets one faction."""
        if not isinstance(leaders_on_card, bool):
            raise ScenarioError(f"leaders_on_card must be True or False, not {leaders_on_card!r}")
        try:
            cfg = GameConfig(
                num_players=len(factions),
                faction_mode="assigned",
                factions=tuple(int(f) for f in factions),
                **config,
            )
        except TypeError as exc:
            raise ScenarioError(f"Scenario options: {exc}") from exc
        self.state = state = GameState(cfg, check_seed(seed))
        state.history.append(opening_row())
        for seat, faction in enumerate(cfg.factions or ()):
            state.seat_faction[seat] = faction
            state.faction_seat[faction] = seat
            initial_pieces(state, faction)
            if leaders_on_card:
                state.leaders[faction] = [LEADER_COUNTS[faction], 0]
        state.setup_index = NUM_FACTIONS
        state.bg_prediction = NO_ONE
        state.storm_sector = NEUTRAL_STORM_SECTOR
        for die, face in dice_faces(**NEUTRAL_DICE).items():
            state.dice_faces[die] = face
        self._pool: int | None = None
        self._ally: tuple[int, int] | None = None

    # --- checks ----------------------------------------------------------------------------

    def _faction(self, faction: int, what: str = "faction") -> int:
        if isinstance(faction, bool) or not isinstance(faction, int) or not 0 <= faction < 8:
            raise ScenarioError(f"{what}={faction!r} is not a Faction")
        if not self.state.in_game(int(faction)):
            playing = ", ".join(_name(f) for f in self.state.seat_faction)
            raise ScenarioError(f"{_name(faction)} is not in this game (playing: {playing})")
        return int(faction)

    @staticmethod
    def _region(region: int, what: str = "region") -> int:
        if isinstance(region, bool) or not isinstance(region, int):
            raise ScenarioError(f"{what}={region!r} is not a Region")
        if not 0 <= region < NUM_REGIONS:
            raise ScenarioError(f"{what}={region!r} is not a Region (0..{NUM_REGIONS - 1})")
        return int(region)

    # --- pieces and tokens ----------------------------------------------------------------

    def units(self, faction: int, location: int, n: int, unit_type: int = 0) -> Scenario:
        """Move n units of a type from the faction's reserve to a region or its CARD."""
        f = self._faction(faction)
        if isinstance(location, bool) or not isinstance(location, int):
            raise ScenarioError(f"location={location!r} is not a Region or CARD")
        if not (0 <= location < NUM_REGIONS or location == CARD):
            raise ScenarioError(
                f"location={location!r}: units go to a Region or to CARD (pieces start in "
                "the reserve already)"
            )
        if unit_type not in range(NUM_UNIT_TYPES):
            raise ScenarioError(f"unit_type={unit_type!r} is not a UnitType")
        if unit_type == UnitType.ELITE and f != Faction.CORRINO:
            raise ScenarioError(f"only Corrino has Sardaukar (COR-1), not {_name(f)}")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ScenarioError(f"n={n!r} must be a count >= 0")
        left = self.state.units[f][RESERVE * NUM_UNIT_TYPES + unit_type]
        if n > left:
            kind = "Sardaukar" if unit_type == UnitType.ELITE else "units"
            raise ScenarioError(
                f"{_name(f)} has only {left} {kind} left in its reserve, not {n} "
                "(COMP-4: pieces are limited)"
            )
        self.state.move_units(f, int(unit_type), RESERVE, int(location), n)
        return self

    def leaders(self, faction: int, on_card: int) -> Scenario:
        """Put `on_card` of the faction's leader tokens on its card (the rest in reserve)."""
        f = self._faction(faction)
        total = LEADER_COUNTS[f]
        if isinstance(on_card, bool) or not isinstance(on_card, int) or not 0 <= on_card <= total:
            raise ScenarioError(
                f"{_name(f)} has {total} leader token(s): on_card must be 0..{total}, "
                f"not {on_card!r}"
            )
        self.state.leaders[f] = [on_card, total - on_card]
        return self

    def token(self, region: int, token: int) -> Scenario:
        """Put a property token on a region (the one there, if any, goes back to supply)."""
        r = self._region(region)
        if r == Region.POLAR_CAP:
            raise ScenarioError("the Polar Cap holds no property token (MAP-4)")
        if token not in range(NUM_TOKEN_TYPES):
            raise ScenarioError(f"token={token!r} is not a Token")
        s = self.state
        if s.region_token[r] != NO_ONE:
            s.token_supply[s.region_token[r]] += 1
            s.region_token[r] = NO_ONE
        if s.token_supply[token] <= 0:
            raise ScenarioError(f"no token of type {token} left in the common supply")
        s.token_supply[token] -= 1
        s.region_token[r] = int(token)
        return self

    def shield(self, faction: int) -> Scenario:
        self.state.shield_holder = self._faction(faction)
        return self

    def snooper(self, faction: int) -> Scenario:
        self.state.snooper_holder = self._faction(faction)
        return self

    def thumper(self, faction: int) -> Scenario:
        f = self._faction(faction)
        s = self.state
        if s.thumpers[f]:
            raise ScenarioError(f"{_name(f)} already holds a Thumper; nobody holds two (KANLY-5)")
        if s.thumper_supply <= 0:
            raise ScenarioError("no Thumper left in the common supply")
        s.thumpers[f] = 1
        s.thumper_supply -= 1
        return self

    def storage(self, faction: int, amount: int) -> Scenario:
        """Stored spice (Corrino COR-0/COR-2, Guild GLD-1): 0 to 5."""
        f = self._faction(faction)
        if f not in (Faction.CORRINO, Faction.GUILD) and amount:
            raise ScenarioError(f"only Corrino and the Guild store spice, not {_name(f)}")
        self.state.storage[f] = _whole(
            amount, 0, STORAGE_CAP, f"storage of {_name(f)}", "COR-2, GLD-1"
        )
        return self

    def prediction(self, faction: int) -> Scenario:
        """The Bene Gesserit's prediction (BG-0): a faction in the game other than the Bene
        Gesserit, or the Guild whether played or not."""
        self._faction(Faction.BENE_GESSERIT, "the Bene Gesserit")
        if faction == Faction.BENE_GESSERIT:
            raise ScenarioError("the Bene Gesserit cannot predict themselves (BG-0)")
        if faction != Faction.GUILD:
            self._faction(faction, "prediction")
        self.state.bg_prediction = int(faction)
        return self

    # --- turn ----------------------------------------------------------------------------

    def storm(self, sector: int) -> Scenario:
        self.state.storm_sector = _whole(sector, 1, NUM_SECTORS, "storm sector", "MAP-1")
        return self

    def round(self, number: int) -> Scenario:
        self.state.round = _whole(number, 1, MAX_ROUNDS, "round", "DEF-3")
        return self

    def first(self, faction: int) -> Scenario:
        self.state.first_seat = self.state.faction_seat[self._faction(faction)]
        return self

    def active(self, faction: int) -> Scenario:
        self.state.active_seat = self.state.faction_seat[self._faction(faction)]
        return self

    def dice(
        self,
        factions: Sequence[int] | None = None,
        region: int | None = None,
        spice: int | str | None = None,
        kanly: int | None = None,
    ) -> Scenario:
        """The seven dice as they lie, all fixed: faction symbols (faction ids), region sector
        1-6, spice 1-5 or "worm", Kanly face (KanlyFace).  Dice not given keep their current
        value (the neutral defaults, NEUTRAL_DICE, unless set before)."""
        for die, face in dice_faces(factions, region, spice, kanly).items():
            self.state.dice_faces[die] = face
        return self

    def pool(self, amount: int) -> Scenario:
        """Override the spice pool (default: the spice die's value)."""
        self._pool = _whole(amount, 0, _MAX_POOL, "pool")
        return self

    def ally(self, faction: int, symbol: int | None = None) -> Scenario:
        """An alliance already accepted this turn (`symbol`: the offer's symbol, TLX-3)."""
        f = self._faction(faction, "ally")
        if not self.state.config.alliances_allowed:
            raise ScenarioError(
                f"alliances need 5 or more players (ALLY-1); this game has {self.state.num_players}"
            )
        chosen = f if symbol is None else int(symbol)
        if not 0 <= chosen < NUM_FACTIONS:
            raise ScenarioError(f"symbol={symbol!r} is not a faction id")
        self._ally = (f, chosen)
        return self

    def axolotl(self, symbol: int) -> Scenario:
        if symbol not in FACTION_DIE_SYMBOLS:
            raise ScenarioError(f"axolotl symbol {symbol!r} is not a faction-die symbol (TLX-1)")
        self.state.axolotl_symbol = int(symbol)
        return self

    def target(self, region: int) -> Scenario:
        self.state.target = self._region(region, "target")
        return self

    def next_roll(
        self,
        factions: Sequence[int] | None = None,
        region: int | None = None,
        spice: int | str | None = None,
        kanly: int | None = None,
    ) -> Scenario:
        """Queue the outcome of the next roll, in the convention of `dice`: give every die
        that roll throws (all seven for a turn's first roll, ROLL-1; only the unfixed ones
        for a reroll).  Call again for each later roll."""
        faces = dice_faces(factions, region, spice, kanly)
        if not faces:
            raise ScenarioError("next_roll needs at least one die")
        return self.force(*(faces[die] for die in sorted(faces)))

    def force(self, *outcomes: int) -> Scenario:
        """Queue raw chance outcomes (die faces 0-5, in die order) for the next rolls.  The
        low-level form of `next_roll`: faction faces index FACTION_DIE_SYMBOLS, region face
        = sector - 1, spice face = spice - 1 (5 = Shai-Hulud)."""
        for outcome in outcomes:
            if isinstance(outcome, bool) or not isinstance(outcome, int) or not 0 <= outcome < 6:
                raise ScenarioError(f"die face {outcome!r} must be 0..5")
        self.state.rng.forced.extend(int(o) for o in outcomes)
        return self

    def _check_ready(self) -> None:
        """Checks that need the whole position."""
        s = self.state
        if self._ally is not None and self._ally[0] == s.active_faction:
            raise ScenarioError(f"{_name(s.active_faction)} cannot be its own ally")

    # --- build ---------------------------------------------------------------------------

    def at_turn_start(self) -> Game:
        """The active player's turn begins: the seven dice are rolled (forced or seeded)."""
        self._check_ready()
        start_turn(self.state)
        advance(self.state)
        return Game.from_state(self.state)

    def at(self, phase: Phase, run: bool = True) -> Game:
        """Enter `phase` of the active player's turn with the dice as given, all fixed, and
        run to the first real decision; with `run=False`, stop before the step begins (no
        decision pending, as `Game.run_until` stops; go on with `advance` or `run_until`)."""
        if not isinstance(phase, int) or not Phase.ROLL <= phase <= Phase.END_TURN:
            raise ScenarioError(f"phase {phase!r} must be a Phase of a turn (ROLL..END_TURN)")
        self._check_ready()
        s = self.state
        axolotl = s.axolotl_symbol
        target = s.target
        reset_turn(s)
        s.axolotl_symbol = axolotl
        s.target = target
        s.dice_fixed = [True] * NUM_DICE
        worm = s.dice_faces[Die.SPICE] == SHAI_HULUD_FACE
        s.pool = (
            self._pool if self._pool is not None else (0 if worm else s.dice_faces[Die.SPICE] + 1)
        )
        if self._ally is not None:
            s.ally, s.offer_symbol = self._ally
            s.offer_target = s.ally
        clear_pending(s)
        if phase == Phase.RECRUIT_ACTIVE:
            begin_recruit(s)
        else:
            s.phase = int(phase)
        if s.active_faction == Faction.TLEILAX and axolotl == NO_ONE and phase > Phase.AXOLOTL:
            raise ScenarioError("a Tleilax turn past its roll step needs .axolotl(symbol)")
        if run:
            advance(s)
        return Game.from_state(s)


__all__ = [
    "CARD",
    "NEUTRAL_DICE",
    "NEUTRAL_STORM_SECTOR",
    "RESERVE",
    "Scenario",
    "ScenarioError",
    "WORM",
    "dice_faces",
]
