# Quick start: `make demo` runs the main job, `make test` runs the whole suite.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
RL_STAMP := $(VENV)/.installed-rl

.PHONY: demo test bench clean proto compile

# The Node.js example bot's packages, when npm is there (its test skips without node,
# and fails instead on CI, where .ci/run installs Node.js).
NODE_DEPS := bots/node/node_modules/.package-lock.json
NODE_NEEDED := $(if $(shell command -v npm 2>/dev/null),$(NODE_DEPS))

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	-$(BIN)/python scripts/compile_engines.py
	touch $(STAMP)

# The rl extra (RLlib and torch) for the test of examples/rllib_guandan.py; the demo
# does without it.
$(RL_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,rl]'
	touch $(RL_STAMP)

# The engines compiled by mypyc into build/compiled (a no-op while they match the sources;
# without a C compiler one line says so and the interpreted engines run).
compile: $(STAMP)
	$(BIN)/python scripts/compile_engines.py

# Three short tournaments (Guandan, Shengji, sanfu), then the command that shows them in
# a browser: leaderboards, bots, and every match replayed on a drawn card table.
demo: $(STAMP) compile
	$(BIN)/arena tournament --name demo --bots random,first,heuristic --team random,first \
		--variant guandan --matches 6 --deals 3 --db demo.sqlite
	$(BIN)/arena tournament --name demo-shengji --bots random,heuristic --variant shengji-2 \
		--matches 1 --deals 2 --db demo.sqlite
	$(BIN)/arena tournament --name demo-sanfu --bots random,heuristic --variant sanfu \
		--matches 1 --deals 2 --db demo.sqlite
	@echo
	@echo "The demo's results in a browser (Ctrl-C stops it):"
	@echo "    $(BIN)/arena web --db demo.sqlite"
	@echo "then open http://127.0.0.1:8080/"
	@echo "To play against the bots yourself, serve the store with its tables:"
	@echo "    $(BIN)/arena serve --db demo.sqlite --web-port 8080"
	@echo "then open http://127.0.0.1:8080/tables/new"

$(NODE_DEPS): bots/node/package-lock.json
	npm ci --prefix bots/node --no-audit --no-fund --loglevel=error

proto: $(STAMP)
	$(BIN)/python scripts/gen_proto.py

# The rules engines' own tests, run a second time on the interpreted engines.
ENGINE_TESTS := $(filter-out %_bot.py,$(wildcard $(addprefix tests/test_,cards.py \
	event_seats.py game_*.py public_cards.py replay.py rules*.py properties*.py \
	guandan_*.py sanfu_*.py shengji_*.py)))

# The other modules with tests that plant faults in the engines (marked interpreted_engines).
PLANTED_TESTS := $(filter-out $(ENGINE_TESTS),$(shell grep -l interpreted_engines tests/test_*.py))

# -rfEs: each skipped test listed with its reason (on CI, CI=true, it fails instead).
# The compiled pass ends with its 40 slowest tests (--durations), where time goes.
# -n auto: a worker per core (pytest-xdist); tests that share Ray, ports or a module's
# fixtures run on one worker together (tests/parallel.py).
PYTEST := $(BIN)/pytest -rfEs -n auto --dist loadgroup

# The whole suite runs on the compiled engines (when built), then the engines' tests
# again on the interpreted ones, for what compiling can change: each property test for
# a few examples (the Hypothesis profile interpreted-engines), with the tests that plant
# faults in the engines' Python code (marked interpreted_engines, left out of a compiled
# run: tests/engines_marker.py). The checks, the compiled pass and the interpreted passes
# run side by side (each one's output shown whole when it ends): the compiled pass waits
# on Ray, servers and browsers for part of its time, which the others fill.
test: $(STAMP) $(RL_STAMP) $(NODE_NEEDED) compile
	$(MAKE) --no-print-directory -j3 --output-sync=target \
		test-checks test-compiled test-interpreted

.PHONY: test-checks test-compiled test-interpreted
test-checks:
	$(BIN)/python scripts/gen_proto.py --check
	$(BIN)/ruff check arena bots tests scripts examples
	$(BIN)/mypy

test-compiled:
	$(PYTEST) --durations=40

test-interpreted:
	ARENA_ENGINES=python $(PYTEST) --hypothesis-profile interpreted-engines $(ENGINE_TESTS)
	ARENA_ENGINES=python $(BIN)/pytest -rfEs -m interpreted_engines $(PLANTED_TESTS)

bench: $(STAMP) compile
	$(BIN)/arena bench guandan

clean:
	rm -rf demo.sqlite demo.sqlite-wal demo.sqlite-shm $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
	rm -rf build/compiled build/compiled.new build/compile-work
	rm -rf bots/node/node_modules
