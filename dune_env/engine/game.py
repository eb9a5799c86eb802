"""The engine's public face: create a game, read the pending decision, apply an option.

    game = Game(GameConfig(num_players=5), seed=7)
    while not game.terminal:
        d = game.pending            # Decision(kind, seat, faction, options)
        game.apply(d.options[0])
    game.rewards, game.winners

No RL notions live here: agents, observations and rewards shaping belong to `dune_env.env`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, NamedTuple, Protocol, SupportsIndex, cast

from mypy_extensions import mypyc_attr

from . import steps  # noqa: F401  (registers every runner and decision handler)
from .config import GameConfig, check_seed
from .constants import (
    NO_ONE,
    NUM_FACTIONS,
    NUM_LOCATIONS,
    NUM_TOKEN_TYPES,
    NUM_UNIT_TYPES,
    Faction,
    Token,
)
from .core import RUNNERS, clear_pending
from .decisions import APPLY_FNS, LEGAL_FNS, DecisionKind, describe_option
from .events import render
from .records import LastBattle, history_row, opening_row
from .shown import shown
from .state import GameState, Phase
from .steps.setup import begin_setup


class IllegalOptionError(ValueError):
    """An option that is not legal for the pending decision.  The state is left unchanged."""


# mypyc compiles subclasses of RuntimeError only as plain Python classes.
@mypyc_attr(native_class=False)
class DecisionPendingError(RuntimeError):
    """`run_until` met a decision with a real choice and was given no policy to take it."""


@mypyc_attr(native_class=False)
class PhaseNotReachedError(RuntimeError):
    """`run_until`: the game ended before the engine entered the requested phase."""


class LeaderCount(NamedTuple):
    """A faction's leader tokens (DEF-2: leaders wait on the card; the rest are in reserve)."""

    on_card: int
    in_reserve: int


@dataclass(frozen=True)
class BattleSide:
    """One side of a resolved battle: its deciding faction, its revealed strength and what
    each faction of the side committed (BATTLE-5/6)."""

    faction: int
    strength: int
    units: dict[int, tuple[int, int]]  # faction -> (regular units, Sardaukar) committed
    leaders: dict[int, int]  # faction -> leader tokens committed


@dataclass(frozen=True)
class BattleResult:
    """The last resolved battle, read from `GameState.last_battle`."""

    region: int
    attacker: BattleSide
    defender: BattleSide
    attacker_won: bool  # BATTLE-6: a tie goes to the defender

    @property
    def winner(self) -> int:
        """The winning side's faction."""
        return self.attacker.faction if self.attacker_won else self.defender.faction

    @classmethod
    def from_record(cls, battle: LastBattle) -> BattleResult:
        sides = [
            _battle_side(
                battle.attacker,
                battle.attacker_strength,
                battle.attacker_units,
                battle.attacker_leaders,
            ),
            _battle_side(
                battle.defender,
                battle.defender_strength,
                battle.defender_units,
                battle.defender_leaders,
            ),
        ]
        return cls(battle.region, sides[0], sides[1], battle.winner_side == 0)

    @classmethod
    def from_list(cls, packed: list[int]) -> BattleResult:
        """From the flat snapshot form of `last_battle` (docs/snapshot.md)."""
        return cls.from_record(LastBattle.from_list(packed))


def _battle_side(
    faction: int, strength: int, units: tuple[int, ...], leaders: tuple[int, ...]
) -> BattleSide:
    """One side of a `LastBattle` record, with the factions that committed nothing left out."""
    by_faction = {
        f: (units[NUM_UNIT_TYPES * f], units[NUM_UNIT_TYPES * f + 1])
        for f in range(NUM_FACTIONS)
        if units[NUM_UNIT_TYPES * f] or units[NUM_UNIT_TYPES * f + 1]
    }
    committed = {f: leaders[f] for f in range(NUM_FACTIONS) if leaders[f]}
    return BattleSide(faction, strength, by_faction, committed)


class EnginePolicyLike(Protocol):
    def act(self, game: Game, seat: int) -> int: ...


Policy = Callable[["Game"], int] | EnginePolicyLike


class Decision(NamedTuple):
    kind: DecisionKind
    seat: int  # who decides (may differ from whose turn it is)
    faction: int  # that seat's faction (NO_ONE while factions are being drafted)
    options: tuple[int, ...]


def legal_options(state: GameState) -> list[int]:
    """The legal options of the pending decision ([] when the game is over)."""
    if state.pending_kind == NO_ONE:
        return []
    cache = state.legal_cache
    if cache is None:
        cache = state.legal_cache = LEGAL_FNS[state.pending_kind](state)
    return cache


