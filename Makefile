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

# The main job: the short version of the dune_v0 standard suite v1 (ppo-4p, aggressive, economic,
# random; 3-6 players, duplicate deals; about 2 minutes on 2 cores): strength with 95% intervals.
run: setup
	$(VENV)/bin/dune-bench --suite standard-short --workers 2 --out runs/benchmark

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
