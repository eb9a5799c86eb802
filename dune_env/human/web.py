"""`dune-play --web`: the game in the browser, served on 127.0.0.1 only (stdlib http.server).

The page draws the position with the replay viewer's code (board.js) and shows only what your
seat may see; your options are buttons.  The server keeps the one game; the page asks it for the
position (GET /api/state) and sends your choices (POST /api/act, /api/undo, /api/new,
/api/load; GET /api/save downloads the game in progress).
"""

from __future__ import annotations

import json
import threading
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..engine.decisions import DecisionKind
from ..environment.action_table import KIND_OFFSET
from ..replay.frames import meta
from ..replay.html import asset, embed_json
from ..replay.record import ReplayRecord
from . import guide
from .session import PlayError, PlaySession

HOST = "127.0.0.1"
_MAX_BODY = 5_000_000


def page_html(session: PlaySession) -> str:
    page = asset("play.html")
    for key, value in (
        ("%%CSS%%", asset("viewer.css")),
        ("%%BOARD_JS%%", asset("board.js")),
        ("%%PLAY_JS%%", asset("play.js")),
        ("%%META%%", embed_json(session_meta(session))),
    ):
        page = page.replace(key, value)
    return page


def session_meta(session: PlaySession) -> dict[str, Any]:
    labels = tuple("you" if p is None else p for p in session.seat_policies)
    record = ReplayRecord(
        config=session.config.to_dict(),
        options=(),
        seed=session.seed,
        policies=labels,
        title=f"Dune, the Dice Game: you are seat {session.you}",
    )
    data = meta(record, session.game)
    data["you"] = session.you
    data["howToPlay"] = guide.HOW_TO_PLAY
    return data


class PlayServer:
    """The session behind a lock, and the HTTP server bound to 127.0.0.1."""

    def __init__(self, session: PlaySession, port: int = 0) -> None:
        self.session = session
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer((HOST, port), self._handler())
        self.port = self.httpd.server_address[1]
        self.url = f"http://{HOST}:{self.port}/"

    def state(self) -> dict[str, Any]:
        session = self.session
        session.play_bots()
        return {
            "frame": session.frame(),
            "events": session.events(),
            "names": {str(a): name for a, name in session.options()},
            "yourTurn": session.your_turn,
            "over": session.over,
            "seed": session.seed,
            "guide": guide.page_guide(
                session.game,
                session.you,
                [a for a, _ in session.options()],
                KIND_OFFSET[DecisionKind.FIX_DICE],
            ),
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # quiet: the terminal is not a log

            def _send(
                self,
                status: int,
                body: bytes,
                content_type: str,
                extra: dict[str, str] | None = None,
            ) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                for key, value in (extra or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

            def _json(self, status: int, data: Any, extra: dict[str, str] | None = None) -> None:
                self._send(status, json.dumps(data).encode(), "application/json", extra)

            def _local(self) -> bool:
                # Refuse other Host names (DNS rebinding): the page is for this machine only.
                host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
                if host not in (HOST, "localhost"):
                    self._json(HTTPStatus.FORBIDDEN, {"error": "only http://127.0.0.1 is served"})
                    return False
                return True

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                if not self._local():
                    return
                with server.lock:
                    if self.path == "/":
                        body = page_html(server.session).encode()
                        self._send(HTTPStatus.OK, body, "text/html; charset=utf-8")
                    elif self.path == "/api/state":
                        self._json(HTTPStatus.OK, server.state())
                    elif self.path == "/api/save":
                        server.session.play_bots()  # save at your decision, as the page shows
                        data = {
                            "format": "dune-env-play",
                            "version": 1,
                            "you": server.session.you,
                            "seat_policies": server.session.seat_policies,
                            "seed": server.session.seed,
                            "snapshot": server.session.game.snapshot(),
                        }
                        self._json(
                            HTTPStatus.OK,
                            data,
                            {"Content-Disposition": 'attachment; filename="dune-game.json"'},
                        )
                    else:
                        self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {self.path}"})

            def do_POST(self) -> None:  # noqa: N802
                if not self._local():
                    return
                if self.headers.get("Content-Type", "").split(";")[0] != "application/json":
                    self._json(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {"error": "send JSON"})
                    return
                length = int(self.headers.get("Content-Length") or 0)
                if length > _MAX_BODY:
                    self._json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"error": "too large"})
                    return
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    self._json(HTTPStatus.BAD_REQUEST, {"error": "the request is not JSON"})
                    return
                with server.lock:
                    session = server.session
                    try:
                        if self.path == "/api/act":
                            action = body.get("action") if isinstance(body, dict) else None
                            if isinstance(action, bool) or not isinstance(action, int):
                                raise PlayError(f"action must be an action id, not {action!r}")
                            session.choose(action)
                        elif self.path == "/api/undo":
                            session.undo()
                        elif self.path == "/api/new":
                            server.session = PlaySession(
                                session.num_players,
                                session.you,
                                [p for p in session.seat_policies if p is not None],
                                None,
                            )
                        elif self.path == "/api/load":
                            session.load_data(body)
                        else:
                            self._json(HTTPStatus.NOT_FOUND, {"error": f"no action {self.path}"})
                            return
                    except PlayError as exc:
                        self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
                        return
                    self._json(HTTPStatus.OK, server.state())

        return Handler

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def start_in_thread(self) -> threading.Thread:
        thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def serve(session: PlaySession, port: int = 8765, open_browser: bool = True) -> int:
    try:
        server = PlayServer(session, port)
    except OSError as exc:
        print(f"dune-play: cannot listen on {HOST}:{port}: {exc.strerror or exc} (try --port)")
        return 2
    print(f"Playing on {server.url} (seed {session.seed}); Ctrl+C to stop.")
    if open_browser:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nStopped.")
    finally:
        server.httpd.server_close()
    return 0
