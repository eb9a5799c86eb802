"""Policies whose code is not the project's play in processes of their own ("hosts").

A benchmark worker process holds the live game it plays.  A policy whose loading runs code that
is not the project's (`registry.runs_foreign_code`: a `module:attr` other than the built-ins, a
`register_policy` factory, a pickle-based model) is never loaded there.  The worker starts a
host process for it (`PolicyHost`: one per policy spec, serving all its seats, kept for the
worker's life) and seats a stand-in (`HostedPolicy`).  At each decision the policy sees, in its
own process:

- an observation policy (a callable `(observation, action_mask) -> action`): its seat's
  observation and action mask, two numpy arrays, nothing else;
- an engine policy (`act(game, seat)`): a copy of the game (pickled), as an engine policy that
  is not built in gets a copy in process.

Its answer comes back as JSON (never a pickle: nothing a host sends is read as code) and is
checked by the worker as if the policy had played in it.  Whatever a policy does in its process
-- walk the stack to its callers' frames (`sys._getframe`), search the garbage collector, patch
the engine or the harness's classes -- it reaches no live game, no result and no other policy:
they are in other processes.  What it can still do is what any program run with the user's
permissions can do (SECURITY.md).

A host is forked from its worker before the worker creates the game it is first needed for.
It closes every file descriptor it inherited but
its own pipe and stdout/stderr (which go to the run's policy-output log), ignores Ctrl-C and
dies with its worker (`workers._die_with_parent`): a host that hangs is stopped with its worker
by the move timeout ("timeout"), one that calls sys.exit loses its game ("exit"), one whose
process dies too ("crash").

`check_loadable(specs)`: the benchmark's own process checks that the line-up loads; foreign
specs are loaded in a short-lived child process, so that their code (what their module runs
on import included) never runs in the benchmark's process either.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from ...engine import Game
from ...engine.shown import shown
from ...policies.specs import PolicyLoadError, UntrustedCheckpointError

MAX_REPLY_BYTES: Final = 1 << 20  # a host's answer: an int, or an error with its traceback
MAX_TEXT: Final = 4_000  # an error message as kept
MAX_TRACEBACK: Final = 32_000


class PolicyProcessDied(BaseException):
    """A hosted policy's process ended while it was asked something (os._exit, a signal): its
    game is lost ("crash").  A BaseException, so that the decision loop does not take it for
    an exception the policy raised."""

    def __init__(self, message: str, policy: str) -> None:
        super().__init__(message)
        self.policy = policy


class HostedPolicyError(RuntimeError):
    """An exception a hosted policy raised in its process (its class is named as the policy's
    was, so that failures read as they did in process); the host's traceback is in a note."""


class HostProtocolError(RuntimeError):
    """A host that answered something that is not an answer (its process is stopped)."""


