# make test: everything CI runs, on a bare machine (Rust + cargo, Python 3 + pip).
SHELL := /bin/bash
export CARGO_TARGET_DIR ?= $(HOME)/.cache/opsapi/target
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: test check venv dev nextest rust-lint rust-test rust-features python-build python-test \
	python-test-versions python-suites stubtest python-lint demo clean-venv test-stress docs release

# The venv (pip, mostly the network) is made while the linters compile (the cores); the rest
# in order.
test:
	$(MAKE) -j2 venv rust-lint
	$(MAKE) rust-test rust-features python-build docs python-suites stubtest python-lint
	@echo "make test: all green"

# The fast loop for a change (under 3 minutes warm): the linters, then the tests of what
# changed since the branch left main (.ci/check.py says what a changed path brings in;
# CHECK_BASE=ref compares with another base). `make test` stays the judge.
check: venv nextest
	$(BIN)/python .ci/check.py

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
	cargo fmt --check --manifest-path bench/criterion/Cargo.toml
	cargo clippy --quiet --manifest-path bench/criterion/Cargo.toml --all-targets -- -D warnings

# The Rust tests run under cargo-nextest: each test in a process of its own, with a bound on
# each (.config/nextest.toml), so that a hang fails its test by name. The doctests, which
# nextest does not run, run with cargo test.
nextest:
	cargo nextest --version >/dev/null 2>&1 || cargo install --locked cargo-nextest

# Every exchange of an Atlas simulator in these tests is recorded (OPSAPI_SIM_EXCHANGES) and
# then checked against Atlas's OpenAPI specification (tests/python/_atlas_spec.py); the Python
# suite checks its own test by test (tests/python/conftest.py).
SPEC_EXCHANGES := $(CARGO_TARGET_DIR)/atlas-exchanges
rust-test: nextest venv
	rm -rf $(SPEC_EXCHANGES)
	OPSAPI_SIM_EXCHANGES=$(SPEC_EXCHANGES) cargo nextest run --cargo-quiet --status-level fail --final-status-level slow
	OPSAPI_SIM_EXCHANGES=$(SPEC_EXCHANGES) cargo test --quiet --doc
	$(BIN)/python tests/python/_atlas_spec.py $(SPEC_EXCHANGES)
	rm -rf $(SPEC_EXCHANGES)

# Each feature set a Rust user can ask for compiles, lints and passes its tests: the client
# alone (no polars, no simulator), the simulator without frames, frames without the
# simulator. The default set (frames + sim) is rust-test's; --all-features is linted above.
FEATURE_SETS := "" "--features sim" "--features frames"
rust-features: nextest
	for f in $(FEATURE_SETS); do \
	  cargo clippy --quiet --no-default-features $$f --all-targets -- -D warnings || exit 1; \
	  cargo nextest run --cargo-quiet --status-level fail --final-status-level slow \
	    --no-tests=pass --no-default-features $$f || exit 1; \
	  cargo test --quiet --doc --no-default-features $$f || exit 1; \
	done

# The fast loop: an editable debug build of the extension into the venv (python/ is used in
# place), then `.venv/bin/python -m pytest tests/python -x`. `make test` builds the release wheel.
dev: venv
	VIRTUAL_ENV=$(CURDIR)/$(VENV) $(BIN)/maturin develop --quiet

# Release wheel, installed into the venv (the same artifact users get): manylinux2014 (glibc
# 2.17, RHEL 7/8/9, Ubuntu 20.04 on), linked by zig (ziglang, dependency group "release"; the
# venv's bin on PATH is where maturin finds it). tests/python/test_packaging.py checks the
# policy with auditwheel.
PORTABLE := --release --zig --compatibility manylinux2014
python-build: venv
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/maturin build $(PORTABLE) --quiet --out $(CARGO_TARGET_DIR)/wheels-opsapi
	$(BIN)/pip install -q --force-reinstall --no-deps $$(ls -t $(CARGO_TARGET_DIR)/wheels-opsapi/opsapi-*.whl | head -1)

