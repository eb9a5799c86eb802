"""Where the benchmark's games run: local worker processes, or tasks on a Ray cluster.

Both backends play every game with the same function (`runner.safe_play`) inside a killable
worker process (`workers.WorkerPool`), so a policy that raises, exits, crashes its process or
thinks past the move timeout loses that game in the same way, with the same failure kinds.
Games are independent and seeded, so the results are identical whichever backend, worker or node
played them.

`ray`: each game is one Ray task (one CPU).  The task hands the game to a worker process kept by
the Ray worker (created once per Ray worker process, replaced when a policy hangs or crashes),
which is what lets a hung policy be stopped without losing the Ray worker.  At most `workers`
tasks are in flight; Ray queues them on the cluster's CPUs.  Policies travel as their spec
strings (names, `module:attr`, model paths; the `--trust-checkpoints` opt-in rides along as a
`TrustedSpec`), never as objects: model files and modules must be reachable at the same path on
every node (a shared file system, or an installed package).  The tasks run in the driver's
working directory when that folder exists on their node, so relative paths and `module:attr`
policies from it resolve as they do locally.

A driver killed outright (SIGKILL) cannot cancel its tasks: Ray fails the tasks a dead driver
owns and stops its job's Ray workers; the game's worker process, forked by the Ray worker, dies
with it (workers.py: parent-death signal, or a watching thread).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from ...game_log import NotReplayed
from ...match import DEFAULT_MAX_DECISIONS, GameSpec
from .hosts import one_torch_thread
from .replayed import decode_played, encode_played
from .types import GameFailure, Played

BACKENDS = ("local", "ray")
RAY_INSTALL_HINT = "pip install 'dune-env[ray]' (or pip install 'ray[client]>=2.40,<3')"


class BackendError(ValueError):
    """A backend that cannot be used as asked (Ray missing, cluster unreachable, ...)."""


def check_backend(backend: str, address: str | None) -> None:
    if backend not in BACKENDS:
        raise BackendError(f"backend={backend!r}: give one of {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise BackendError(f"an address ({address!r}) is only used with backend 'ray'")


def open_backend(
    backend: str,
    workers: int | None,
    move_timeout: float,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    address: str | None = None,
    output_log: str | None = None,
) -> Any:
    """A context manager whose `play(specs)` yields (spec, rows or failure) as games finish.
    `workers`: worker processes (local) or most tasks in flight (ray; None: the cluster's CPUs).
    `output_log`: the file that takes what the policies print (local; on Ray it goes to Ray's
    worker logs)."""
    check_backend(backend, address)
    if backend == "ray":
        return RayBackend(workers, move_timeout, max_decisions, address)
    from .workers import WorkerPool

    size = workers or os.cpu_count() or 1
    return WorkerPool(size, move_timeout, max_decisions, output_log=output_log)


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise BackendError(
            f"backend 'ray' needs Ray, which is not installed: {RAY_INSTALL_HINT}"
        ) from exc
    return ray


def check_ray_policies(policies: Sequence[Any]) -> None:
    """Refuse policies that exist only in this process: a Ray worker cannot load them."""
    from ...policies.registry import BUILTIN_POLICIES, SHIPPED_MODELS, policy_names

    registered_here = set(policy_names()) - set(BUILTIN_POLICIES) - set(SHIPPED_MODELS)
    for spec in policies:
        if not isinstance(spec, str):
            raise BackendError(
                f"policy {spec!r} is a Python object; backend 'ray' takes policies as names, "
                "module:attr or model paths that every node can load"
            )
        if spec in registered_here:
            raise BackendError(
                f"policy {spec!r} was registered with register_policy in this process only; "
                "Ray workers cannot see it: give it as module:attr instead"
            )


# One worker pool per Ray worker process (kept between tasks), keyed by its settings, and the
# policy specs that process has loaded.
_RAY_POOLS: dict[tuple[float, int], Any] = {}
_RAY_LOADED: set[str] = set()


def _ray_play(spec: GameSpec, move_timeout: float, max_decisions: int, driver_cwd: str) -> bytes:
    """The Ray task: play one game in this Ray worker's own killable worker process, set up as
    the local driver sets up its workers (policies loaded first, one torch thread, then fork),
    so that the move timeout measures the same thing on both backends.  It returns the game's
    result as the plain bytes a local worker sends (replayed.py), which the driver reads and
    replays itself."""
    import multiprocessing

    from .hosts import check_loadable
    from .workers import WorkerPool

    if os.path.isdir(driver_cwd) and os.getcwd() != driver_cwd:
        os.chdir(driver_cwd)  # relative model paths and module:attr resolve as for the driver
    if driver_cwd not in sys.path:
        sys.path.insert(0, driver_cwd)
    new = sorted(set(spec.seat_policies) - _RAY_LOADED)
    if new:
        for name in new:
            try:  # foreign code in a child process only, as on the driver (hosts.py)
                check_loadable([name])
            except Exception as exc:  # e.g. a model file missing on this node
                error = f"policy {name!r} could not be loaded on Ray node {_node()}: {exc}"
                return encode_played(GameFailure.of(spec, error, policy=name))
            _RAY_LOADED.add(name)
        one_torch_thread()  # before forking, as locally
        for pool in _RAY_POOLS.values():  # fork anew, with the new policies' modules loaded
            pool.close(kill=False)
        _RAY_POOLS.clear()
    key = (move_timeout, max_decisions)
    pool = _RAY_POOLS.get(key)
    if pool is None:
        # fork, as the local backend: the game's worker starts with every module loaded.  It
        # runs only the harness's own Python code and leaves with os._exit, so the Ray
        # worker's threads (not copied by fork) are never needed in it.
        context = multiprocessing.get_context("fork")
        pool = _RAY_POOLS[key] = WorkerPool(1, move_timeout, max_decisions, context=context)
    _, result = next(iter(pool.play([spec])))
    return encode_played(result)


def _node() -> str:
    import socket

    return socket.gethostname()


@contextlib.contextmanager
def ray_session(address: str | None) -> Iterator[None]:
    """Connected to Ray inside the block: to the cluster at `address` ("auto", "ray://...";
    None: RAY_ADDRESS or a Ray started on this machine, else a new local instance; "local": a
    new local instance).  A connection made here is closed at the end (a local instance made
    here stops); inside another session (or after the caller's own `ray.init`) nothing changes."""
    ray = import_ray()
    if ray.is_initialized():
        yield
        return
    _probe(address)
    # ray.init installs its own SIGTERM handler in the driver (exit at once): keep the caller's,
    # so that SIGTERM still stops a benchmark as Ctrl-C does, with its summary written.
    in_main_thread = threading.current_thread() is threading.main_thread()
    sigterm = signal.getsignal(signal.SIGTERM) if in_main_thread else None
    try:
        options: dict[str, Any] = {"log_to_driver": False, "logging_level": "ERROR"}
        if address is None or address == "local":
            options["include_dashboard"] = False
        ray.init(address=address, **options)
    except Exception as exc:  # ConnectionError, RuntimeError, ValueError, ...
        where = address or "a new local instance"
        text = str(exc).strip()
        first = text.splitlines()[0] if text else type(exc).__name__
        raise BackendError(f"cannot connect to the Ray cluster at {where}: {first}") from exc
    if sigterm is not None:
        signal.signal(signal.SIGTERM, sigterm)
    try:
        yield
    finally:
        ray.shutdown()


def _probe(address: str | None, timeout: float = 5.0) -> None:
    """Fail in seconds on a `HOST:PORT` or `ray://HOST:PORT` nobody answers at (Ray itself
    retries a missing head node for minutes)."""
    import socket

    if address is None or address in ("auto", "local"):
        return
    where = address.removeprefix("ray://")
    host, sep, port = where.rpartition(":")
    if not sep or not port.isdigit() or "/" in where:
        return  # not HOST:PORT: Ray reports it
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise BackendError(
            f"cannot connect to the Ray cluster at {address}: nothing answers at {where} "
            f"({reason}); is the head node running (ray start --head) and the port open?"
        ) from exc


class RayBackend:
    """Games as Ray tasks; see the module doc.  Connects on entry (starting a local Ray instance
    when `address` is None or "local" and no cluster is configured) and disconnects on exit,
    cancelling the tasks still running (Ctrl-C)."""

    def __init__(
        self,
        workers: int | None,
        move_timeout: float,
        max_decisions: int = DEFAULT_MAX_DECISIONS,
        address: str | None = None,
    ) -> None:
        if workers is not None and workers < 1:
            raise ValueError(f"workers={workers}: give at least 1")
        from .workers import check_max_decisions

        check_max_decisions(max_decisions)
        self.ray = import_ray()
        self.requested = workers
        self.size = workers or 1
        self.move_timeout = float(move_timeout)
        self.max_decisions = max_decisions
        self.address = address
        self._session: Any = None
        self._remote: Any = None

    def __enter__(self) -> RayBackend:
        self._session = ray_session(self.address)
        self._session.__enter__()
        if self.requested is None:
            self.size = max(1, int(self.ray.cluster_resources().get("CPU", 1)))
        self._remote = self.ray.remote(num_cpus=1, max_retries=0)(_ray_play)
        return self

    def __exit__(self, *exc: object) -> None:
        session, self._session = self._session, None
        if session is not None:
            session.__exit__(*exc)

    def play(self, specs: Sequence[GameSpec]) -> Iterator[Played]:
        ray = self.ray
        queue = list(specs)[::-1]
        running: dict[Any, GameSpec] = {}
        cwd = os.getcwd()
        try:
            while queue or running:
                while queue and len(running) < self.size:
                    spec = queue.pop()
                    ref = self._remote.remote(spec, self.move_timeout, self.max_decisions, cwd)
                    running[ref] = spec
                done, _ = ray.wait(list(running), num_returns=1)
                for ref in done:
                    spec = running.pop(ref)
                    yield self._result(ref, spec)
        finally:
            # Ctrl-C (or a consumer that stops early): stop the games still being played.
            for ref in running:
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # already finished or its worker already gone
                    pass

    def _result(self, ref: Any, spec: GameSpec) -> Played:
        try:
            data = self.ray.get(ref)
        except Exception as exc:  # the Ray worker or its node died: not a policy's fault
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            error = f"the Ray task of game {spec.index} failed ({type(exc).__name__}: {first})"
            return spec, GameFailure.of(spec, error, kind="crash")
        try:  # the driver's own spec: what the task says about the game is not asked
            if not isinstance(data, bytes):
                raise NotReplayed(f"the task returned a {type(data).__name__}, not bytes")
            return spec, decode_played(spec, data)
        except NotReplayed as exc:
            error = f"the Ray task of game {spec.index} sent an unusable result: {exc}"
            return spec, GameFailure.of(spec, error)
