"""`dune-play --web`: the game in the browser, served on 127.0.0.1 only (stdlib http.server).

The page draws the position with the replay viewer's code (board.js) and shows only what your
seat may see; your options are buttons, with what each means here.  Beside them: what happened
since your last decision (the bots' rolls condensed, what hit you marked), the notices of what
the engine did for you, and the whole log.  The server keeps the one game; the page asks it for
the position (GET /api/state) and sends your choices (POST /api/act, /api/undo, /api/new,
/api/load; GET /api/save downloads the game in progress).  "New game" asks first when a game is
under way.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..engine.decisions import DecisionKind
from ..environment.action_table import action_of
from ..replay.frames import meta
from ..replay.html import SERVED_CSP, asset, board_page, embed_json
from ..replay.record import ReplayRecord
from . import guide
from .session import PlayError, PlaySession
from .story import Teller, ToldLine

HOST = "127.0.0.1"
_MAX_BODY = 5_000_000
_MAX_HANDLERS = 64  # requests handled at once; more get 503 at once, not a thread each
# A client has this long to send its whole request (line, headers, body), and each read or
# write of its connection waits at most this long: a client that stalls, or sends a byte now
# and then, gives its slot back instead of holding it.
_REQUEST_SECONDS = 5.0
_BUSY = (
    b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\n"
    b"Retry-After: 1\r\nConnection: close\r\nContent-Length: 40\r\n\r\n"
    b'{"error": "the server is busy; retry"}  '
)


class _Refused(Exception):
    """A request answered with an error status: (status, message)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _Server(ThreadingHTTPServer):
    """A deep listen queue (many clients connecting at once are queued, not reset) and at most
    `_MAX_HANDLERS` requests at once: the others are answered 503."""

    request_queue_size = 128
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self._slots = threading.BoundedSemaphore(_MAX_HANDLERS)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            try:
                request.settimeout(1.0)
                request.sendall(_BUSY)
                request.setblocking(False)
                while request.recv(65536):  # unread input would turn the close into a reset
                    pass
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that went away or stalled past its time (its socket shut, a write timed out)
        # is not the server's error: no traceback for it.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


def _read_json(rfile: Any, length_header: str | None) -> Any:
    """The request's JSON body; _Refused for a missing, bad or too large length and for JSON
    that Python's parser cannot take (too deep, integers of thousands of digits)."""
    if length_header is None:
        raise _Refused(HTTPStatus.LENGTH_REQUIRED, "send a Content-Length")
    text = length_header.strip()
    if not text.isdigit() or not text.isascii():
        shown = repr(length_header[:40])
        raise _Refused(HTTPStatus.BAD_REQUEST, f"Content-Length {shown} is not a size")
    # Digits counted before int(): thousands of them are past Python's int() limit.
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(_MAX_BODY)) or int(digits) > _MAX_BODY:
        raise _Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the body is over {_MAX_BODY} bytes")
    length = int(digits)
    try:
        body = rfile.read(length)
    except OSError:  # the client stalled past its time (or went away)
        raise _Refused(HTTPStatus.REQUEST_TIMEOUT, "the body did not come in time") from None
    if len(body) != length:
        raise _Refused(HTTPStatus.BAD_REQUEST, "the body is shorter than its Content-Length")
    try:
        return json.loads(body or b"{}")
    except (ValueError, RecursionError):  # JSONDecodeError, UnicodeDecodeError, digit limit
        raise _Refused(
            HTTPStatus.BAD_REQUEST, "the request is not JSON this server takes"
        ) from None


def page_html(session: PlaySession) -> str:
    return board_page(
        "play.html",
        title="Dune, the Dice Game",
        csp=SERVED_CSP,
        css=asset("viewer.css") + asset("play.css"),
        data_id="meta",
        data=embed_json(session_meta(session)),
        page_js=asset("play.js"),
    )


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
    data["howToPlay"] = {
        "title": guide.HOW_TO_PLAY_TITLE,
        "items": list(guide.HOW_TO_PLAY_ITEMS),
        "glossary": [list(entry) for entry in guide.glossary("web")],
        "seatsNote": guide.SEATS_NOTE,
    }
    return data


