# Everything a fresh machine with only python3 needs: `make demo`, `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install lint test demo bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy pytest_agenttraj
	$(BIN)/lint-imports

test: lint
	$(BIN)/python -m pytest -n auto --dist worksteal

demo: install
	$(BIN)/python examples/run_demo.py

bench: install
	$(BIN)/python benchmarks/bench_matching.py
	$(BIN)/python benchmarks/bench_graded.py
	$(BIN)/python benchmarks/bench_matchers.py
	$(BIN)/python benchmarks/bench_startup.py
	$(BIN)/python benchmarks/bench_graph.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info
