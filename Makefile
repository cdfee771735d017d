# Everything a fresh machine with only python3 needs: `make demo`, `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RAGAS_VENV := .venv-ragas
RAGAS_STAMP := $(RAGAS_VENV)/.installed

.PHONY: install compile style typecheck lint suite test test-fast demo bench docs docs-serve clean $(RAGAS_VENV)

# setup.py builds strict graph matching's C loop in place (an optional extension): a change to its
# source installs again
$(STAMP): pyproject.toml setup.py pytest_agenttraj/core/graph/_names.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# Ragas itself, for the differential tests of the Ragas-named metrics
# (tests/test_ragas_differential.py): its own environment, since ragas 0.4.3 needs
# langchain-community<0.4 and more that the development environment does not want.
$(RAGAS_STAMP):
	$(PYTHON) -m venv $(RAGAS_VENV)
	$(RAGAS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(RAGAS_VENV)/bin/python -m pip install --quiet 'ragas==0.4.3' 'langchain-community<0.4'
	touch $(RAGAS_STAMP)

$(RAGAS_VENV): $(RAGAS_STAMP)

# Byte-compile the package once: where PYTHONDONTWRITEBYTECODE is set, every pytest process
# (each xdist worker, each test's inner run) would otherwise compile it again. pytest also
# rewrites the modules of every plugin it loads (langsmith's some 200 among them) and caches the
# result only where it may write bytecode: one run of a one-test session here caches them for
# every later process (a process starting cold takes 3.2 s here, warm 1.4 s).
compile: install
	$(BIN)/python -m compileall -q pytest_agenttraj examples benchmarks
	@warm=$$(mktemp -d) && printf 'def test_warm():\n    pass\n' > $$warm/test_warm.py \
		&& (cd $$warm && env -u PYTHONDONTWRITEBYTECODE -u PYTEST_ADDOPTS $(CURDIR)/$(BIN)/python \
			-m pytest -q -p no:cacheprovider >/dev/null 2>&1) ; rm -rf $$warm

# One more xdist worker than cores: a worker often waits (on a subprocess starting, a socket,
# a timeout under test), and the spare one uses that time; more would each pay the suite's
# collection again (on 2 cores: 149 s with 3 workers, 157 s with 4). `make test WORKERS=0` runs
# in one process.
WORKERS ?= $(shell $(PYTHON) -c "import os; print((os.cpu_count() or 1) + 1)")

style: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy pytest_agenttraj

lint: style typecheck

suite: compile $(RAGAS_STAMP)
	$(BIN)/python -m pytest -n $(WORKERS) --dist worksteal

# The documentation site (mkdocs.yml), into site/; --strict fails on a broken link or anchor, and
# the reference page's generator (docs/hooks/reference.py) fails when it cannot read the plugin.
# NO_MKDOCS_2_WARNING: Material prints a notice about MkDocs' future on every build otherwise.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

docs-serve: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --strict

# On two cores each group below takes the time of its longest part: the Ragas environment is built
# beside the development one, and the type check and the documentation build run beside the
# suite rather than before it.
# mypy and the docs build run before the suite, not beside it: cold, mypy takes 11 CPU s, which
# the suite's workers (CPU-bound on 2 cores) would otherwise share.
test:
	@$(MAKE) --no-print-directory -j2 install $(RAGAS_STAMP)
	@$(MAKE) --no-print-directory style compile
	@$(MAKE) --no-print-directory -j2 typecheck docs
	@$(MAKE) --no-print-directory suite

# The inner loop: the tests marked `unit` (the root conftest marks every test that starts no pytest
# session, no interpreter of its own and no demo), one xdist worker per core; no lint.
FAST_WORKERS ?= $(shell $(PYTHON) -c "import os; print(os.cpu_count() or 1)")

test-fast: compile
	$(BIN)/python -m pytest -m unit -n $(FAST_WORKERS)

demo: compile
	$(BIN)/python examples/run_demo.py

bench: compile
	$(BIN)/python benchmarks/bench_matching.py
	$(BIN)/python benchmarks/bench_graded.py
	$(BIN)/python benchmarks/bench_matchers.py
	$(BIN)/python benchmarks/bench_startup.py
	$(BIN)/python benchmarks/bench_graph.py
	$(BIN)/python benchmarks/bench_judges.py
	$(BIN)/python benchmarks/bench_pytest_session.py
	$(BIN)/python benchmarks/bench_html.py
	$(BIN)/python benchmarks/bench_simulation.py
	$(BIN)/python benchmarks/bench_replay.py

clean:
	rm -rf $(VENV) $(RAGAS_VENV) site .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info build
	rm -f pytest_agenttraj/core/graph/_names.*.so
