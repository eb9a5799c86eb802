# `make run`: set up .venv if missing, install, run the main job on defaults.
# `make test`: the same set-up, then lint, type checks and the whole test suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test setup lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(PY) -m dune_env.play

lint: setup
	$(PY) -m ruff check dune_env tests benchmarks training
	$(PY) -m ruff format --check dune_env tests benchmarks training
	$(PY) -m mypy dune_env training

test: lint
	$(PY) -m pytest -q

bench: setup
	$(PY) benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