def told_lines(session: PlaySession) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The story for the page, each line as {text, note, mine, hit} (`hit`: the text as
    "What concerns you" repeats it, saying whose turn it was): the whole log (every event,
    the notices in their places) and what happened since your last decision, condensed
    (`story.Teller`: the bots' rolls in a line each)."""
    before, since = session.story_parts()
    faction = session.game.state.seat_faction[session.you]
    teller = Teller(faction)
    teller.tell(before)

    def rows(lines: list[ToldLine]) -> list[dict[str, Any]]:
        return [{"text": t.text, "note": t.note, "mine": t.mine, "hit": t.hit_text} for t in lines]

    return rows(Teller(faction).tell(before + since, condense=False)), rows(teller.tell(since))


class _PlayHandler(BaseHTTPRequestHandler):
    """The page and its API; a subclass made by PlayServer names the `play_server`."""

    play_server: PlayServer
    timeout = _REQUEST_SECONDS  # each read and write of the connection (socketserver's)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # quiet: the terminal is not a log

    def setup(self) -> None:
        super().setup()
        # The whole request must come within _REQUEST_SECONDS, however slowly it trickles: past
        # that the connection is shut, which ends any read waiting on it.
        self._deadline = threading.Timer(_REQUEST_SECONDS, self._cut)
        self._deadline.daemon = True
        self._deadline.start()

    def _cut(self) -> None:
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _request_read(self) -> None:
        """The request is in: waiting for the game (a POST: up to busy_timeout) is not the
        client's delay."""
        self._deadline.cancel()

    def finish(self) -> None:
        self._deadline.cancel()
        super().finish()

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
        self._request_read()
        if not self._local():
            return
        with self.play_server.lock:
            if self.path == "/":
                body = page_html(self.play_server.session).encode()
                self._send(HTTPStatus.OK, body, "text/html; charset=utf-8")
            elif self.path == "/api/state":
                self._json(HTTPStatus.OK, self.play_server.state())
            elif self.path == "/api/save":
                self.play_server.session.play_bots()  # save at your decision, as the page shows
                data = self.play_server.session.save_data()
                self._json(
                    HTTPStatus.OK,
                    data,
                    {"Content-Disposition": 'attachment; filename="dune-game.json"'},
                )
            else:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {self.path}"})

    def _same_origin(self) -> bool:
        # A browser names the page that sends a POST: only this server's own pages may
        # (a client that is not a browser sends no Origin, and cannot be tricked).
        origin = self.headers.get("Origin")
        allowed = {f"http://{h}:{self.play_server.port}" for h in (HOST, "localhost")}
        if origin is not None and origin not in allowed:
            self._json(HTTPStatus.FORBIDDEN, {"error": f"origin {origin!r} refused"})
            return False
        return True

    def do_POST(self) -> None:  # noqa: N802
        if not (self._local() and self._same_origin()):
            return
        if self.headers.get("Content-Type", "").split(";")[0] != "application/json":
            self._json(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {"error": "send JSON"})
            return
        try:
            body = _read_json(self.rfile, self.headers.get("Content-Length"))
        except _Refused as refused:
            self.close_connection = True  # an unread body must not be read as a request
            self._json(refused.status, {"error": str(refused)}, {"Connection": "close"})
            return
        self._request_read()
        if not self.play_server.lock.acquire(timeout=self.play_server.busy_timeout):
            self._json(
                HTTPStatus.SERVICE_UNAVAILABLE,
                {"error": "the game is busy; retry"},
                {"Retry-After": "1"},
            )
            return
        try:
            self._apply(body)
        finally:
            self.play_server.lock.release()

    def _apply(self, body: Any) -> None:
        session = self.play_server.session
        try:
            if self.path == "/api/act":
                action = body.get("action") if isinstance(body, dict) else None
                if isinstance(action, bool) or not isinstance(action, int):
                    raise PlayError(f"action must be an action id, not {action!r}")
                session.choose(action)
            elif self.path == "/api/undo":
                session.undo()
            elif self.path == "/api/new":
                self.play_server.session = PlaySession(
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
        except (PlayError, RecursionError) as exc:  # RecursionError: absurdly deep data
            self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc) or type(exc).__name__})
            return
        self._json(HTTPStatus.OK, self.play_server.state())


class PlayServer:
    """The session behind a lock, and the HTTP server bound to 127.0.0.1."""

    def __init__(self, session: PlaySession, port: int = 0) -> None:
        self.session = session
        self.lock = threading.Lock()
        self.busy_timeout = 30.0  # seconds a request waits for the game before a 503
        self.httpd = _Server((HOST, port), self._handler())
        self.port = self.httpd.server_address[1]
        self.url = f"http://{HOST}:{self.port}/"

    def state(self) -> dict[str, Any]:
        session = self.session
        session.play_bots()
        log, since = told_lines(session)
        options = session.options()
        return {
            "frame": session.frame(),
            "log": log,
            "since": since,
            "names": {str(a): name for a, name in options},
            "yourTurn": session.your_turn,
            "over": session.over,
            "seed": session.seed,
            "yourFaction": session.game.state.seat_faction[session.you],
            "yourDecisions": sum(
                1
                for row in session.game.state.history
                if row.seat == session.you and not row.forced
            ),
            "guide": guide.page_guide(
                session.game,
                session.you,
                [a for a, _ in options],
                action_of(DecisionKind.FIX_DICE, 0),  # + a subset's mask = its action
                session.notices(),
                session.context(),
            ),
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        """The request handler bound to this server (http.server makes one per request)."""
        server = self

        class Handler(_PlayHandler):
            play_server = server

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
