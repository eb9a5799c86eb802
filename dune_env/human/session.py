"""One human seat against bot seats: the game, the bots, undo, save and load.

The terminal and the web front ends both drive a `PlaySession`; it shows the human only what
their seat may see (the public board and their own secrets, read from their `dune_v1`
observation) and tells the game as a story: the public event log with, in their places, the
notices of what the engine decided for the human (`guide.row_notices`: a forced bid is said
before the battle's reveal, not after it).  The engine applies a forced decision inside
`Game.apply`; where it did, among the events, is found by replaying that step on a copy that
stops at every decision (`_event_marks`).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from ..engine import Game, GameConfig
from ..engine.decisions import DecisionKind
from ..environment.action_table import action_of, option_of
from ..environment.observer import Observer
from ..replay.frames import board, seat_knowledge
from . import guide
from .situation import decision_context, option_label, shown_options
from .story import StoryLine

SAVE_FORMAT = "dune-env-play"
SAVE_VERSION = 1


class _Note(NamedTuple):
    """A notice of what the engine did for you: its position among the events (it is told
    before the event there), its text, and the history row of the decision it is about."""

    position: int
    text: str
    row: int


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
        self._undo: list[tuple[Game, int]] = []  # the game before each choice, notes kept
        self._notes: list[_Note] = []
        self._seen_events = 0  # the story read so far (`new_story`)
        self._seen_notes = 0
        self._notes_at_choice = 0  # the notes before your last choice
        self._events_at_choice = 0  # the events before your last choice

    # --- reading -------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.game.terminal

    @property
    def your_turn(self) -> bool:
        return not self.over and self.game.state.pending_seat == self.you

    def options(self) -> list[tuple[int, str]]:
        """Your options as (action-table id, name with what it means here), in engine order;
        [] if not your turn.  Every legal option but the reorganising swaps that change
        nothing (`situation.shown_options`)."""
        if not self.your_turn:
            return []
        kind = DecisionKind(self.game.state.pending_kind)
        return [(action_of(kind, o), option_label(self.game, o)) for o in shown_options(self.game)]

    def context(self) -> list[str]:
        """What the position means for your pending decision (`situation.decision_context`)."""
        if not self.your_turn:
            return []
        known = self.your_knowledge() or {}
        return decision_context(self.game, known.get("bid"))

    def decision_name(self) -> str:
        state = self.game.state
        return DecisionKind(state.pending_kind).name if state.pending_kind >= 0 else ""

    def _story(self, events_from: int, notes_from: int) -> list[StoryLine]:
        events = self.game.state.events
        notes = self._notes[notes_from:]
        lines = []
        n = 0
        for position in range(events_from, len(events)):
            while n < len(notes) and notes[n].position <= position:
                lines.append(StoryLine(notes[n].text))
                n += 1
            lines.append(StoryLine.of_event(events[position]))
        lines += [StoryLine(note.text) for note in notes[n:]]
        return lines

    def new_story(self) -> list[StoryLine]:
        """The story since the last call: the public events (the bots' moves, the dice, your
        own moves) and, in their places, the notices of what the engine did for you."""
        lines = self._story(self._seen_events, self._seen_notes)
        self._seen_events = len(self.game.state.events)
        self._seen_notes = len(self._notes)
        return lines

    def story(self) -> list[StoryLine]:
        """The whole story of the game so far (as `new_story` tells it)."""
        return self._story(0, 0)

    def story_parts(self) -> tuple[list[StoryLine], list[StoryLine]]:
        """The whole story in two parts: before your last decision, and since it."""
        lines = self.story()
        split = self._events_at_choice + self._notes_at_choice
        return lines[:split], lines[split:]

    def notices(self) -> list[str]:
        """What the engine did for you on the way to your pending decision, and why: the
        notes made since your last choice that no other seat's decision has followed (a note
        of your last turn belongs to it, not to this one: the story keeps it in its place).
        None once the game is over."""
        if self.over:
            return []
        history = self.game.state.history
        return [
            note.text
            for note in self._notes[self._notes_at_choice :]
            if all(row.seat == self.you for row in history[note.row + 1 :])
        ]

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
        """Let the bots act until it is your turn or the game is over.  A decision of yours
        that leaves you one option worth offering (`situation.shown_options`: a reorganising
        whose only swap changes nothing) is played for you, with a note, as the engine plays
        a forced decision."""
        from ..match import play

        while True:
            play(self.game, self.bots, until=self.you, step=self._apply)
            if not self.your_turn:
                return
            shown = shown_options(self.game)
            if len(shown) != 1:
                return
            kind = DecisionKind(self.game.state.pending_kind)
            state = self.game.state
            notice = guide.lone_notice(kind, shown[0])
            self._notes.append(_Note(len(state.events), notice, len(state.history)))
            self._apply(self.game, shown[0])

    def choose(self, action_id: int) -> None:
        """Play your option `action_id` (an action-table id from `options()`), then the bots."""
        legal = dict(self.options())
        if not self.your_turn:
            raise PlayError("it is not your turn")
        if action_id not in legal:
            raise PlayError(
                f"{action_id} is not one of your legal options ({', '.join(map(str, legal))})"
            )
        self._undo.append((self.game.clone(), len(self._notes)))
        self._notes_at_choice = len(self._notes)
        self._events_at_choice = len(self.game.state.events)
        self._apply(self.game, option_of(self.game.state.pending_kind, action_id))
        self.play_bots()

    def undo(self) -> None:
        """Take back your last decision (and the bots' moves after it) - unless dice were
        rolled since: chance is counter-based (the same seed and position give the same
        faces), so taking back a roll would show you the dice to come."""
        if not self._undo:
            raise PlayError("nothing to undo: you have not decided anything yet")
        before, notes = self._undo[-1]
        rows = self.game.state.history[len(before.state.history) :]
        if any(row.chance for row in rows):
            raise PlayError(
                "cannot undo past a roll: the dice are known (taking it back would show you "
                "the dice to come)"
            )
        self._undo.pop()
        self.game = before
        del self._notes[notes:]
        self._seen_events = min(self._seen_events, len(self.game.state.events))
        self._seen_notes = min(self._seen_notes, notes)
        self._notes_at_choice = notes
        self._events_at_choice = len(self.game.state.events)

    def _apply(self, game: Game, option: int) -> None:
        """Apply a decision (yours or a bot's) and note what the engine decided for you on the
        way, each notice at its place among the events."""
        before = game.clone()
        first_row = len(game.state.history)
        game.apply(option)
        history = game.state.history
        told = {
            row: guide.row_notices(game, self.you, row)
            for row in range(first_row, len(history))
            if history[row].seat == self.you
        }
        told = {row: notes for row, notes in told.items() if notes[0] or notes[1]}
        if not told:
            return
        marks = _event_marks(before, option, game) + [len(game.state.events)]
        for row, (at_decision, after_first_event) in sorted(told.items()):
            step = row - first_row
            self._notes += [_Note(marks[step], text, row) for text in at_decision]
            after = min(marks[step] + 1, marks[step + 1])  # (a TARGET event names the target)
            self._notes += [_Note(after, text, row) for text in after_first_event]

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
        self._notes.clear()
        self._seen_events = self._events_at_choice = len(game.state.events)
        self._seen_notes = self._notes_at_choice = 0
        self.play_bots()


def _event_marks(before: Game, option: int, after: Game) -> list[int]:
    """Where each decision of the step from `before` (option `option`) to `after` was made
    among the events: the number of events then, one per history row the step added (the
    option chosen, then the forced decisions the engine applied).  Found by replaying the step
    on a copy of `before` that stops at every decision; if that copy went another way (it
    cannot: forced decisions draw no chance), every row is placed at the step's end."""
    rows = after.state.history[len(before.state.history) :]
    shadow = before.clone()
    config = shadow.state.config
    shadow.state.config = GameConfig.from_dict({**config.to_dict(), "skip_forced_decisions": False})
    marks = [len(shadow.state.events)]
    shadow.apply(option)
    for row in rows[1:]:
        options = shadow.legal_options()
        if options != [row.option] or shadow.state.pending_seat != row.seat:
            return [len(after.state.events)] * len(rows)
        marks.append(len(shadow.state.events))
        shadow.apply(row.option)
    return marks
