# Quick start: `make demo` runs the main job, `make test` runs the whole suite.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test bench clean proto

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/arena tournament --name demo --bots random,first --team random,first \
		--variant guandan --matches 6 --deals 3 --db demo.sqlite

proto: $(STAMP)
	$(BIN)/python scripts/gen_proto.py

test: $(STAMP)
	$(BIN)/python scripts/gen_proto.py --check
	$(BIN)/ruff check arena bots tests scripts
	$(BIN)/mypy
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/arena bench guandan

clean:
	rm -rf demo.sqlite demo.sqlite-wal demo.sqlite-shm $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
