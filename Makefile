# `make run`: set up .venv if missing, install, run the main job on defaults.
# `make test`: the same set-up, then lint, type checks and the whole test suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run play test setup lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

# The main job: a short, seeded benchmark of the built-in baselines (4 players, 2000 games, under a minute on 2 cores).
run: setup
	rm -rf runs/benchmark  # the main job's own folder: dune-bench refuses to overwrite a run
	$(VENV)/bin/dune-bench --policies ppo-4p aggressive economic random --players 4 \
		--games 2000 --seed 0 --out runs/benchmark

# One seeded 5-player game between random players, narrated.
play: setup
	$(PY) -m dune_env.play

lint: setup
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
