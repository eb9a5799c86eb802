"""`dune-bench --save-replays N`: keep browser replays (docs/replay.md) of some games of a run.

Which games: the first failed game whose failure can be replayed safely (a policy raised or
played an illegal option; hangs, exits and crashes are not played again), then finished games
spread evenly over the run, up to N files in all.  Each game is played again from the run's
schedule by freshly seeded policies (the harness's games depend only on their seeds), written to
`replays/game_NNNNN.html` and linked from report.md.
"""

from __future__ import annotations

from pathlib import Path

from .outputs import write_output
from .types import GameFailure, SeatResult

REPLAYABLE_FAILURES = ("illegal", "exception")  # failures that end by themselves when replayed


def pick_replays(rows: list[SeatResult], failures: list[GameFailure], count: int) -> list[int]:
    """Game indices to keep: the first replayable failure, then finished games evenly spread."""
    chosen: list[int] = []
    failed = sorted(f.game for f in failures if f.kind in REPLAYABLE_FAILURES)
    if failed and count > 0:
        chosen.append(failed[0])
    finished = sorted({r.game for r in rows})
    room = min(count - len(chosen), len(finished))  # (a count past the games picks them all)
    if room > 0 and finished:
        step = len(finished) / room
        picks = {finished[min(len(finished) - 1, int(i * step))] for i in range(room)}
        chosen += sorted(picks)
    return chosen


def save_replays(
    out_dir: str | Path,
    rows: list[SeatResult],
    failures: list[GameFailure],
    count: int,
    trust: bool = False,
) -> list[tuple[int, Path | str]]:
    """Write up to `count` replays into `out_dir/replays/` and list them in report.md.  Returns
    (game, path) per kept game, or (game, reason) where a replay could not be made."""
    from ..replay.html import replay_html
    from ..replay.record import ReplayError, benchmark_record

    directory = Path(out_dir)
    folder = directory / "replays"
    if folder.is_symlink():
        raise OSError(f"{folder} is a symbolic link; refusing to write through it")
    folder.mkdir(exist_ok=True)
    failed = {f.game for f in failures}
    kept: list[tuple[int, Path | str]] = []
    for game in pick_replays(rows, failures, count):
        path = folder / f"game_{game:05d}.html"
        try:
            record = benchmark_record(
                directory, game, trust=trust, failed=game in failed, own_run=True
            )
            write_output(path, replay_html(record))
            kept.append((game, path))
        except (ReplayError, ValueError, OSError) as exc:
            kept.append((game, f"not replayed: {exc}"))
    if kept:
        lines = ["", "## Replays", "", "Open in a browser (one self-contained file each):", ""]
        for game, where in kept:
            note = " (failed game)" if game in failed else ""
            if isinstance(where, Path):
                lines.append(f"- [game {game}]({where.relative_to(directory)}){note}")
            else:
                lines.append(f"- game {game}{note}: {where}")
        report = directory / "report.md"
        text = report.read_text() if report.exists() else ""
        write_output(report, text.rstrip("\n") + "\n" + "\n".join(lines) + "\n")
    return kept
