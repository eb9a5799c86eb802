"""Worker processes that can be killed: the benchmark's guard against misbehaving policies.

Every game is played in a worker process (also with one worker).  A worker keeps a small shared
status, [deciding seat, decision number, time.monotonic() when that seat was asked], which the
parent watches:

- a seat that thinks longer than the move timeout loses the game ("timeout"): its worker is
  killed and replaced (a game's set-up, where policies are loaded, has at least SETUP_TIMEOUT);
- a worker that dies (os._exit, a signal, a crash in native code) loses its game ("crash") and
  is replaced;
- a policy's SystemExit or KeyboardInterrupt is caught in the worker ("exit"); workers ignore
  SIGINT, so the user's Ctrl-C reaches only the parent, which stops every worker at once;
- what a policy prints (stdout and stderr, also C-level writes to the file descriptors) goes to
  the run's POLICY_OUTPUT_FILE, not to the benchmark's own output: at most POLICY_OUTPUT_CAP
  bytes are kept, the rest is dropped (a line says so);
- a worker dies with its parent, even one killed with SIGKILL (which no cleanup code sees): on
  Linux the kernel sends it SIGKILL (PR_SET_PDEATHSIG), elsewhere a thread in the worker sees
  it re-parented within a second and kills it.  A hung or memory-hungry policy is never left
  running with nobody to stop it.

A worker sends back each game's decisions as JSON bytes (replayed.py), read with a size bound;
the benchmark replays them itself.  Policies whose code is not the project's play in processes
the worker starts for them (hosts.py), which die with it.

Games are independent and seeded, so which worker plays which game changes nothing.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from ...game_log import NotReplayed
from ...match import DEFAULT_MAX_DECISIONS, GameSpec
from .hosts import one_torch_thread
from .replayed import MAX_MESSAGE_BYTES, decode_played, encode_played
from .runner import safe_play
from .types import MAX_DECISIONS_CAP, GameFailure, Played

DEFAULT_MOVE_TIMEOUT = 60.0  # seconds per decision: generous for bots, short for a hang
# Seconds a game's set-up may take (policies' processes started, their modules imported, models
# read): not a move, so not held to a short --move-timeout.
SETUP_TIMEOUT = 60.0
_POLL = 0.5  # longest sleep between watchdog checks (seconds)
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
POLICY_OUTPUT_FILE = "policy-output.log"
POLICY_OUTPUT_CAP = 10 << 20  # bytes kept of what the policies print, over all workers


def _watch_parent(ppid: int) -> None:
    """Kill this process once its parent is gone (the portable fallback of `_die_with_parent`):
    re-parented, or the parent's sentinel pipe closed (spawn and forkserver workers)."""
    parent = multiprocessing.parent_process()
    while os.getppid() == ppid and (parent is None or parent.is_alive()):
        time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGKILL)  # from a thread: the whole process, at once


def _die_with_parent(parent: int, kernel_signal: bool) -> None:
    """Make this worker die when the process `parent` that started it does, however it ends.
    `kernel_signal`: ask Linux to send SIGKILL at the parent's death, when the worker is its
    direct child forked from its main thread (the kernel's signal follows the forking thread)."""
    ppid = os.getppid()
    if kernel_signal and ppid == parent and sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # no prctl: the thread below still watches
        if os.getppid() != ppid:  # the parent died before the signal was asked for
            os.kill(os.getpid(), signal.SIGKILL)
    threading.Thread(target=_watch_parent, args=(ppid,), daemon=True).start()


def _drain(pipe: int, log: int) -> None:
    """Append what comes through `pipe` to `log` while the log is under the cap (shared by the
    run's workers: its size is checked before each write), then drop it."""
    while chunk := os.read(pipe, 1 << 16):
        room = POLICY_OUTPUT_CAP - os.fstat(log).st_size
        if room > 0:
            os.write(log, chunk[:room])
            if len(chunk) > room:
                os.write(log, b"\n[dune-bench: policy output past %d bytes dropped]\n" % room)