_GAME_OVER: Final = int(Phase.GAME_OVER)  # (a plain int: enum attribute lookups are slow)


def advance(state: GameState) -> None:
    """Run the engine until a decision with a real choice is pending or the game is over."""
    skip = state.config.skip_forced_decisions
    runners = RUNNERS
    while state.phase != _GAME_OVER:
        if state.pending_kind != NO_ONE:
            if skip:
                options = legal_options(state)
                if len(options) == 1:
                    _apply_unchecked(state, options[0], forced=True)
                    continue
            return
        runners[state.phase](state)


def _check_index(what: str, value: int, bound: int, allowed: str = "") -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < bound:
        raise ValueError(f"{what}={value!r} is not valid; use {allowed or f'0..{bound - 1}'}")


def _apply_unchecked(state: GameState, option: int, forced: bool = False) -> None:
    kind = state.pending_kind
    history = state.history
    last = history[-1]
    if isinstance(last.chance, list):  # a finished row is frozen: clones share it safely
        chance = tuple(last.chance)
        history[-1] = history_row(last.seat, last.kind, last.option, last.forced, chance)
    history.append(history_row(state.pending_seat, kind, option, 1 if forced else 0, ()))
    state.decision_count += 1
    clear_pending(state)
    APPLY_FNS[kind](state, option)


# Parameters the engine validates itself are typed `object`: compiled code would otherwise reject
# a wrong type at the call with a bare TypeError instead of the engine's own error.
def apply_option(state: GameState, option: object) -> None:
    """Check `option` against the pending decision's legal options, apply it, and advance."""
    check_option(state, option)
    _apply_unchecked(state, int(cast(int, option)))
    advance(state)


def check_option(state: GameState, option: object) -> None:
    """Raise IllegalOptionError unless `option` is legal for the pending decision."""
    if state.phase == _GAME_OVER:
        raise IllegalOptionError("the game is over: no decision is pending")
    if state.pending_kind == NO_ONE:
        raise IllegalOptionError(
            f"no decision is pending: the engine is stopped before step {Phase(state.phase).name} "
            "(by run_until); call game.advance() or game.run_until(...) to go on"
        )
    options = legal_options(state)
    if isinstance(option, bool) or not isinstance(option, int):
        raise IllegalOptionError(
            f"option {shown(option)} is a {type(option).__name__}: give a Python int, one of "
            f"{options} (convert a numpy integer with int(...))"
        )
    if option not in options:
        kind = DecisionKind(state.pending_kind)
        try:
            bad = f"{shown(option)} ({describe_option(kind, option)})"
        except (ValueError, TypeError, IndexError, KeyError, OverflowError):
            bad = shown(option)
        legal_text = ", ".join(f"{o}={describe_option(kind, o)}" for o in options)
        raise IllegalOptionError(
            f"option {bad} is not legal for decision {kind.name} of seat {state.pending_seat}; "
            f"legal options: [{legal_text}]"
        )


def apply_legal(state: GameState, option: int) -> None:
    """`apply_option` for a caller that has already checked `option` (an int) against
    `legal_options(state)` of a game that is not over: apply it and advance."""
    _apply_unchecked(state, option)
    advance(state)


def new_state(config: GameConfig, seed: SupportsIndex) -> GameState:
    state = GameState(config, check_seed(seed))
    state.history.append(opening_row())  # chance before the first decision
    begin_setup(state)
    advance(state)
    return state


def _game_over(state: GameState) -> Game:
    """The game over `state` (what `Game.__reduce__` names for pickle and deepcopy)."""
    return Game(state=state)


