"""Scenario building: set up any legal position without playing up to it.

    game = (
        Scenario([Faction.ATREIDES, Faction.CORRINO, Faction.HARKONNEN])
        .units(Faction.ATREIDES, Region.ARRAKEEN, 3)
        .units(Faction.ATREIDES, CARD, 2)
        .dice(factions=[ATR, ATR, COR, HAR], region=4, spice=1, kanly=KanlyFace.SNOOPER)
        .active(Faction.ATREIDES)
        .at(Phase.ALLY_OFFER)
    )

Every faction starts with all its pieces in its reserve and the board bare (all property tokens,
Shield, Snooper and Thumpers in the common supply); the methods move pieces from there.  `at`
builds the game at the start of a step with the dice as given (all fixed); `at_turn_start`
builds it before the roll, and `force` queues dice outcomes for the rolls that follow.
Documented in docs/scenarios.md.
"""

from __future__ import annotations

from typing import Any

from .config import GameConfig, check_seed
from .constants import (
    CARD,
    FACTION_DIE_SYMBOLS,
    NO_ONE,
    NUM_DICE,
    NUM_FACTIONS,
    RESERVE,
    SHAI_HULUD_FACE,
    Die,
    Faction,
)
from .core import clear_pending
from .game import Game, advance
from .state import GameState, Phase, initial_pieces
from .steps.recruit import begin_recruit
from .steps.turn import reset_turn, start_turn

WORM = "worm"


class Scenario:
    def __init__(self, factions: list[int], seed: int = 0, **config: Any) -> None:
        cfg = GameConfig(
            num_players=len(factions),
            faction_mode="assigned",
            factions=tuple(int(f) for f in factions),
            **config,
        )
        self.state = state = GameState(cfg, check_seed(seed))
        state.history.append([NO_ONE, NO_ONE, NO_ONE, 0])
        for seat, faction in enumerate(cfg.factions or ()):
            state.seat_faction[seat] = faction
            state.faction_seat[faction] = seat
            initial_pieces(state, faction)
        state.setup_index = NUM_FACTIONS
        state.bg_prediction = NO_ONE
        self._pool: int | None = None
        self._ally: tuple[int, int] | None = None

    # --- pieces and tokens ----------------------------------------------------------------

    def units(self, faction: int, location: int, n: int, unit_type: int = 0) -> Scenario:
        """Move n units of a type from the faction's reserve to a region or its CARD."""
        self.state.move_units(int(faction), unit_type, RESERVE, location, n)
        return self

    def leaders(self, faction: int, on_card: int) -> Scenario:
        """Put `on_card` of the faction's leader tokens on its card (the rest in reserve)."""
        pair = self.state.leaders[int(faction)]
        total = pair[0] + pair[1]
        if not 0 <= on_card <= total:
            raise ValueError(f"faction {faction} has {total} leader token(s), not {on_card}")
        self.state.leaders[int(faction)] = [on_card, total - on_card]
        return self

    def token(self, region: int, token: int) -> Scenario:
        s = self.state
        if s.token_supply[token] <= 0:
            raise ValueError(f"no token of type {token} left in the common supply")
        if s.region_token[region] != NO_ONE:
            s.token_supply[s.region_token[region]] += 1
        s.token_supply[token] -= 1
        s.region_token[region] = token
        return self

    def shield(self, faction: int) -> Scenario:
        self.state.shield_holder = int(faction)
        return self

    def snooper(self, faction: int) -> Scenario:
        self.state.snooper_holder = int(faction)
        return self

    def thumper(self, faction: int) -> Scenario:
        s = self.state
        s.thumpers[int(faction)] = 1
        s.thumper_supply -= 1
        return self

    def storage(self, faction: int, amount: int) -> Scenario:
        self.state.storage[int(faction)] = amount
        return self

    def prediction(self, faction: int) -> Scenario:
        self.state.bg_prediction = int(faction)
        return self

    # --- turn ----------------------------------------------------------------------------

    def storm(self, sector: int) -> Scenario:
        self.state.storm_sector = sector
        return self

    def round(self, number: int) -> Scenario:
        self.state.round = number
        return self

    def first(self, faction: int) -> Scenario:
        self.state.first_seat = self.state.faction_seat[int(faction)]
        return self

    def active(self, faction: int) -> Scenario:
        self.state.active_seat = self.state.faction_seat[int(faction)]
        return self

    def dice(
        self,
        factions: list[int] | tuple[int, ...] = (0, 0, 0, 0),
        region: int = 1,
        spice: int | str = 1,
        kanly: int = 0,
    ) -> Scenario:
        """All seven dice, fixed: faction symbols (faction ids), region sector 1-6, spice
        value 1-5 or "worm", Kanly face (KanlyFace)."""
        faces = [FACTION_DIE_SYMBOLS.index(int(f)) for f in factions]
        faces.append(region - 1)
        faces.append(SHAI_HULUD_FACE if spice == WORM else int(spice) - 1)
        faces.append(int(kanly))
        self.state.dice_faces = faces
        return self

    def pool(self, amount: int) -> Scenario:
        """Override the spice pool (default: the spice die's value)."""
        self._pool = amount
        return self

    def ally(self, faction: int, symbol: int | None = None) -> Scenario:
        """An alliance already accepted this turn (`symbol`: the offer's symbol, TLX-3)."""
        self._ally = (int(faction), int(faction) if symbol is None else int(symbol))
        return self

    def axolotl(self, symbol: int) -> Scenario:
        self.state.axolotl_symbol = int(symbol)
        return self

    def target(self, region: int) -> Scenario:
        self.state.target = region
        return self

    def force(self, *outcomes: int) -> Scenario:
        """Queue chance outcomes (die faces 0-5) for the next rolls."""
        self.state.rng.forced.extend(outcomes)
        return self

    # --- build ---------------------------------------------------------------------------

    def at_turn_start(self) -> Game:
        """The active player's turn begins: the seven dice are rolled (forced or seeded)."""
        start_turn(self.state)
        advance(self.state)
        return Game.from_state(self.state)

    def at(self, phase: Phase) -> Game:
        """Enter `phase` of the active player's turn with the dice as given, all fixed."""
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
            raise ValueError("a Tleilax turn past its roll step needs .axolotl(symbol)")
        advance(s)
        return Game.from_state(s)


__all__ = ["Scenario", "WORM", "CARD", "RESERVE"]
