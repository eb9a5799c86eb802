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
from typing import Any, NamedTuple

from . import steps  # noqa: F401  (registers every runner and decision handler)
from .config import GameConfig, check_seed
from .constants import NO_ONE
from .core import APPLY, LEGAL, RUNNERS, clear_pending
from .decisions import DecisionKind, describe_option
from .events import render
from .state import GameState, Phase
from .steps.setup import begin_setup


class IllegalOptionError(ValueError):
    """An option that is not legal for the pending decision.  The state is left unchanged."""


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
        cache = state.legal_cache = LEGAL[state.pending_kind](state)
    return cache


_GAME_OVER = int(Phase.GAME_OVER)  # (a plain int: enum attribute lookups are slow)


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


def _apply_unchecked(state: GameState, option: int, forced: bool = False) -> None:
    kind = state.pending_kind
    history = state.history
    history[-1] = tuple(history[-1])  # a finished row is frozen: clones share it safely
    history.append([state.pending_seat, kind, option, int(forced)])
    state.decision_count += 1
    clear_pending(state)
    APPLY[kind](state, option)


def apply_option(state: GameState, option: int) -> None:
    """Check `option` against the pending decision's legal options, apply it, and advance."""
    if state.phase == _GAME_OVER:
        raise IllegalOptionError("the game is over: no decision is pending")
    options = legal_options(state)
    if isinstance(option, bool) or not isinstance(option, int) or option not in options:
        kind = DecisionKind(state.pending_kind)
        try:
            bad = f"{option!r} ({describe_option(kind, option)})"
        except (ValueError, TypeError, IndexError, KeyError):
            bad = repr(option)
        legal_text = ", ".join(f"{o}={describe_option(kind, o)}" for o in options)
        raise IllegalOptionError(
            f"option {bad} is not legal for decision {kind.name} of seat {state.pending_seat}; "
            f"legal options: [{legal_text}]"
        )
    _apply_unchecked(state, int(option))
    advance(state)


def apply_legal(state: GameState, option: int) -> None:
    """`apply_option` for a caller that has already checked `option` (an int) against
    `legal_options(state)` of a game that is not over: apply it and advance."""
    _apply_unchecked(state, option)
    advance(state)


def new_state(config: GameConfig, seed: int) -> GameState:
    state = GameState(config, check_seed(seed))
    state.history.append([NO_ONE, NO_ONE, NO_ONE, 0])  # chance before the first decision
    begin_setup(state)
    advance(state)
    return state


class Game:
    """A game of Dune, the Dice Game.  Thin object over a `GameState` and the step modules."""

    __slots__ = ("state",)

    def __init__(self, config: GameConfig | None = None, seed: int = 0, **options: Any) -> None:
        if config is None:
            config = GameConfig.from_dict(options)
        elif options:
            raise TypeError("pass either a GameConfig or keyword options, not both")
        self.state = new_state(config, seed)

    @classmethod
    def from_state(cls, state: GameState) -> Game:
        game = cls.__new__(cls)
        game.state = state
        return game

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

    # --- acting --------------------------------------------------------------------------

    def apply(self, option: int) -> None:
        apply_option(self.state, option)

    def clone(self) -> Game:
        return Game.from_state(self.state.clone())

    # --- snapshots -----------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return self.state.to_dict()

    def to_json(self) -> str:
        return json.dumps(self.snapshot(), separators=(",", ":"))

    @classmethod
    def restore(cls, snapshot: dict[str, Any]) -> Game:
        return cls.from_state(GameState.from_dict(snapshot))

    @classmethod
    def from_json(cls, text: str) -> Game:
        """Restore from snapshot JSON text: malformed text, duplicate keys or nesting too deep
        for a snapshot are a SnapshotError like any impossible field."""
        from .validate import parse_snapshot_json

        return cls.restore(parse_snapshot_json(text))

    @classmethod
    def replay(cls, config: GameConfig, seed: int, options: list[int]) -> Game:
        """Replay a game from its configuration, seed and the chosen (non-forced) options."""
        game = cls(config, seed)
        for option in options:
            game.apply(option)
        return game

    def chosen_options(self) -> list[int]:
        """The options chosen by players so far (forced ones excluded), for `replay`."""
        return [row[2] for row in self.state.history[1:] if not row[3]]
