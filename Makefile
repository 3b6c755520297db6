# make test: everything CI runs, on a bare machine (Rust + cargo, Python 3 + pip).
SHELL := /bin/bash
export CARGO_TARGET_DIR ?= $(HOME)/.cache/opsapi/target
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEV_TOOLS := "maturin>=1.16,<2" "polars>=1.30" pytest pytest-asyncio mypy ruff tqdm opsmanager \
	nbclient nbformat nbconvert ipykernel altair vl-convert-python

.PHONY: test venv rust-lint rust-test python-build python-test stubtest python-lint demo clean-venv

test: rust-lint rust-test python-build python-test stubtest python-lint
	@echo "make test: all green"

# Reinstalled when this Makefile (and so the tool list) changes.
$(VENV)/.tools: Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q $(DEV_TOOLS)
	touch $@

venv: $(VENV)/.tools

rust-lint:
	cargo fmt --check
	cargo clippy --quiet --all-targets --all-features -- -D warnings

rust-test:
	cargo test --quiet

# Release wheel, installed into the venv (the same artifact users get).
python-build: venv
	$(BIN)/maturin build --release --quiet --out $(CARGO_TARGET_DIR)/wheels-opsapi
	$(BIN)/pip install -q --force-reinstall --no-deps $$(ls -t $(CARGO_TARGET_DIR)/wheels-opsapi/opsapi-*.whl | head -1)

python-test: venv
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/python

stubtest: venv
	cd /tmp && $(CURDIR)/$(BIN)/python -m mypy.stubtest opsapi._native --allowlist $(CURDIR)/python/stubtest-allowlist.txt

python-lint: venv
	$(BIN)/ruff check python tests
	$(BIN)/ruff format --check python tests

# The capacity analysis against the built-in simulator: out/capacity.html and the five
# partitions closest to full.
demo: python-build
	$(BIN)/python -m opsapi.demo --out out

clean-venv:
	rm -rf $(VENV)

# Benchmarks against what users would pick instead (issue 7): bench/RESULTS.md, also printed.
# Not a test. The bench's own dependencies go into the venv here, not into the library's.
BENCH_DEPS := opsmanager requests
.PHONY: bench bench-deps

bench-deps: venv
	$(BIN)/pip install -q $(BENCH_DEPS)

bench: bench-deps python-build
	timeout 480 $(BIN)/python bench/run.py --out bench/RESULTS.md