class Game:
    """A game of Dune, the Dice Game.  Thin object over a `GameState` and the step modules."""

    __slots__ = ("state",)

    def __init__(
        self,
        config: GameConfig | None = None,
        seed: SupportsIndex = 0,
        *,
        state: GameState | None = None,
        **options: Any,
    ) -> None:
        """A new game of `config` (or of keyword options) dealt by `seed`; or, given `state`
        alone, the game over that state (`from_state`)."""
        if state is not None:
            if config is not None or options:
                raise TypeError("pass either a state or a configuration, not both")
            self.state = state
            return
        if config is None:
            config = GameConfig.from_dict(options)
        elif options:
            raise TypeError("pass either a GameConfig or keyword options, not both")
        self.state = new_state(config, seed)

    def __reduce__(self) -> tuple[Any, ...]:
        # (Pickle and deepcopy of the compiled class need it; the same on both builds.)
        return _game_over, (self.state,)

    @classmethod
    def from_state(cls, state: GameState) -> Game:
        """A game over `state` (not copied)."""
        return cls(state=state)

    # --- reading -------------------------------------------------------------------------

    @property
    def config(self) -> GameConfig:
        return self.state.config

    @property
    def terminal(self) -> bool:
        return self.state.phase == Phase.GAME_OVER

    @property
    def pending(self) -> Decision | None:
        s = self.state
        if s.pending_kind == NO_ONE:
            return None
        seat = s.pending_seat
        faction = s.seat_faction[seat] if seat >= 0 else NO_ONE
        return Decision(DecisionKind(s.pending_kind), seat, faction, tuple(legal_options(s)))

    def legal_options(self) -> list[int]:
        return list(legal_options(self.state))

    @property
    def winners(self) -> list[int]:
        return list(self.state.winners)

    @property
    def rewards(self) -> list[float]:
        return list(self.state.rewards)

    def event_log(self) -> list[str]:
        return [render(e) for e in self.state.events]

    # --- reading the position (plain values, never references into the state) --------------

    @property
    def phase(self) -> Phase:
        return Phase(self.state.phase)

    @property
    def active_faction(self) -> int:
        """The faction whose turn it is (NO_ONE during a draft)."""
        return self.state.active_faction

    @property
    def ally(self) -> int:
        """The active player's ally this turn, or NO_ONE (DEF-4)."""
        return self.state.ally

    @property
    def storm_sector(self) -> int:
        return self.state.storm_sector

    @property
    def round(self) -> int:
        return self.state.round

    def units(self, faction: int, region: int, unit_type: int | None = None) -> int:
        """Units of `faction` in `region` (a Region, or CARD / RESERVE): of one UnitType, or
        of both types when `unit_type` is None."""
        _check_index("faction", faction, NUM_FACTIONS)
        _check_index("region", region, NUM_LOCATIONS, "a Region, CARD or RESERVE")
        row = self.state.units[faction]
        i = int(region) * NUM_UNIT_TYPES
        if unit_type is None:
            return row[i] + row[i + 1]
        _check_index("unit_type", unit_type, NUM_UNIT_TYPES, "a UnitType")
        return row[i + int(unit_type)]

    def leaders(self, faction: int) -> LeaderCount:
        """Leader tokens of `faction` on its card and in its reserve."""
        _check_index("faction", faction, NUM_FACTIONS)
        on_card, in_reserve = self.state.leaders[faction]
        return LeaderCount(on_card, in_reserve)

    def storage(self, faction: int) -> int:
        """Stored spice of `faction` (Corrino, Guild; 0 for the others)."""
        _check_index("faction", faction, NUM_FACTIONS)
        return self.state.storage[faction]

    @property
    def pool(self) -> int:
        """The active player's spice pool this turn (SPICE-1)."""
        return self.state.pool

    def token(self, region: int) -> Token | None:
        """The property token on `region`, or None."""
        _check_index("region", region, NUM_LOCATIONS - 2, "a Region")
        token = self.state.region_token[region]
        return None if token == NO_ONE else Token(token)

    @property
    def shield_holder(self) -> int:
        """The faction holding the Shield (KANLY-4), or NO_ONE while it is in the supply."""
        return self.state.shield_holder

    @property
    def snooper_holder(self) -> int:
        """The faction holding the Snooper (KANLY-4), or NO_ONE while it is in the supply."""
        return self.state.snooper_holder

    def has_thumper(self, faction: int) -> bool:
        """Whether `faction` holds a Thumper (KANLY-5; at most one each)."""
        _check_index("faction", faction, NUM_FACTIONS)
        return self.state.thumpers[faction] > 0

    @property
    def thumper_supply(self) -> int:
        """The Thumpers left in the common supply (COMP-2: four in all)."""
        return self.state.thumper_supply

    def token_supply(self, token: int) -> int:
        """The property tokens of type `token` (a Token) left in the common supply (COMP-2)."""
        _check_index("token", token, NUM_TOKEN_TYPES, "a Token")
        return self.state.token_supply[int(token)]

    @property
    def seat_factions(self) -> list[int]:
        """The faction of each seat, seat 0 first (NO_ONE for a seat yet to draft, SETUP-5)."""
        return list(self.state.seat_faction)

    @property
    def first_seat(self) -> int:
        """The seat of the first player (SETUP-5)."""
        return self.state.first_seat

    def prediction(self, seat: int) -> int:
        """The Bene Gesserit's prediction (BG-0) as `seat` knows it: the predicted faction, or
        NO_ONE before it is made.  Only the Bene Gesserit's seat may know it; asking for
        another seat is a ValueError (the prediction is hidden from it)."""
        s = self.state
        _check_index("seat", seat, s.num_players)
        if s.seat_faction[seat] != Faction.BENE_GESSERIT:
            raise ValueError(
                f"seat {seat} is not the Bene Gesserit: the prediction is hidden from it (BG-0)"
            )
        return s.bg_prediction

    @property
    def last_battle(self) -> BattleResult | None:
        """The last resolved battle (both bids revealed), or None before any battle."""
        battle = self.state.last_battle
        return None if battle is None else BattleResult.from_record(battle)

    # --- running to a step ---------------------------------------------------------------

    def advance(self) -> None:
        """Run on to the next real decision (after `run_until` stopped between steps)."""
        advance(self.state)

    def run_until(self, phase: Phase, policy: Policy | None = None) -> Game:
        """Run the engine until it next enters `phase`, and stop there: the previous step is
        complete and `phase`'s step has not begun (no decision is pending).

        `phase` is a `Phase` (e.g. `Phase.END_TURN`: after the storm step, before the victory
        check and the next player's turn).  Decisions met on the way are taken by `policy`: a
        callable `policy(game) -> option` or an object with `act(game, seat) -> option` (the
        harness's policies).  Without a policy, the first decision with a real choice raises
        DecisionPendingError (forced ones are applied if skip_forced_decisions is on).
        Raises PhaseNotReachedError if the game ends first (unless `phase` is GAME_OVER), and
        IllegalOptionError if the policy returns an illegal option.  Returns the game.
        Continue with `advance()`, `run_until` again, or `apply` once a decision is pending."""
        target = Phase(phase)
        s = self.state
        skip = s.config.skip_forced_decisions
        while True:
            if s.phase == _GAME_OVER:
                if target == Phase.GAME_OVER:
                    return self
                raise PhaseNotReachedError(
                    f"the game ended (winners {s.winners}) before reaching {target.name}"
                )
            before = s.phase
            if s.pending_kind == NO_ONE:
                RUNNERS[s.phase](s)
            else:
                options = legal_options(s)
                if skip and len(options) == 1:
                    _apply_unchecked(s, options[0], forced=True)
                else:
                    _apply_unchecked(s, self._ask(policy, target), forced=False)
            # Stop on entering `phase`, not on the re-runs of a step's own loop (land, move...).
            if s.phase == target and s.pending_kind == NO_ONE and s.phase != before:
                return self

    def _ask(self, policy: Policy | None, target: Phase) -> int:
        s = self.state
        pending = self.pending
        assert pending is not None
        if policy is None:
            who = Faction(pending.faction).name if pending.faction >= 0 else "no faction"
            shown = list(pending.options[:12])
            more = " ..." if len(pending.options) > 12 else ""
            raise DecisionPendingError(
                f"decision {pending.kind.name} of seat {pending.seat} ({who}) is pending before "
                f"{target.name} is reached; pass a policy to take it (options: {shown}{more})"
            )
        act = getattr(policy, "act", None)
        option = act(self, pending.seat) if act is not None else policy(self)  # type: ignore[operator]
        check_option(s, option)
        return int(option)

    # --- acting --------------------------------------------------------------------------

    def apply(self, option: object) -> None:
        apply_option(self.state, option)

    def clone(self) -> Game:
        return Game.from_state(self.state.clone())

    # --- snapshots -----------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        s = self.state
        if s.pending_kind == NO_ONE and s.phase != _GAME_OVER:
            raise ValueError(
                f"the game is stopped before step {Phase(s.phase).name} (run_until) with no "
                "decision pending; call game.advance() before taking a snapshot"
            )
        return s.to_dict()

    def to_json(self) -> str:
        return json.dumps(self.snapshot(), separators=(",", ":"))

    @classmethod
    def restore(cls, snapshot: Any) -> Game:
        return cls.from_state(GameState.from_dict(snapshot))

    @classmethod
    def from_json(cls, text: object) -> Game:
        """Restore from snapshot JSON text (str, bytes or bytearray): anything else, malformed
        text, duplicate keys or nesting too deep for a snapshot are a SnapshotError like any
        impossible field."""
        from .validate import parse_snapshot_json

        return cls.restore(parse_snapshot_json(text))

    @classmethod
    def replay(cls, config: GameConfig, seed: SupportsIndex, options: Iterable[int]) -> Game:
        """Replay a game from its configuration, seed and the chosen (non-forced) options."""
        game = cls(config, seed)
        for option in options:
            game.apply(option)
        return game

    def chosen_options(self) -> list[int]:
        """The options chosen by players so far (forced ones excluded), for `replay`."""
        return [row.option for row in self.state.history[1:] if not row.forced]
