# Two commands: `make serve` and `make test`. Everything else is a convenience.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev

.PHONY: serve test lint typecheck pytest bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# reinstall only when the dependency list changes, so a second `make serve` starts at once
$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@ $(STAMP_RUN)

serve: $(STAMP_RUN)
	$(BIN)/reelscope migrate
	$(BIN)/reelscope serve

test: $(STAMP_DEV)
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples
	$(BIN)/mypy
# each test worker and every process a test starts (servers, workers, read workers) imports the app:
# with PYTHONDONTWRITEBYTECODE set, as some machines set it, each compiled every module again
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -q -n 2 --dist loadgroup --durations=15

lint: $(STAMP_DEV)
	$(BIN)/ruff check --fix src tests benchmarks examples
	$(BIN)/ruff format src tests benchmarks examples

bench: $(STAMP_DEV)
	@for b in benchmarks/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