# In file order (`make test-stress` shuffles it); pytest-timeout bounds every test. Over
# PYTEST_JOBS processes, a file's tests together in one (pytest-xdist's loadfile: a module's
# simulator is shared by its tests, as without it); PYTEST_JOBS=0 runs in this process.
PYTEST_JOBS ?= 4
PYTEST := $(BIN)/python -m pytest -q -p no:cacheprovider -p no:randomly -n $(PYTEST_JOBS) \
	--dist loadfile
python-test: venv
	$(PYTEST) tests/python

# The suite (without the notebook, browser and Dask tests) on the oldest and the newest other
# CPython of the machine, the oldest with the oldest polars pyproject.toml allows; skipped,
# saying so, where there is only one CPython. Venvs cached under ~/.cache/opsapi.
python-test-versions: python-build
	.ci/other-pythons $$(ls -t $(CARGO_TARGET_DIR)/wheels-opsapi/opsapi-*.whl | head -1) $(BIN)/python

# python-test and python-test-versions at once (what `make test` runs): the suites mostly
# wait on their servers and timeouts, one core each, so the three share two cores. The other
# CPythons' output is printed whole after .venv's suite; either failing fails the step.
OTHER_LOG := $(CARGO_TARGET_DIR)/other-pythons.log
python-suites: python-build
	.ci/other-pythons $$(ls -t $(CARGO_TARGET_DIR)/wheels-opsapi/opsapi-*.whl | head -1) \
	  $(BIN)/python >$(OTHER_LOG) 2>&1 & other=$$!; \
	$(PYTEST) tests/python; main=$$?; \
	wait $$other; others=$$?; \
	echo "--- the other CPythons (.ci/other-pythons):"; cat $(OTHER_LOG); \
	test $$main = 0 && test $$others = 0

stubtest: venv
	cd /tmp && $(CURDIR)/$(BIN)/python -m mypy.stubtest opsapi._native --allowlist $(CURDIR)/python/stubtest-allowlist.txt

python-lint: venv
	$(BIN)/ruff check python tests docs
	$(BIN)/ruff format --check python tests docs

# The capacity report against the built-in simulator: out/capacity.html (what runs out
# first, the headroom table, a chart per finding, which alerts are noise; one file that works
# offline), read from the measurement store out/store that it syncs first (a second run asks
# only what is new), and what the sync did and the summary on stdout.
demo: python-build
	$(BIN)/python -m opsapi.demo --out out

clean-venv:
	rm -rf $(VENV)

# The suite under load (issue 21): the Rust integration binaries 20 times with 8 tests at once
# and the Python suite (without notebooks and browser) 5 times in random order, while both
# cores are kept busy (stress-ng, installed from Debian when missing and apt is usable; else
# busy Python processes). Every failure is reported with its run and seed. Not part of
# `make test`: it takes more than an hour.
# Then each truth family's 80 % ranges, 200 cases a family, residual and backtested (issue 37:
# each inside 70-92 %, ~12 min on 2 cores), and the forecasts' 80 % intervals over 20 seeded
# sets of 400 cases (issue 33 §2; the suite runs one set of 200): their pooled coverage inside
# 75-85 %, each set's printed.
# Then the store's long runs (issue 31): readers in other processes through 500 compacting
# syncs, and 20 minutes of chaos (kills, corruptions, a skewed clock, readers), its figures on
# stdout.
test-stress: python-build nextest
	$(BIN)/python .ci/stress.py --rust-runs 20 --python-runs 5 --python $(BIN)/python
	OPSAPI_FORECAST_CASES=200 cargo test --lib --all-features -- --nocapture \
	  sim::shapes::coverage::each_family
	OPSAPI_COVERAGE_SEEDS=20 OPSAPI_COVERAGE_CASES=400 $(BIN)/python -m pytest -q -s \
	  --timeout 900 -p no:randomly -p no:cacheprovider tests/python/test_forecasts.py -k covers
	OPSAPI_STORE_READER_SYNCS=500 $(BIN)/python -m pytest -q -p no:randomly \
	  tests/python/test_store_integrity.py -k readers
	$(BIN)/python tests/python/_chaos.py --seconds 1200 --seed 7

