"""A heuristic's play of every seat on a bare `GameState`: what MCTS simulations run.

`Playout` answers each decision with the style's handlers (`handlers.HANDLERS`, as
`HeuristicPolicy.act` does, without the `Game` wrapper and the copy of the legal options) and
keeps the die tables of a turn over its dice decisions (`dice.fix_dice_in_turn`): the same
choices as the policy's, at a fraction of the cost.  The loop is compiled with the handlers
(mypyc): an MCTS rollout plays about a hundred decisions, and run by the interpreter the loop
around the handlers' and the engine's calls was a tenth of the rollout's time.
"""

from __future__ import annotations

from typing import Final

from ...engine import GameState, Phase
from ...engine.decisions import DecisionKind
from ...engine.game import apply_legal, legal_options
from .dice import fix_dice_in_turn
from .handlers import Handler
from .style import Style

_FIX_DICE: Final = int(DecisionKind.FIX_DICE)
_GAME_OVER: Final = int(Phase.GAME_OVER)


class Playout:
    """Plays `style` with `handlers` (indexed by decision kind) for every seat of one game.
    With `dice_in_turn` the FIX_DICE decisions are answered by `dice.fix_dice_in_turn` (the
    choices of `dice.fix_dice`, which must then be the FIX_DICE handler), keeping the die
    tables of the turn: call `new_game` before playing another game (or another copy of the
    same position), as the tables belong to one game's turn."""

    def __init__(self, style: Style, handlers: tuple[Handler, ...], dice_in_turn: bool) -> None:
        self.style = style
        self.handlers = handlers
        self.dice_in_turn = dice_in_turn
        self.turn = -1  # the turn (round, active seat) whose die tables `tables` holds
        self.tables: dict[int, list[float]] = {}

    def new_game(self) -> None:
        """Forget the die tables kept (they belong to the last game's turn)."""
        self.turn = -1
        self.tables = {}

    def decide(self, s: GameState) -> int:
        """The option the style chooses at `s`'s pending decision (the game is not over)."""
        options = legal_options(s)
        if len(options) == 1:
            return options[0]
        kind = s.pending_kind
        if kind == _FIX_DICE and self.dice_in_turn:
            # Dice are fixed only in Phase.ROLL, entered only at a turn's start, so
            # (round, active seat) names one run of dice decisions of this game.
            turn = s.round * 8 + s.active_seat
            if turn != self.turn:
                self.turn = turn
                self.tables = {}
            return fix_dice_in_turn(self.style, s, s.pending_seat, options, self.tables)
        return self.handlers[kind](self.style, s, s.pending_seat, options)

    def play_out(self, s: GameState, last_round: int, limit: int) -> bool:
        """Play from `s` until the game ends (True), or until the first decision after round
        `last_round` or after `limit` decisions (when `limit` > 0) (False)."""
        steps = 0
        while s.phase != _GAME_OVER:
            if (limit and steps >= limit) or s.round > last_round:
                return False
            apply_legal(s, self.decide(s))
            steps += 1
        return True
