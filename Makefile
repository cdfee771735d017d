# Everything a fresh machine with only python3 needs: `make demo`, `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install compile lint test demo bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# Byte-compile the package once: where PYTHONDONTWRITEBYTECODE is set, every pytest process
# (each xdist worker, each test's inner run) would otherwise compile it again.
compile: install
	$(BIN)/python -m compileall -q pytest_agenttraj examples benchmarks

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy pytest_agenttraj
	$(BIN)/lint-imports

test: lint compile
	$(BIN)/python -m pytest -n auto --dist worksteal

demo: compile
	$(BIN)/python examples/run_demo.py

bench: compile
	$(BIN)/python benchmarks/bench_matching.py
	$(BIN)/python benchmarks/bench_graded.py
	$(BIN)/python benchmarks/bench_matchers.py
	$(BIN)/python benchmarks/bench_startup.py
	$(BIN)/python benchmarks/bench_graph.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info
