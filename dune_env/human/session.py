"""One human seat against bot seats: the game, the bots, undo, save and load.

The terminal and the web front ends both drive a `PlaySession`; it shows the human only what
their seat may see (the public board and their own secrets, read from their `dune_v1`
observation) and narrates the bots' moves with the public event log.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..engine import Game, GameConfig
from ..engine.decisions import DecisionKind, describe_option
from ..engine.events import render
from ..environment.action_table import action_of, option_of
from ..environment.observer import Observer
from ..replay.frames import board, seat_knowledge

SAVE_FORMAT = "dune-env-play"
SAVE_VERSION = 1


class PlayError(ValueError):
    """A bad command of the human player (unknown option, nothing to undo, bad save file)."""


class PlaySession:
    """A game in which seat `you` is played by a person and every other seat by a bot."""

    def __init__(
        self,
        num_players: int = 4,
        you: int = 0,
        opponents: Sequence[str] = ("aggressive",),
        seed: int | None = None,
        config: dict[str, Any] | None = None,
    ) -> None:
        from ..match import reseed_seats, seat_policy

        if not 0 <= you < num_players:
            raise PlayError(f"--you {you} is not a seat: use 0..{num_players - 1}")
        if not opponents:
            raise PlayError("give at least one opponent policy")
        self.num_players = num_players
        self.you = you
        self.seed = secrets.randbelow(2**31) if seed is None else seed
        others = [s for s in range(num_players) if s != you]
        self.seat_policies: list[str | None] = [None] * num_players
        for i, seat in enumerate(others):
            self.seat_policies[seat] = opponents[i % len(opponents)]
        self.config = GameConfig.from_dict(
            {**(config or {}), "num_players": num_players, "record_events": True}
        )
        self.bots: list[Any] = [
            seat_policy(name, seat) for seat, name in enumerate(self.seat_policies)
        ]
        reseed_seats(self.bots, self.seed)  # as the benchmark harness seeds its bots
        self.game = Game(self.config, self.seed)
        self.observer = Observer(num_players)
        self._undo: list[Game] = []
        self._seen_events = 0

    # --- reading -------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.game.terminal

    @property
    def your_turn(self) -> bool:
        return not self.over and self.game.state.pending_seat == self.you

    def options(self) -> list[tuple[int, str]]:
        """Your legal options as (action-table id, name), in engine order; [] if not your turn."""
        if not self.your_turn:
            return []
        kind = DecisionKind(self.game.state.pending_kind)
        return [(action_of(kind, o), describe_option(kind, o)) for o in self.game.legal_options()]

    def decision_name(self) -> str:
        state = self.game.state
        return DecisionKind(state.pending_kind).name if state.pending_kind >= 0 else ""

    def new_events(self) -> list[str]:
        """The public events since the last call (the bots' moves, the dice, your own moves)."""
        events = self.game.state.events
        lines = [render(e) for e in events[self._seen_events :]]
        self._seen_events = len(events)
        return lines

    def events(self) -> list[str]:
        return [render(e) for e in self.game.state.events]

    def your_knowledge(self) -> dict[str, Any] | None:
        """What you know beyond the public board (your bid in progress, your prediction)."""
        return seat_knowledge(self.observer, self.game.state, self.you)

    def frame(self) -> dict[str, Any]:
        """The position as the viewer draws it, seen from your seat."""
        state = self.game.state
        frame = board(state)
        frame["ev"] = len(state.events)
        frame["know"] = {str(self.you): self.your_knowledge()}
        if state.pending_kind >= 0:
            frame["decision"] = {
                "seat": state.pending_seat,
                "kind": self.decision_name(),
                "hidden": 0,
                "legal": [a for a, _ in self.options()],
                "chosen": None,
            }
        return frame

    # --- acting --------------------------------------------------------------------------------

    def play_bots(self) -> None:
        """Let the bots act until it is your turn or the game is over."""
        from ..match import play

        play(self.game, self.bots, until=self.you)

    def choose(self, action_id: int) -> None:
        """Play your option `action_id` (an action-table id from `options()`), then the bots."""
        legal = dict(self.options())
        if not self.your_turn:
            raise PlayError("it is not your turn")
        if action_id not in legal:
            raise PlayError(
                f"{action_id} is not one of your legal options ({', '.join(map(str, legal))})"
            )
        self._undo.append(self.game.clone())
        self.game.apply(option_of(self.game.state.pending_kind, action_id))
        self.play_bots()

    def undo(self) -> None:
        """Take back your last decision (and the bots' moves after it)."""
        if not self._undo:
            raise PlayError("nothing to undo: you have not decided anything yet")
        self.game = self._undo.pop()
        self._seen_events = min(self._seen_events, len(self.game.state.events))

    # --- files ---------------------------------------------------------------------------------

    def save_data(self) -> dict[str, Any]:
        """The game in progress as saved: the engine snapshot and the seats' policies."""
        return {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "you": self.you,
            "seat_policies": self.seat_policies,
            "seed": self.seed,
            "snapshot": self.game.snapshot(),
        }

    def save(self, path: str | Path) -> Path:
        """Write the game in progress: the engine snapshot and the seats' policies."""
        data = self.save_data()
        out = Path(path)
        try:
            out.write_text(json.dumps(data, separators=(",", ":")))
        except OSError as exc:
            raise PlayError(f"cannot write {out}: {exc.strerror or exc}") from exc
        return out

    def load(self, path: str | Path) -> None:
        """Continue a game saved with `save` (or any engine snapshot of a game with as many
        players: you keep your seat and the bots theirs)."""
        try:
            data = json.loads(Path(path).read_text())
        except OSError as exc:
            raise PlayError(f"cannot read {path}: {exc.strerror or exc}") from exc
        except json.JSONDecodeError as exc:
            raise PlayError(f"{path} is not JSON: {exc}") from exc
        self.load_data(data)

    def load_data(self, data: Any) -> None:
        """`load` from the file's parsed JSON (a saved game or an engine snapshot)."""
        saved = isinstance(data, dict) and data.get("format") == SAVE_FORMAT
        snapshot: Any = data.get("snapshot") if saved else data
        try:
            game = Game.restore(snapshot)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise PlayError(f"not a saved game or engine snapshot: {exc}") from exc
        if game.config.num_players != self.num_players:
            raise PlayError(
                f"the saved game has {game.config.num_players} players; this session has "
                f"{self.num_players}"
            )
        if saved:
            if data.get("you") != self.you:
                raise PlayError(
                    f"the saved game was played from seat {data.get('you')}; start dune-play "
                    f"with --you {data.get('you')} to continue it"
                )
        if not game.config.record_events:
            game = Game.from_state(game.state)
            game.state.config = GameConfig.from_dict(
                {**game.config.to_dict(), "record_events": True}
            )
        self.game = game
        self._undo.clear()
        self._seen_events = len(game.state.events)
        self.play_bots()
