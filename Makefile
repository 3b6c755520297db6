# make test: everything CI runs, on a bare machine (Rust + cargo, Python 3 + pip).
SHELL := /bin/bash
export CARGO_TARGET_DIR ?= $(HOME)/.cache/opsapi/target
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: test venv dev rust-lint rust-test rust-features python-build python-test \
	python-test-versions stubtest python-lint demo clean-venv

test: rust-lint rust-test rust-features python-build python-test stubtest python-lint \
	python-test-versions
	@echo "make test: all green"

# The dev tools are pyproject.toml's dependency group "dev" (pip >= 25.1 reads groups);
# reinstalled when pyproject.toml or this Makefile changes.
$(VENV)/.tools: Makefile pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade "pip>=25.1"
	$(BIN)/pip install -q --group dev
	touch $@

venv: $(VENV)/.tools

rust-lint:
	cargo fmt --check
	cargo clippy --quiet --all-targets --all-features -- -D warnings

rust-test:
	cargo test --quiet

# Each feature set a Rust user can ask for compiles, lints and passes its tests: the client
# alone (no polars, no simulator), the simulator without frames, frames without the
# simulator. The default set (frames + sim) and --all-features are covered above.
rust-features:
	cargo clippy --quiet --no-default-features --all-targets -- -D warnings
	cargo clippy --quiet --no-default-features --features sim --all-targets -- -D warnings
	cargo clippy --quiet --no-default-features --features frames --all-targets -- -D warnings
	cargo test --quiet --no-default-features
	cargo test --quiet --no-default-features --features sim

# The fast loop: an editable debug build of the extension into the venv (python/ is used in
# place), then `.venv/bin/python -m pytest tests/python -x`. `make test` builds the release wheel.
dev: venv
	VIRTUAL_ENV=$(CURDIR)/$(VENV) $(BIN)/maturin develop --quiet

# Release wheel, installed into the venv (the same artifact users get).
python-build: venv
	$(BIN)/maturin build --release --quiet --out $(CARGO_TARGET_DIR)/wheels-opsapi
	$(BIN)/pip install -q --force-reinstall --no-deps $$(ls -t $(CARGO_TARGET_DIR)/wheels-opsapi/opsapi-*.whl | head -1)

python-test: venv
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/python

# The suite (without the notebook, browser and Dask tests) on the oldest and the newest other
# CPython of the machine, the oldest with the oldest polars pyproject.toml allows; skipped,
# saying so, where there is only one CPython. Venvs cached under ~/.cache/opsapi.
python-test-versions: python-build
	.ci/other-pythons $$(ls -t $(CARGO_TARGET_DIR)/wheels-opsapi/opsapi-*.whl | head -1) $(BIN)/python

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

# Benchmarks against what users would pick instead (issues 7 and 14): bench/RESULTS.md (and
# .json, which the next run compares with), also printed; then the soak (issue 12) adds its
# section. Not a test. The bench's own dependencies go into the venv here, not the library's.
.PHONY: bench bench-deps soak

bench-deps: venv
	$(BIN)/pip install -q --group bench

bench: bench-deps python-build
	timeout 1800 $(BIN)/python bench/run.py --out bench/RESULTS.md
	timeout 1800 $(BIN)/python bench/soak.py --out bench/SOAK.md --results bench/RESULTS.md

# The soak alone: 10 000 calls, 8 threads + 8 asyncio tasks, 1 % faults, 1 s nonces: failed
# calls, requests per call, RSS and wall time in bench/SOAK.md and bench/RESULTS.md's "Soak"
# section.
soak: python-build
	timeout 1800 $(BIN)/python bench/soak.py --out bench/SOAK.md --results bench/RESULTS.md