# Benchmarks against what users would pick instead (issues 7 and 14): bench/RESULTS.md (and
# .json, which the next run compares with), also printed; then the soak (issue 12) adds its
# section. Not a test. The bench's own dependencies go into the venv here, not the library's.
.PHONY: bench bench-deps soak

bench-deps: venv
	$(BIN)/pip install -q --group bench

bench: bench-deps python-build
	timeout 1800 $(BIN)/python bench/run.py --out bench/RESULTS.md
	timeout 1800 $(BIN)/python bench/soak.py --out bench/SOAK.md --results bench/RESULTS.md
	$(STORE_BENCH)

# The measurement store (issue 22): ≥ 200 kills of a syncing process, then the figures of a
# 1 000-host store under a scaled per-project rate limit; each into its section of
# bench/RESULTS.md. `make bench-store` runs them alone.
STORE_BENCH = timeout 1800 $(BIN)/python bench/store_kills.py --results bench/RESULTS.md && \
	timeout 3600 $(BIN)/python bench/store.py --results bench/RESULTS.md
.PHONY: bench-store bench-assistant
bench-store: bench-deps python-build
	$(STORE_BENCH)

# opsapi mcp's tools against their goals (issue 41): bench/RESULTS.md's "Assistant" section.
bench-assistant: venv python-build
	timeout 3600 $(BIN)/python bench/assistant.py --results bench/RESULTS.md

# The soak alone: 10 000 calls, 8 threads + 8 asyncio tasks, 1 % faults, 1 s nonces: failed
# calls, requests per call, RSS and wall time in bench/SOAK.md and bench/RESULTS.md's "Soak"
# section.
soak: python-build
	timeout 1800 $(BIN)/python bench/soak.py --out bench/SOAK.md --results bench/RESULTS.md

# The documentation site (mkdocs.yml): site/, built with --strict (a warning fails), and the
# Rust API (cargo doc, warnings denied) in site/rust/. The API reference reads the compiled
# module's docstrings: the package installed in the venv (make dev when there is none).
# tests/python/test_docs*.py run its examples and open it in Chromium.
docs: venv
	$(BIN)/python -c "import opsapi._native" 2>/dev/null || $(MAKE) dev
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --lib --quiet
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet
	rm -rf site/rust && cp -r $(CARGO_TARGET_DIR)/doc site/rust
	# (rustdoc's help and settings pages link ./index.html, which --no-deps does not write.)
	echo '<meta http-equiv="refresh" content="0; url=opsapi/index.html">' > site/rust/index.html

# What a release publishes, into dist/ (not part of `make test`): the portable wheel (checked
# by auditwheel), the sdist, and the crate (`cargo package`: packaged into
# $(CARGO_TARGET_DIR)/package/, and the package built on its own; then `cargo publish
# --dry-run` checks what crates.io would check, without building it again: since cargo 1.95
# its own crate lands in package/tmp-crate/). tests/python/test_packaging.py runs these steps'
# packaging and checks that each file the recipe copies is where the step before writes it.
# Then the sdist is installed into a fresh venv with only pip and the Rust toolchain and the
# smoke tests run against it, and cargo-semver-checks compares the public Rust API with the
# last release: the crates.io one once there is one, until then the 0.1.0 packaged here
# (SEMVER_BASELINE=path/to/crate-dir chooses another). Needs a committed tree (cargo package
# refuses uncommitted changes).
VERSION = $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
release: venv
	rm -rf dist && mkdir -p dist
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/maturin build $(PORTABLE) --quiet --out dist
	$(BIN)/auditwheel show dist/opsapi-$(VERSION)-*.whl
	$(BIN)/maturin sdist --out dist
	cargo package --locked --quiet
	cargo publish --dry-run --locked --no-verify --quiet
	cp $(CARGO_TARGET_DIR)/package/opsapi-$(VERSION).crate dist/
	.ci/sdist-smoke dist/opsapi-$(VERSION).tar.gz
	.ci/semver-check dist/opsapi-$(VERSION).crate
	ls -l dist
