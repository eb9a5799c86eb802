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


# The pages load nothing from outside; the web game also talks to the server it came from.
OFFLINE_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
)
SERVED_CSP = OFFLINE_CSP.replace("default-src 'none';", "default-src 'none'; connect-src 'self';")

_CONTROLS = "<!-- controls: the header's buttons -->\n"
_PANELS = "<!-- panels: the column beside the map -->\n"


def board_page(
    fragment: str, *, title: str, csp: str, css: str, data_id: str, data: str, page_js: str
) -> str:
    """A page around the map (page.html): `fragment` (an asset) gives the header's controls
    and the panels beside the map; `data` is embedded JSON (embed_json) under `data_id`."""
    controls, panels = asset(fragment).split(_CONTROLS, 1)[1].split(_PANELS, 1)
    return fill_template(
        asset("page.html"),
        {
            "CSP": csp,
            "TITLE": html.escape(title),
            "CSS": css,
            "CONTROLS": controls.rstrip("\n"),
            "PANELS": panels.rstrip("\n"),
            "DATA_ID": data_id,
            "DATA": data,
            "BOARD_JS": asset("board.js"),
            "PAGE_JS": page_js,
        },
    )


def replay_html(record: ReplayRecord) -> str:
    """The viewer page of `record`."""
    data = build_frames(record)
    return board_page(
        "replay.html",
        title=data["meta"]["title"],
        csp=OFFLINE_CSP,
        css=asset("viewer.css"),
        data_id="replay-data",
        data=embed_json(data),
        page_js=asset("replay.js"),
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
