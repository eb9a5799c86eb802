# `make run`: set up .venv if missing, install what the main job needs, run it on defaults.
# `make test`: install the development extras (and Chromium where possible), then lint, type
# checks and the whole test suite.
# Both install the tested versions (constraints.txt; `make lock` refreshes it) and build the
# compiled engine, observer and heuristics in place (mypyc; docs/performance.md), again whenever
# one of their sources changes.  A failed compile leaves the pure-Python package running, says so
# on the last line, and is retried by the next `make` (DUNE_ENV_COMPILE=1 makes it an error).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# The tested versions of every dependency, for the project's own set-up (pyproject.toml keeps
# ranges for users).  torch is pinned there to the CPU build 2.13.0: an unpinned torch would pull
# a multi-GB CUDA build.
CONSTRAINTS := constraints.txt
TORCH := torch==2.13.0
PIP_INSTALL := $(PY) -m pip install --quiet --constraint $(CONSTRAINTS)
# Silences setuptools' "Editable installation" banner, which is about src layouts, not ours.
EDITABLE := PYTHONWARNINGS=ignore::UserWarning DUNE_ENV_COMPILE=0
RUN_STAMP := $(VENV)/.installed-run
BENCH_STAMP := $(VENV)/.installed-bench
DEV_STAMP := $(VENV)/.installed-dev
# What setup.py compiles (dune_env/compiled_build.py: COMPILED_GLOBS); a change to any rebuilds.
COMPILED_SOURCES := $(filter-out %/__init__.py,$(wildcard dune_env/engine/*.py \
	dune_env/engine/*/*.py dune_env/policies/heuristics/*.py)) dune_env/environment/observer.py \
	dune_env/compiled_build.py setup.py
BUILD_STAMP := build/compiled.stamp
BUILD_LINE := $(PY) -c "import dune_env.compiled_build as c; raise SystemExit(c.main())"
# The suites that also run on the pure-Python sources (the reference build): bad input, snapshots
# (and their fuzzer), determinism, the comparison of both builds, the hostile inputs of issue
# 31 (the engine's, the files the project reads, the harness's replay of every game), and the
# heuristics' recorded decisions, and the values seeded games return through dune_v1.
PURE_TESTS := tests/test_engine_bad_input.py tests/test_engine_hardening.py \
	tests/test_engine_snapshot.py tests/test_snapshot_hardening.py tests/test_snapshot_fuzz.py \
	tests/test_engine_determinism.py tests/test_compiled_build.py tests/test_bad_input_parity.py \
	tests/test_engine_hardening_round3.py tests/test_hostile_files.py \
	tests/harness/test_hostile_round3.py tests/policies/test_heuristics_fingerprint.py \
	tests/env/test_seeded_digest.py tests/test_engine_records.py
WHEEL_CHECK := build/wheel-check

.PHONY: run play replay test setup setup-dev build clean-build browser lint bench check-wheel \
	lock clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Core package + the `ppo` extra (torch, stable-baselines3) for the shipped ppo-4p baseline.
# (DUNE_ENV_COMPILE=0: the editable install leaves compiling to `build`, which redoes it on edits.)
$(RUN_STAMP): $(PY) pyproject.toml $(CONSTRAINTS)
	$(EDITABLE) $(PIP_INSTALL) -e ".[ppo]"
	touch $(RUN_STAMP)

# What benchmarks/*.py import (training stack, Ray, OpenSpiel, pygame-ce).
$(BENCH_STAMP): $(PY) pyproject.toml $(CONSTRAINTS)
	$(EDITABLE) $(PIP_INSTALL) -e ".[bench]"
	touch $(BENCH_STAMP)

# Everything: training, RLlib, benchmarks, linters, Playwright (which drives the system Chromium).
$(DEV_STAMP): $(PY) pyproject.toml $(CONSTRAINTS)
	$(EDITABLE) $(PIP_INSTALL) -e ".[dev]"
	touch $(DEV_STAMP)

setup: $(RUN_STAMP) build

# The compiled modules, next to their sources (a stale one is refused at import).  The stamp is
# made only when every module compiled, so a failed or partial compile is retried next time.
$(BUILD_STAMP): $(COMPILED_SOURCES) $(CONSTRAINTS) | $(PY)
	@rm -f $@
	$(PIP_INSTALL) mypy setuptools
	$(PY) setup.py --quiet build_ext --inplace
	@if $(BUILD_LINE) --require >/dev/null 2>&1; then mkdir -p build && touch $@; fi

build: $(BUILD_STAMP)
	@$(BUILD_LINE)

clean-build:
	rm -rf build dune_env/_compiled_manifest.py dune_env/_build_status.json
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

# The main job: the short version of the dune_v1 standard suite v3 (ppo-4p and the references
# residual-4p, residual-5p, strategist, bc-4p, bc-5p, economic, aggressive, random; no search
# seat; 3-6 players, duplicate deals in the balanced design; about 35 CPU-seconds of games on the
# compiled build, docs/baselines.md "The short standard suite"; the first run also installs and
# compiles): strength with 95% intervals, and where ppo-4p lands in the published table
# (docs/leaderboard.md).
# The last line says which build ran.
run: setup
	rm -rf runs/benchmark  # the main job's own folder: dune-bench refuses to overwrite a run
	$(VENV)/bin/dune-bench --suite standard-short --workers 2 --out runs/benchmark
	@$(BUILD_LINE)

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
# on the pure-Python sources.  The last line says which build the suite ran on.
test: lint
	$(PY) -m pytest -q
	DUNE_ENV_PURE=1 $(PY) -m pytest -q $(PURE_TESTS)
	@$(BUILD_LINE)

# The figures of docs/performance.md (each compares the compiled and the pure-Python build).
bench: $(BENCH_STAMP) build
	$(PY) benchmarks/bench_engine.py
	$(PY) benchmarks/bench_clone.py
	$(PY) benchmarks/bench_env.py
	@$(BUILD_LINE)

# A user's install, as a release would get it, on the newest versions pyproject.toml allows (not
# constraints.txt, so that a dependency's new release shows up here): sdist and wheel built with
# `python -m build` (compiling required), the wheel installed into a fresh venv, and the tests of
# tests/installed run there from outside the source tree.  CI runs it after `make test`.
check-wheel: | $(PY)
	rm -rf $(WHEEL_CHECK) $(WHEEL_CHECK).log && mkdir -p build
	$(PIP_INSTALL) build
	DUNE_ENV_COMPILE=1 $(PY) -m build --outdir $(WHEEL_CHECK)/dist . > $(WHEEL_CHECK).log 2>&1 \
		|| (tail -n 40 $(WHEEL_CHECK).log; exit 1)
	@tail -n 1 $(WHEEL_CHECK).log
	$(PYTHON) -m venv $(WHEEL_CHECK)/venv
	$(WHEEL_CHECK)/venv/bin/python -m pip install --quiet --upgrade pip
	$(WHEEL_CHECK)/venv/bin/python -m pip install --quiet $(WHEEL_CHECK)/dist/*.whl pytest
	$(WHEEL_CHECK)/venv/bin/python -m pip list --format=freeze > $(WHEEL_CHECK)/versions.txt
	cp tests/installed/test_installed_wheel.py $(WHEEL_CHECK)/
	cd $(WHEEL_CHECK) && DUNE_ENV_WHEEL_CHECK=1 DUNE_ENV_SOURCE_TREE=$(CURDIR) \
		venv/bin/python -m pytest -q -p no:cacheprovider test_installed_wheel.py

# Refreshes constraints.txt: the newest versions pyproject.toml allows, resolved in a fresh venv
# with every extra.  Run it, then `make test`, and commit both when green.
lock:
	rm -rf build/lock-venv
	$(PYTHON) -m venv build/lock-venv
	build/lock-venv/bin/python -m pip install --quiet --upgrade pip
	DUNE_ENV_COMPILE=0 build/lock-venv/bin/python -m pip install --quiet "$(TORCH)" ".[dev]"
	(echo "# The tested versions for the project's own set-up (make run, make test): \`make lock\`"; \
	 echo "# regenerates this file from pyproject.toml's ranges.  Users' installs keep the ranges."; \
	 build/lock-venv/bin/python -m pip freeze --all --exclude dune-env --exclude pip \
		| sed -e 's/+cpu$$//' | LC_ALL=C sort -f) > $(CONSTRAINTS)
	@echo "make: wrote $(CONSTRAINTS); now run make test and commit it"

clean: clean-build
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
