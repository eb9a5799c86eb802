"""Training progress on the console: the phase, steps done, steps per second, time left and the
latest evaluation.  On a terminal one line updates in place; in a log file or pipe a plain line
is printed every `every` seconds (and at the start and end of each phase)."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from typing import IO, Any


def duration(seconds: float) -> str:
    """`42 s`, `12 min 5 s`, `3 h 07 min`."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def evaluation_summary(step: int, records: dict[str, dict[str, Any]]) -> str:
    """`evaluation at 20,000 steps: vs random above (win 31.7%, chance 25%), ...` from
    training.evaluate's records; a line-up's paired records read `vs strategist level (paired
    -0.09 [-1.32, +1.08], win 21.2%, chance 25%)`."""
    parts = []
    for opponent, r in records.items():
        chance = r.get("chance_win_rate")
        level = f", chance {chance:.0%}" if chance else ""
        paired = ""
        if r.get("strength_diff_ci95") is not None:
            low, high = r["strength_diff_ci95"]
            paired = f"paired {r['strength_diff']:+.2f} [{low:+.2f}, {high:+.2f}], "
        parts.append(f"vs {opponent} {r['judgement']} ({paired}win {r['win_rate']:.1%}{level})")
    return f"evaluation at {step:,} steps: " + ", ".join(parts)


class Progress:
    """Console progress of a training run, phase after phase."""

    def __init__(
        self,
        stream: IO[str] | None = None,
        every: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = 0.5 if self.tty else every
        self.clock = clock
        self.phase = ""
        self.unit = "steps"
        self.total = self.done = self.first = 0
        self.started = self.shown = 0.0
        self.latest = ""  # the latest evaluation, in short
        self._width = 0  # of the line being updated in place

    def start(self, phase: str, total: int, unit: str = "steps", done: int = 0) -> None:
        """Begin a phase of `total` units, `done` of them already done (a resumed run)."""
        self.phase, self.total, self.unit = phase, total, unit
        self.done = self.first = done
        self.started = self.shown = self.clock()
        self._emit(final=False)

    def update(self, done: int) -> None:
        self.done = done
        if self.clock() - self.shown >= self.every:
            self._emit(final=False)

    def finish(self) -> None:
        self._emit(final=True)

    def evaluated(self, step: int, records: dict[str, dict[str, Any]]) -> None:
        """Print an evaluation's results at once; later progress lines repeat them."""
        self.latest = evaluation_summary(step, records)
        self._newline()
        print(self.latest, file=self.stream, flush=True)

    def line(self, with_evaluation: bool = True) -> str:
        elapsed = self.clock() - self.started
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        text = f"{self.phase}: {self.done:,}/{self.total:,} {self.unit}{share}"
        rate = (self.done - self.first) / elapsed if elapsed > 0 else 0.0
        if rate > 0:
            text += f", {rate:,.1f} {self.unit}/s, {duration(elapsed)} so far"
            if self.done < self.total:
                text += f", {duration((self.total - self.done) / rate)} left"
        if self.latest and with_evaluation:
            text += f"; last {self.latest}"
        return text

    def _emit(self, final: bool) -> None:
        self.shown = self.clock()
        text = self.line()
        if self.tty:
            # One row that \r can rewrite: the evaluation has its own line above.
            columns = shutil.get_terminal_size().columns
            text = self.line(with_evaluation=False)[: max(20, columns - 1)]
            self.stream.write("\r" + text.ljust(self._width))
            self._width = len(text)
            if final:
                self._newline()
            self.stream.flush()
        else:
            print(text, file=self.stream, flush=True)

    def _newline(self) -> None:
        if self.tty and self._width:
            self.stream.write("\n")
            self._width = 0