def _capture_output(path: str) -> None:
    """Send this worker's stdout and stderr (file descriptors 1 and 2, so that output from C
    code is caught too) through a pipe drained into the capped log at `path`."""
    log = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0))
    pipe_out, pipe_in = os.pipe()
    for fd in (1, 2):
        os.dup2(pipe_in, fd)
    os.close(pipe_in)
    threading.Thread(target=_drain, args=(pipe_out, log), daemon=True).start()
    # Line-buffered text streams on the new descriptors: nothing waits in a buffer at exit.
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115


def _worker_main(
    conn: Connection,
    status: Any,
    max_decisions: int,
    parent: int,
    kernel_signal: bool,
    output_log: str | None,
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _die_with_parent(parent, kernel_signal)
    if output_log is not None:
        _capture_output(output_log)
    one_torch_thread()
    while True:
        try:
            spec = conn.recv()
        except (EOFError, OSError):
            return
        if spec is None:
            return
        status[2] = time.monotonic()
        status[1] = 0
        status[0] = -1
        _, result = safe_play(spec, max_decisions, status)
        status[0] = -2  # idle
        conn.send_bytes(encode_played(result))  # plain data, never a pickle (replayed.py)


def check_max_decisions(max_decisions: object) -> None:
    """The cap on a game's decisions: an int from 1 to MAX_DECISIONS_CAP, or a ValueError."""
    if (
        isinstance(max_decisions, bool)
        or not isinstance(max_decisions, int)
        or not 1 <= max_decisions <= MAX_DECISIONS_CAP
    ):
        raise ValueError(
            f"max_decisions={max_decisions!r}: give a cap from 1 to {MAX_DECISIONS_CAP:,} "
            f"decisions a game (default {DEFAULT_MAX_DECISIONS:,})"
        )


class _Worker:
    def __init__(self, context: Any, max_decisions: int, output_log: str | None) -> None:
        self.conn, child = context.Pipe()
        self.status = context.RawArray("d", 3)
        self.status[0] = -2
        from_main_thread = threading.current_thread() is threading.main_thread()
        self.process = context.Process(
            target=_worker_main,
            args=(child, self.status, max_decisions, os.getpid(), from_main_thread, output_log),
            daemon=True,
        )
        self.process.start()
        child.close()
        self.spec: GameSpec | None = None

    def start(self, spec: GameSpec) -> None:
        self.spec = spec
        self.status[2] = time.monotonic()  # until the worker takes the game, count from now
        self.status[0] = -1
        self.conn.send(spec)

    def stop(self, kill: bool = False) -> None:
        if self.process.is_alive():
            if kill:
                self.process.kill()
            else:
                try:
                    self.conn.send(None)
                except OSError:
                    pass
                self.process.join(1.0)
                if self.process.is_alive():
                    self.process.kill()
        self.process.join()
        self.conn.close()


def _blame(spec: GameSpec, status: Any) -> tuple[str, str]:
    """(policy, description) of whoever was deciding in a worker's game."""
    seat = int(status[0])
    if 0 <= seat < len(spec.seat_policies):
        policy = spec.seat_policies[seat]
        return policy, f"policy {policy!r} (seat {seat}) at decision {int(status[1]) + 1}"
    return "", "the engine or a policy's loading"


class WorkerPool:
    """`play(specs)` yields (spec, result or failure) as games finish; see the module doc."""

    def __init__(
        self,
        workers: int = 1,
        move_timeout: float = DEFAULT_MOVE_TIMEOUT,
        max_decisions: int = DEFAULT_MAX_DECISIONS,
        context: Any = None,
        output_log: str | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers={workers}: give at least 1")
        if not move_timeout > 0:
            raise ValueError(f"move_timeout={move_timeout}: give a positive number of seconds")
        check_max_decisions(max_decisions)
        self.size = workers
        self.move_timeout = float(move_timeout)
        self.max_decisions = max_decisions
        self._context = context if context is not None else multiprocessing.get_context()
        self._workers: list[_Worker] = []
        self.output_log = output_log  # where the policies' output goes (None: left as is)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        # On an exception (the user's Ctrl-C) stop at once; otherwise let workers exit cleanly.
        self.close(kill=exc[0] is not None)

    def close(self, kill: bool = True) -> None:
        workers, self._workers = self._workers, []
        for worker in workers:
            worker.stop(kill=kill or worker.spec is not None)

    def _new_worker(self) -> _Worker:
        worker = _Worker(self._context, self.max_decisions, self.output_log)
        self._workers.append(worker)
        return worker

    def _replace(self, worker: _Worker) -> None:
        self._workers.remove(worker)
        worker.stop(kill=True)

    def play(self, specs: Sequence[GameSpec]) -> Iterator[Played]:
        queue = list(specs)[::-1]
        while len(self._workers) < min(self.size, len(queue)):
            self._new_worker()
        while queue or any(w.spec is not None for w in self._workers):
            for worker in list(self._workers):
                if worker.spec is None and queue:
                    worker.start(queue.pop())
            busy = [w for w in self._workers if w.spec is not None]
            now = time.monotonic()
            next_deadline = min(w.status[2] + self._allowance(w.status) for w in busy)
            waitables: list[Any] = [w.conn for w in busy] + [w.process.sentinel for w in busy]
            wait(waitables, timeout=max(0.0, min(_POLL, next_deadline - now)))
            finished = [item for item in map(self._check, busy) if item is not None]
            while queue and len(self._workers) < self.size:
                self._new_worker()
            # The free workers start their next games before the finished ones are handed
            # over: the caller's work on them (the replay) overlaps with the games.
            for worker in self._workers:
                if worker.spec is None and queue:
                    worker.start(queue.pop())
            yield from finished

    def _allowance(self, status: Any) -> float:
        """Seconds a worker may spend at what its status says: a seat's decision, the move
        timeout; setting a game up (a policy's process started, its module imported, a model
        read) or the engine's step, at least SETUP_TIMEOUT."""
        return self.move_timeout if status[0] >= 0 else max(self.move_timeout, SETUP_TIMEOUT)

    def _lost(self, worker: _Worker, error: str, policy: str = "", kind: str = "error") -> Played:
        """The worker's game fails with `error`; the worker is replaced."""
        spec = worker.spec
        assert spec is not None
        self._replace(worker)
        return spec, GameFailure.of(spec, error, policy=policy, kind=kind)

    def _unreadable(self, worker: _Worker, what: str) -> Played:
        """A worker whose message cannot be read."""
        assert worker.spec is not None
        return self._lost(
            worker, f"the worker of game {worker.spec.index} sent an unusable result: {what}"
        )

    def _check(self, worker: _Worker) -> Played | None:
        spec = worker.spec
        assert spec is not None
        if worker.conn.poll():
            try:
                data = worker.conn.recv_bytes(MAX_MESSAGE_BYTES)
            except (EOFError, OSError):
                worker.process.join(1.0)  # the worker died (or sent too much): below
                if worker.process.is_alive():
                    return self._unreadable(worker, "a message past the size limit")
            else:
                try:
                    result = decode_played(spec, data)
                except NotReplayed as exc:
                    return self._unreadable(worker, str(exc))
                worker.spec = None
                return spec, result
        if not worker.process.is_alive():
            policy, who = _blame(spec, worker.status)
            worker.process.join()
            code = worker.process.exitcode
            how = f"was killed by signal {-code}" if code and code < 0 else f"exited ({code})"
            error = f"the worker process of game {spec.index} {how} while {who} was deciding"
            return self._lost(worker, error, policy, "crash")
        started = worker.status[2]
        allowance = self._allowance(worker.status)
        if time.monotonic() - started > allowance:
            policy, who = _blame(spec, worker.status)
            limit = f"the move timeout of {allowance:g} s"
            if allowance != self.move_timeout:
                limit = f"{allowance:g} s (a policy's loading is allowed {SETUP_TIMEOUT:g} s)"
            error = f"{who} took longer than {limit} in game {spec.index}; its worker was stopped"
            return self._lost(worker, error, policy, "timeout")
        return None
