"""Build hook: compiles the engine and the observer with mypyc where it can.

Everything else (metadata, dependencies) is in pyproject.toml.  The modules compiled are the ones
`dune_env/compiled_build.py` lists (by glob); their `.py` files ship too and stay the reference.

    DUNE_ENV_COMPILE unset  compile; without mypy or a C compiler, install pure Python (a warning)
    DUNE_ENV_COMPILE=0      pure Python only
    DUNE_ENV_COMPILE=1      compile, and fail the build if that fails

`python setup.py build_ext --inplace` (what `make build` runs) compiles next to the sources.
See docs/performance.md.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
COMPILE_ENV_VAR = "DUNE_ENV_COMPILE"


def _load_compiled_helper() -> ModuleType:
    # By path: importing the package would run its import-time checks against this very build.
    path = ROOT / "dune_env" / "compiled_build.py"
    spec = importlib.util.spec_from_file_location("_dune_env_compiled", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _warn(message: str) -> None:
    print(f"\n*** dune-env: {message}\n", file=sys.stderr, flush=True)


class OptionalMypycBuildExt(build_ext):
    """Generates the mypyc extensions when the command is set up to run (not when setup.py is
    merely evaluated for metadata), and falls back to the pure-Python package unless the build
    was required."""

    def finalize_options(self) -> None:
        self._failure: BaseException | None = None
        mode = os.environ.get(COMPILE_ENV_VAR, "").strip()
        extensions: list[Extension] = []
        if mode != "0":
            try:
                extensions = self._mypyc_extensions()
            except (Exception, SystemExit) as exc:  # mypy/mypyc exit with SystemExit on errors
                if mode == "1":
                    raise
                self._failure = exc
        self.distribution.ext_modules = extensions
        super().finalize_options()

    def run(self) -> None:
        if self._failure is None:
            try:
                super().run()
            except (Exception, SystemExit) as exc:
                if os.environ.get(COMPILE_ENV_VAR, "").strip() == "1":
                    raise
                self._failure = exc
                for ext in self.extensions:  # no half-built set of modules in a wheel
                    filename = self.get_ext_filename(self.get_ext_fullname(ext.name))
                    Path(self.build_lib, filename).unlink(missing_ok=True)
                self.extensions.clear()
        if self._failure is not None:
            failure = self._failure
            _warn(
                f"compiling the engine failed ({type(failure).__name__}: {failure}); "
                "installing the pure-Python package.  Set "
                f"{COMPILE_ENV_VAR}=1 to make this an error."
            )

    def _mypyc_extensions(self) -> list[Extension]:
        helper = _load_compiled_helper()
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
        return list(
            mypycify(
                paths,
                opt_level="3",
                group_name="dune_env._mypyc",
                target_dir=os.path.join("build", "mypyc"),
            )
        )


# A placeholder, so that setuptools runs build_ext and tags the wheel for this platform; the
# real extensions are made in OptionalMypycBuildExt.run.
setup(
    ext_modules=[Extension("dune_env._compiled_manifest", sources=[])],
    cmdclass={"build_ext": OptionalMypycBuildExt},
)
