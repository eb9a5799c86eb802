"""The web UI's request handling against a hostile client (issue 21, item 3; issue 31, item 8):
bad or missing lengths, bodies that break the JSON parser, other origins and many clients at
once all get an HTTP answer, never a dropped connection or a server that reads without end;
clients that stall do not hold the server's slots."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from dune_env.human import PlaySession
from dune_env.human.web import PlayServer


@pytest.fixture
def server() -> Iterator[PlayServer]:
    play = PlayServer(PlaySession(4, 0, ["random", "random", "random"], seed=2), port=0)
    play.start_in_thread()
    try:
        yield play
    finally:
        play.close()


def _post(
    server: PlayServer,
    path: str,
    body: bytes,
    headers: dict[str, str | None] | None = None,
    close_write: bool = True,
) -> int:
    """Status of a raw POST: headers sent as given (None: left out), so malformed ones too."""
    fields: dict[str, str | None] = {
        "Host": f"127.0.0.1:{server.port}",
        "Content-Type": "application/json",
        "Content-Length": str(len(body)),
        **(headers or {}),
    }
    head = f"POST {path} HTTP/1.1\r\n" + "".join(
        f"{k}: {v}\r\n" for k, v in fields.items() if v is not None
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as sock:
        sock.sendall(head.encode() + b"Connection: close\r\n\r\n" + body)
        if close_write:
            sock.shutdown(socket.SHUT_WR)
        response = b""
        while b"\r\n" not in response:
            chunk = sock.recv(4096)
            if not chunk:
                break
            response += chunk
    assert response.startswith(b"HTTP/"), (
        f"no HTTP answer, the connection was dropped: {response!r}"
    )
    return int(response.split()[1])


@pytest.mark.parametrize(("length", "status"), [("-1", 400), ("abc", 400), (None, 411)])
def test_bad_or_missing_content_length_is_refused(
    server: PlayServer, length: str | None, status: int
) -> None:
    # With -1 the old server read until the client closed: the body is still being sent here.
    assert _post(server, "/api/act", b'{"action": 1}', {"Content-Length": length}, False) == status


def test_body_over_the_cap_is_refused(server: PlayServer) -> None:
    assert _post(server, "/api/load", b"{}", {"Content-Length": "999999999"}, False) == 413


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 1000 + b"]" * 1000,
        b'{"a":' * 1000 + b"1" + b"}" * 1000,
        b'{"action": 1' + b"1" * 5000 + b"}",
    ],
    ids=["deep-list", "deep-object", "5000-digits"],
)
@pytest.mark.parametrize("path", ["/api/act", "/api/load"])
def test_json_the_parser_cannot_take_is_a_400(server: PlayServer, body: bytes, path: str) -> None:
    before = server.session.game.snapshot()
    assert _post(server, path, body) == 400
    assert server.session.game.snapshot() == before


def test_posts_from_another_origin_are_refused(server: PlayServer) -> None:
    first = server.session
    for origin in ("http://evil.example", "null", f"http://127.0.0.1:{server.port + 1}"):
        assert _post(server, "/api/new", b"{}", {"Origin": origin}) == 403
    assert server.session is first
    assert _post(server, "/api/new", b"{}", {"Origin": f"http://127.0.0.1:{server.port}"}) == 200
    assert server.session is not first
    assert _post(server, "/api/new", b"{}", {"Origin": f"http://localhost:{server.port}"}) == 200


def test_a_busy_server_answers_503(server: PlayServer) -> None:
    server.busy_timeout = 0.2
    with server.lock:  # a long request in progress
        assert _post(server, "/api/act", b'{"action": "x"}') == 503


def test_fifty_concurrent_posts_all_get_an_answer(server: PlayServer) -> None:
    statuses: list[int | str] = []
    body = json.dumps({"action": "x"}).encode()

    def client() -> None:
        for _ in range(5):
            try:
                statuses.append(_post(server, "/api/act", body))
            except (OSError, AssertionError) as exc:
                statuses.append(type(exc).__name__)

    threads = [threading.Thread(target=client) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(statuses) == 250
    assert set(statuses) <= {400, 503}, sorted(set(map(str, statuses)))


def _get_state(server: PlayServer, deadline: float) -> int:
    """Status of GET /api/state, retried while the server answers 503, until `deadline`."""
    while True:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            request = f"GET /api/state HTTP/1.0\r\nHost: 127.0.0.1:{server.port}\r\n\r\n"
            sock.sendall(request.encode())
            status = int(sock.recv(64).split()[1])
        if status != 503 or time.monotonic() > deadline:
            return status
        time.sleep(0.25)


def test_stalled_clients_do_not_hold_the_slots(server: PlayServer) -> None:
    """Issue 31, item 8: 70 connections that send part of a request and stall used to hold
    every handler slot, and every other client got 503 for as long as they stayed (> 30 s).
    Each connection now has a few seconds to send its request."""
    stalled = []
    try:
        for _ in range(70):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            sock.sendall(b"POST /api/act HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le")
            stalled.append(sock)
        start = time.monotonic()
        assert _get_state(server, start + 20) == 200
        assert time.monotonic() - start < 15
    finally:
        for sock in stalled:
            sock.close()


def test_a_request_trickling_in_is_cut_off(server: PlayServer) -> None:
    """A byte every second keeps a per-read timeout from firing: the whole request has a
    deadline, after which the connection is closed."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        start = time.monotonic()
        try:
            for byte in b"GET /api/state HTTP/1.0\r\nHost: 127.0.0.1\r\nX-Slow: " + b"x" * 60:
                sock.sendall(bytes([byte]))
                time.sleep(0.5)
        except OSError:  # reset by the server's close: cut off
            pass
        assert time.monotonic() - start < 15
        sock.settimeout(5)
        try:
            assert sock.recv(64) == b""  # closed without an answer to the trickle
        except ConnectionResetError:
            pass


@pytest.mark.parametrize("length", ["9" * 5000, "1" * 30])
def test_a_content_length_of_thousands_of_digits_is_a_413(server: PlayServer, length: str) -> None:
    """int() of a 5,000-digit Content-Length raised ValueError in the server (a traceback and a
    dropped connection): the digits are counted first."""
    assert _post(server, "/api/act", b'{"action": 1}', {"Content-Length": length}, False) == 413
