# `make run`: set up .venv if missing, install what the main job needs, run it on defaults.
# `make test`: install the development extras (and Chromium where possible), then lint, type
# checks and the whole test suite.
# Both build the compiled engine and observer in place (mypyc; see docs/performance.md), again
# whenever one of their sources changes; without a C compiler the pure-Python package runs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# The tested CPU build; an unpinned torch would pull a multi-GB CUDA build.
TORCH := torch==2.13.0
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev
# The compiler of the compiled build (dune_env/compiled_build.py: MYPYC_REQUIREMENT).
MYPYC := mypy==2.4.1
# What setup.py compiles (dune_env/compiled_build.py: COMPILED_GLOBS); a change to any rebuilds.
COMPILED_SOURCES := $(filter-out %/__init__.py,$(wildcard dune_env/engine/*.py \
	dune_env/engine/*/*.py dune_env/policies/heuristics/*.py)) dune_env/environment/observer.py \
	dune_env/compiled_build.py setup.py
BUILD_STAMP := build/compiled.stamp
# The suites that also run on the pure-Python sources (the reference build): bad input, snapshots,
# determinism, and the comparison of both builds.
PURE_TESTS := tests/test_engine_bad_input.py tests/test_engine_hardening.py \
	tests/test_engine_snapshot.py tests/test_snapshot_hardening.py \
	tests/test_engine_determinism.py tests/test_compiled_build.py

.PHONY: run play replay test setup setup-dev build clean-build browser lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Core package + the `ppo` extra (torch, stable-baselines3) for the shipped ppo-4p baseline.
# (DUNE_ENV_COMPILE=0: the editable install leaves compiling to `build`, which redoes it on edits.)
$(RUN_STAMP): $(PY) pyproject.toml
	DUNE_ENV_COMPILE=0 $(PY) -m pip install --quiet "$(TORCH)" -e ".[ppo]"
	touch $(RUN_STAMP)

# Everything: training, RLlib, linters, Playwright (which drives the system Chromium).
$(DEV_STAMP): $(PY) pyproject.toml
	DUNE_ENV_COMPILE=0 $(PY) -m pip install --quiet "$(TORCH)" -e ".[dev]"
	touch $(DEV_STAMP)

setup: $(RUN_STAMP) build

# The compiled engine and observer, next to their sources (a stale one is refused at import).
# Set DUNE_ENV_COMPILE=1 to fail here when compiling fails; the default falls back to pure Python.
$(BUILD_STAMP): $(COMPILED_SOURCES) | $(PY)
	$(PY) -m pip install --quiet "$(MYPYC)" "setuptools>=77"
	$(PY) setup.py --quiet build_ext --inplace
	@mkdir -p build && touch $@
	@$(PY) -c "from dune_env import compiled_build as c; n = sum(bool(c.extension_file(p)) \
		for p in c.compiled_sources()); print(f'make: {n} dune_env modules compiled')"

build: $(BUILD_STAMP)

clean-build:
	rm -rf build dune_env/_compiled_manifest.py
	find dune_env -name '*.so' -delete

setup-dev: $(DEV_STAMP) browser build

# Chromium for the browser tests, from the Debian package (never a downloaded browser).  Not
# fatal: without it the browser tests are skipped with a message saying why.
browser:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then \
		true; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
			|| echo "make: could not install chromium with apt-get; the browser tests will be skipped"; \
	else \
		echo "make: no chromium and no root apt-get to install it; the browser tests will be skipped"; \
	fi

# The main job: the short version of the dune_v1 standard suite v1 (ppo-4p, aggressive, economic,
# random; 3-6 players, duplicate deals; about 2 minutes on 2 cores): strength with 95% intervals.
run: setup
	rm -rf runs/benchmark  # the main job's own folder: dune-bench refuses to overwrite a run
	$(VENV)/bin/dune-bench --suite standard-short --workers 2 --out runs/benchmark

# One seeded 5-player game between random players, narrated.
play: setup
	$(PY) -m dune_env.play

# A replay of one seeded game between the baselines, as a self-contained HTML file.
replay: setup
	$(PY) -m dune_env.replay --policies aggressive economic random random --seed 3 \
		--out runs/replay.html

lint: setup-dev
	$(PY) -m ruff check dune_env tests benchmarks training
	$(PY) -m ruff format --check dune_env tests benchmarks training
	$(PY) -m mypy dune_env training

# The whole suite on the build `make` set up (compiled where it could), then the reference suites
# on the pure-Python sources.
test: lint
	$(PY) -m pytest -q
	DUNE_ENV_PURE=1 $(PY) -m pytest -q $(PURE_TESTS)

# The figures of docs/performance.md (each compares the compiled and the pure-Python build).
bench: setup
	$(PY) benchmarks/bench_engine.py
	$(PY) benchmarks/bench_clone.py
	$(PY) benchmarks/bench_env.py

clean: clean-build
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
