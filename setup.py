"""Build hook: compiles the engine, the observer and the heuristics with mypyc where it can.

Everything else (metadata, dependencies) is in pyproject.toml.  The modules compiled, the type
check's flags and the C build's settings are in `dune_env/compiled_build.py`; the `.py` files
ship too and stay the reference.

    DUNE_ENV_COMPILE unset   compile; if that fails, install pure Python, say so loudly, and
                             record why (`dune_env.build_info()["compile_failure"]`, and a
                             warning at every import of the pure package)
    DUNE_ENV_COMPILE=0       pure Python only
    DUNE_ENV_COMPILE=1       compile, and fail the build if that fails
    DUNE_ENV_COMPILE_JOBS=N  C compiler processes at once (default: the number of CPUs)

`python setup.py build_ext --inplace` (what `make build` runs) compiles next to the sources;
`pip install .`, `pip install -e .` and `python -m build` compile once, in build_ext.
See docs/performance.md.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
COMPILE_ENV_VAR = "DUNE_ENV_COMPILE"
JOBS_ENV_VAR = "DUNE_ENV_COMPILE_JOBS"


def _load_compiled_helper() -> ModuleType:
    # By path: importing the package would run its import-time checks against this very build.
    path = ROOT / "dune_env" / "compiled_build.py"
    spec = importlib.util.spec_from_file_location("_dune_env_compiled", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _warn(message: str) -> None:
    bar = "*" * 78
    print(f"\n{bar}\n*** dune-env: {message}\n{bar}\n", file=sys.stderr, flush=True)


def _short_reason(exc: BaseException) -> str:
    """The failure in one line: a failed compiler command by its program and exit status (its
    full command line is in the build's output above)."""
    text = str(exc).strip()
    command = re.match(r"Command '\['([^']+)'.*returned non-zero exit status (\d+)", text, re.S)
    if command:
        text = f"{command.group(1)} exited with status {command.group(2)}"
    lines = text.splitlines() or [""]
    return f"{type(exc).__name__}: {lines[0][:300]}"


def _jobs() -> int:
    value = os.environ.get(JOBS_ENV_VAR, "").strip()
    if not value:
        return os.cpu_count() or 1
    if not value.isdigit() or int(value) < 1:
        raise SystemExit(f"{JOBS_ENV_VAR}={value!r}: expected a whole number of at least 1")
    return int(value)


class OptionalMypycBuildExt(build_ext):
    """Generates the mypyc extensions when the command runs (not when setup.py is merely
    evaluated or finalised for metadata, so a pip install type-checks and compiles once), and
    falls back to the pure-Python package unless the build was required."""

    def run(self) -> None:
        helper = _load_compiled_helper()
        mode = os.environ.get(COMPILE_ENV_VAR, "").strip()
        status_dir = self._package_output_dir()
        if mode == "0":  # asked for: nothing to build, nothing to report (the Makefile's installs)
            self.extensions = []
            self.distribution.ext_modules = []
            return
        try:
            self._compile(helper)
        except (Exception, SystemExit) as exc:  # mypy/mypyc exit with SystemExit on errors
            if mode == "1":
                raise
            self._remove_partial_outputs()
            reason = _short_reason(exc)
            helper.write_build_status(status_dir, compiled=False, reason=reason)
            _warn(
                f"compiling the engine failed ({reason}); installed the PURE-PYTHON package, "
                f"3-5x slower.  Set {COMPILE_ENV_VAR}=1 to make this an error and see why; "
                "docs/performance.md."
            )
        else:
            helper.write_build_status(status_dir, compiled=True, reason="")

    def _package_output_dir(self) -> Path:
        in_place = self.inplace or getattr(self, "editable_mode", False)
        return ROOT / "dune_env" if in_place else Path(self.build_lib) / "dune_env"

    def _compile(self, helper: ModuleType) -> None:
        self.extensions = self._mypyc_extensions(helper)
        self.distribution.ext_modules = self.extensions
        # setuptools prepares each extension in finalize_options; these were made after it.
        self._prepare_extensions()
        super().run()

    def _prepare_extensions(self) -> None:
        self.check_extensions_list(self.extensions)
        for ext in self.extensions:
            ext._full_name = self.get_ext_fullname(ext.name)
            self.ext_map[ext._full_name] = ext
            ext._links_to_dynamic = False
            ext._needs_stub = False
            ext._file_name = self.get_ext_filename(ext._full_name)

    def _remove_partial_outputs(self) -> None:
        # No half-built set of modules next to the sources or in a wheel.
        for ext in self.extensions:
            filename = self.get_ext_filename(self.get_ext_fullname(ext.name))
            Path(self.build_lib, filename).unlink(missing_ok=True)
            if self.inplace or getattr(self, "editable_mode", False):
                Path(ROOT, filename).unlink(missing_ok=True)
        self.extensions = []
        self.distribution.ext_modules = []

    def build_extension(self, ext: Any) -> None:
        # distutils compiles one extension's C files one after another; mypyc's multi-file
        # output is a file per module, so compile them in parallel (gcc runs as subprocesses).
        jobs = _jobs()
        compile_serially = self.compiler.compile

        def compile_in_parallel(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                batches = pool.map(lambda s: compile_serially([s], *args, **kwargs), sources)
                return [obj for batch in batches for obj in batch]

        self.compiler.compile = compile_in_parallel
        try:
            super().build_extension(ext)
        finally:
            del self.compiler.compile

    def _mypyc_extensions(self, helper: ModuleType) -> list[Extension]:
        import mypy.version  # the compiler is part of mypy

        wanted = helper.MYPYC_REQUIREMENT.split("==")[1]
        if mypy.version.__version__ != wanted:
            raise RuntimeError(
                f"the compiled build is made with {helper.MYPYC_REQUIREMENT}, found mypy "
                f"{mypy.version.__version__} (pip install '{helper.MYPYC_REQUIREMENT}')"
            )
        from mypyc.build import mypycify

        package = ROOT / "dune_env"
        sources = helper.compiled_sources(package)
        hashes = {helper.module_name(p, package): helper.source_sha256(p) for p in sources}
        manifest = package / f"{helper.MANIFEST_MODULE}.py"
        manifest.write_text(helper.manifest_source(hashes, mypy.version.__version__))
        paths = [str(p.relative_to(ROOT)) for p in [*sources, manifest]]
        target_dir = os.path.join("build", "mypyc")
        os.chdir(ROOT)  # mypyc reads the paths relative to the working directory
        extensions = mypycify(
            [*helper.MYPYC_TYPECHECK_FLAGS, *paths],
            target_dir=target_dir,
            **helper.MYPYC_OPTIONS,
        )
        # The multi-file build's C files include the group's header, written one folder down.
        group_dir = os.path.join(target_dir, *helper.MYPYC_OPTIONS["group_name"].split(".")[:-1])
        for ext in extensions:
            ext.include_dirs.append(group_dir)
        return list(extensions)


# A placeholder, so that setuptools runs build_ext and tags the wheel for this platform; the
# real extensions are made in OptionalMypycBuildExt.run.
setup(
    ext_modules=[Extension("dune_env._compiled_manifest", sources=[])],
    cmdclass={"build_ext": OptionalMypycBuildExt},
)