class _Child:
    """A child process forked to run `target(conn, *args)` and exit; `conn` here is this
    side's end of their pipe.  (os.fork, not multiprocessing.Process: the benchmark's workers
    are daemonic processes, which multiprocessing does not let have children.)"""

    def __init__(self, target: Any, *args: Any) -> None:
        gc.collect()  # no garbage game of an earlier decision is copied into the child
        self.conn, child = multiprocessing.Pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns into its parent's code
            try:
                self.conn.close()
                one_torch_thread()
                target(child, *args)
            finally:
                _end_process()
        child.close()
        self.exitcode: int | None = None

    def poll(self) -> int | None:
        """The exit code (negative: the signal that ended it), or None while it runs."""
        if self.exitcode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.exitcode = os.waitstatus_to_exitcode(status)
        return self.exitcode

    def join(self, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        while self.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.exitcode

    def kill(self) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.join(5.0)

    def how_it_ended(self) -> str:
        code = self.join(1.0)
        return f"was killed by signal {-code}" if code and code < 0 else f"exited ({code})"


def _end_process() -> None:
    """End this (forked) process at once, its output flushed: no exit handler, no unwinding
    into the code it was forked from."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os.kill(os.getpid(), signal.SIGKILL)


def _die_with(parent: int) -> None:
    """End this process when `parent` does: Linux's parent-death signal, and a thread that
    sees this process re-parented (elsewhere, or if the signal was set too late)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PDEATHSIG
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()


# --- the host process -------------------------------------------------------------------------


def _close_inherited(keep: set[int]) -> None:
    """Close every file descriptor but `keep`: the worker's pipe to the benchmark, its log and
    anything else it had open are not the policy's."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 1024))
    for fd in fds:
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _send(conn: Any, message: dict[str, Any]) -> None:
    conn.send_bytes(json.dumps(message, separators=(",", ":")).encode())


def _text(exc: BaseException) -> str:
    try:
        return str(exc)[:MAX_TEXT]
    except Exception:  # an exception whose __str__ fails
        return f"<{type(exc).__name__} that cannot be shown>"


def _error(exc: BaseException) -> dict[str, Any]:
    try:
        trace = traceback.format_exc()[-MAX_TRACEBACK:]
    except Exception:
        trace = ""
    return {"error": {"type": type(exc).__name__, "message": _text(exc), "traceback": trace}}


def _answer(policy: Any, request: tuple[Any, ...], name: str) -> dict[str, Any]:
    """What the policy answers to one request (see `HostedPolicy`)."""
    from ...policies.observation import ObservationPolicy, action_id

    what = request[0]
    if what == "reseed":
        reseed = getattr(policy, "reseed", None)
        if callable(reseed):
            reseed(request[2])
        return {"ok": True}
    if what == "observe":
        assert isinstance(policy, ObservationPolicy)
        return {"action": action_id(name, policy.fn(request[2], request[3]))}
    game = request[2]
    game.state.legal_cache = list(request[3])  # (not pickled) the options of the live game
    option = policy.act(game, request[1])
    if type(option) is int and -(1 << 62) < option < 1 << 62:
        return {"option": option}
    return {"returned": {"type": type(option).__name__[:60], "shown": shown(option)[:200]}}


def one_torch_thread() -> None:
    """If torch is loaded, make it run on this process's one thread.  A forked child must not
    enter the OpenMP thread pool it inherited from a parent that used it: it waits on threads
    that fork did not copy, for ever (a policy host building a network's orthogonal
    initialisation hung this way).  One thread per process is also the fastest use of the
    cores the workers share."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _host_main(conn: Any, spec: str, worker: int) -> None:
    """A host's life: load the policy once per seat asked, answer requests until the worker
    closes the pipe, exit as the policy asks (sys.exit) or with the worker."""
    from ...policies.observation import ObservationPolicy
    from ...policies.registry import load_policy

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the benchmark's to handle
    _die_with(worker)
    _close_inherited({conn.fileno()})
    policies: dict[int, Any] = {}
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            break
        seat = request[1]
        try:
            if request[0] == "load":
                policies[seat] = load_policy(spec, seed=seat)
                one_torch_thread()  # (torch may have been imported by this load)
                kind = "observation" if type(policies[seat]) is ObservationPolicy else "engine"
                reply: dict[str, Any] = {"kind": kind}
            else:
                reply = _answer(policies[seat], request, spec)
        except (SystemExit, KeyboardInterrupt) as exc:
            _send(conn, {"exit": {"type": type(exc).__name__, "message": _text(exc)}})
            break
        except BaseException as exc:  # the policy's own: reported, the host goes on
            reply = _error(exc)
        try:
            _send(conn, reply)
        except (OSError, ValueError):
            break
    _end_process()


# --- the worker's side ------------------------------------------------------------------------

_ERROR_CLASSES: dict[str, type[HostedPolicyError]] = {}


def _raised(name: str, message: str, trace: str) -> HostedPolicyError:
    """The exception a hosted policy raised, re-created under its class name."""
    if not (name.isidentifier() and len(name) <= 60) or len(_ERROR_CLASSES) >= 100:
        name = "HostedPolicyError"
    if name not in _ERROR_CLASSES:
        _ERROR_CLASSES[name] = type(name, (HostedPolicyError,), {})
    exc = _ERROR_CLASSES[name](message)
    exc.add_note(f"raised in the policy's own process:\n{trace}")
    return exc


class _Returned:
    """What a hosted engine policy returned when it was not an int: shown as it was (the
    engine refuses it with its usual IllegalOptionError)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


_RETURNED_CLASSES: dict[str, type[_Returned]] = {}


def _returned(type_name: str, text: str) -> _Returned:
    if not (type_name.isidentifier() and len(type_name) <= 60) or len(_RETURNED_CLASSES) >= 100:
        type_name = "object"
    if type_name not in _RETURNED_CLASSES:
        _RETURNED_CLASSES[type_name] = type(type_name, (_Returned,), {})
    return _RETURNED_CLASSES[type_name](text)


class PolicyHost:
    """One foreign policy spec's process, started by a worker; `ask` sends it a request and
    returns its answer (a JSON object) or raises what the policy raised."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.process = _Child(_host_main, spec, os.getpid())
        self.conn = self.process.conn
        self.dead = False

    def ask(self, request: tuple[Any, ...], what: str) -> dict[str, Any]:
        """Send `request` and read the answer.  The policy's exception is raised as a
        `HostedPolicyError` of its class name, its sys.exit as SystemExit (KeyboardInterrupt),
        its process's death as PolicyProcessDied; `what` says what it was asked."""
        if self.dead:
            raise PolicyProcessDied(f"the process of policy {self.spec!r} has ended", self.spec)
        try:
            self.conn.send(request)
            data = self.conn.recv_bytes(MAX_REPLY_BYTES)
        except (EOFError, OSError):
            raise self._died(what) from None
        try:
            reply = json.loads(data)
            if not isinstance(reply, dict) or len(reply) != 1:
                raise ValueError("not an object of one key")
        except (ValueError, RecursionError) as exc:
            self.stop()
            raise HostProtocolError(
                f"policy {self.spec!r} sent an unreadable answer while {what} ({exc})"
            ) from None
        if "error" in reply:
            error = reply["error"]
            raise _raised(str(error["type"]), str(error["message"]), str(error["traceback"]))
        if "exit" in reply:
            self.stop()
            kind = KeyboardInterrupt if reply["exit"]["type"] == "KeyboardInterrupt" else SystemExit
            raise kind(str(reply["exit"]["message"]))
        return reply

    def _died(self, what: str) -> PolicyProcessDied:
        how = self.process.how_it_ended()
        self.stop()
        return PolicyProcessDied(
            f"the process of policy {self.spec!r} {how} while {what}", self.spec
        )

    def stop(self) -> None:
        self.dead = True
        self.conn.close()
        self.process.kill()


class HostedPolicy:
    """The worker's stand-in for seat `seat`'s copy of a policy that plays in `host`: it asks
    the host and checks the answer as the in-process path would (an observation policy's
    action against the seat's mask, an engine policy's option by the engine)."""

    def __init__(self, host: PolicyHost, seat: int) -> None:
        self.host = host
        self.seat = seat
        self.name = host.spec
        reply = host.ask(("load", seat), "loading")
        self.kind = reply.get("kind")
        if self.kind not in ("observation", "engine"):
            raise HostProtocolError(f"policy {host.spec!r} loaded as {self.kind!r}")
        self._observers: dict[int, Any] = {}

    def reseed(self, seed: int) -> None:
        self.host.ask(("reseed", self.seat, seed), "reseeding")

    def act(self, game: Game, seat: int) -> Any:
        if self.kind == "engine":
            reply = self.host.ask(("act", seat, game, game.legal_options()), "deciding")
            if "option" in reply and type(reply["option"]) is int:
                return reply["option"]
            returned = reply.get("returned")
            if isinstance(returned, dict):
                return _returned(str(returned.get("type")), str(returned.get("shown")))
            raise HostProtocolError(f"policy {self.name!r} answered {shown(reply)}")
        from ...environment.action_table import NUM_ACTIONS
        from ...environment.observer import Observer
        from ...policies.observation import action_option, observation_and_mask

        n = game.state.num_players
        if n not in self._observers:
            self._observers[n] = Observer(n)
        obs, mask = observation_and_mask(game, seat, self._observers[n])
        reply = self.host.ask(("observe", seat, obs, np.asarray(mask)), "deciding")
        action = reply.get("action")
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:
            raise HostProtocolError(f"policy {self.name!r} answered {shown(reply)}")
        return action_option(self.name, game, seat, action, mask)


# --- checking that a line-up loads --------------------------------------------------------------


def _check_main(conn: Any, spec: str) -> None:
    from ...policies.registry import load_policy

    try:
        load_policy(spec, seed=0)
        message: dict[str, Any] = {"ok": True}
    except BaseException as exc:  # noqa: BLE001 - reported to the benchmark, which decides
        message = {"error": {"type": type(exc).__name__, "message": str(exc)[:MAX_TEXT]}}
    try:
        _send(conn, message)
    finally:
        _end_process()


def check_loadable(specs: Sequence[str]) -> None:
    """Load each policy of `specs` once to fail fast with the loader's message: the project's
    own in this process, foreign ones (`runs_foreign_code`) in a child process each, whose
    error is raised here as a PolicyLoadError (UntrustedCheckpointError kept as it is)."""
    from ...policies.registry import load_policy, runs_foreign_code

    for spec in specs:
        if not runs_foreign_code(spec):
            load_policy(spec, seed=0)
            continue
        process = _Child(_check_main, spec)
        try:
            data = process.conn.recv_bytes(MAX_REPLY_BYTES)
        except (EOFError, OSError):
            how = process.how_it_ended()
            raise PolicyLoadError(f"loading policy {spec!r} ended its process: it {how}") from None
        finally:
            process.kill()
            process.conn.close()
        try:
            answer = json.loads(data)
            error = answer["error"] if "error" in answer else None
            if error is not None:
                kind, message = str(error["type"]), str(error["message"])
        except (ValueError, RecursionError, TypeError, KeyError):
            raise PolicyLoadError(f"loading policy {spec!r} gave an unreadable answer") from None
        if error is None:
            continue
        if kind == "UntrustedCheckpointError":
            raise UntrustedCheckpointError(message)
        if kind == "PolicyLoadError":
            raise PolicyLoadError(message)
        raise PolicyLoadError(f"policy {spec!r} could not be loaded: {kind}: {message}")
