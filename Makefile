# `make run`: set up .venv if missing, install what the main job needs, run it on defaults.
# `make test`: install the development extras (and Chromium where possible), then lint, type
# checks and the whole test suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# The tested CPU build; an unpinned torch would pull a multi-GB CUDA build.
TORCH := torch==2.13.0
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run play replay test setup setup-dev browser lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Core package + the `ppo` extra (torch, stable-baselines3) for the shipped ppo-4p baseline.
$(RUN_STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet "$(TORCH)" -e ".[ppo]"
	touch $(RUN_STAMP)

# Everything: training, RLlib, linters, Playwright (which drives the system Chromium).
$(DEV_STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet "$(TORCH)" -e ".[dev]"
	touch $(DEV_STAMP)

setup: $(RUN_STAMP)

setup-dev: $(DEV_STAMP) browser

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

test: lint
	$(PY) -m pytest -q

bench: setup
	$(PY) benchmarks/bench_engine.py
	$(PY) benchmarks/bench_env.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
