"""One self-contained HTML file per replay: inline CSS, JavaScript, SVG and the frames as JSON.

No network access, no server: the page's Content-Security-Policy forbids every external load.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from ..engine import Game
from .frames import build_frames
from .record import ReplayRecord

ASSETS = Path(__file__).resolve().parent / "assets"


def asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def embed_json(data: Any) -> str:
    """JSON safe inside a <script> element ("</" and the HTML comment openers escaped)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_PLACEHOLDER = re.compile(r"%%([A-Z_]+)%%")


def fill_template(template: str, values: dict[str, str]) -> str:
    """`template` with each %%NAME%% replaced by values[NAME], in one pass over the template
    only: a value that spells a placeholder (a game's title, say) is left as it is."""
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


def replay_html(record: ReplayRecord) -> str:
    """The viewer page of `record`."""
    data = build_frames(record)
    return fill_template(
        asset("replay.html"),
        {
            "CSS": asset("viewer.css"),
            "BOARD_JS": asset("board.js"),
            "REPLAY_JS": asset("replay.js"),
            "TITLE": html.escape(data["meta"]["title"]),
            "DATA": embed_json(data),
        },
    )


def write_replay_html(
    source: ReplayRecord | Game | dict[str, Any],
    path: str | Path,
    *,
    seed: int | None = None,
    policies: tuple[str, ...] | list[str] = (),
    title: str = "",
) -> Path:
    """Write the viewer of one game to `path` (one HTML file) and return the path.

    `source` is a `ReplayRecord`, a replay record's dict (`ReplayRecord.to_dict()`: the
    configuration, the seed and the chosen options, which is what a benchmark run needs to
    keep), an engine snapshot dict, or a `Game` together with the `seed` it was created with."""
    if isinstance(source, ReplayRecord):
        record = source
    elif isinstance(source, Game):
        if seed is None:
            record = ReplayRecord.from_snapshot(source.snapshot(), title=title)
        else:
            record = ReplayRecord.from_game(source, seed, policies, title)
    else:
        record = ReplayRecord.from_dict(source)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(replay_html(record), encoding="utf-8")
    return out
