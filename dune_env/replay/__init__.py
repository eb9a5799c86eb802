"""Replays: a recorded game as one self-contained HTML page (`dune-replay`).

    from dune_env.replay import ReplayRecord, write_replay_html, play_policies
    write_replay_html(play_policies(["aggressive", "economic", "random"], seed=3), "game.html")
    write_replay_html(game, "game.html", seed=3)           # a Game and the seed it was made with
    write_replay_html(ReplayRecord.load("game.json"), "game.html")  # replay file or snapshot

See docs/replay.md.
"""

from .frames import build_frames
from .html import replay_html, write_replay_html
from .record import ReplayError, ReplayRecord, benchmark_record, play_policies

__all__ = [
    "ReplayError",
    "ReplayRecord",
    "benchmark_record",
    "build_frames",
    "play_policies",
    "replay_html",
    "write_replay_html",
]
