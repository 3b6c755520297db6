"""`make check`: the fast loop for a change (issue 32 §6): the linters, then the tests of what
changed since the branch left main (committed or not), not the whole suite.

    .venv/bin/python .ci/check.py [--base REF] [--dry-run]

What a changed path brings in (each step once, in this order):
- always: `cargo fmt --check` and ruff (check and format --check) on python, tests, docs;
- any Rust source, test or manifest: clippy on every target (the default features), then the
  Rust tests: of the one test binary when only files of that binary changed (tests/it/,
  tests/sim/, tests/promises/), else every binary (a library change reaches all of them);
- src/python/ (the bindings): the debug extension rebuilt into the venv (`make dev`) and
  stubtest, then the Python tests named after the changed file;
- python/opsapi/<path>/<name>.py: the tests named after it (tests/python/test_<name>*.py,
  and test_<package>*.py for a package's __init__.py), run with the installed extension;
- tests/python/*.py: that file (a conftest or helper module: every test file that imports it);
- docs/: the tests of the docs (test_docs*.py);
- the flavour table, the bindings, docs/_ext/ and .ci/stubs.py: the tests that what is
  generated from them is committed (test_operations, test_operation_table, test_stub).
`make test` stays the judge: this is what a change most likely breaks, in minutes.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
TESTS = REPO / "tests" / "python"
RUST_BINARIES = {"tests/it/": "it", "tests/sim/": "sim", "tests/promises/": "promises"}


def changed_paths(base: str) -> list[str]:
    """Files changed since `base` forked from HEAD, in the work tree too, and untracked ones."""

    def git(*args: str) -> list[str]:
        out = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True)
        return [line for line in out.stdout.splitlines() if line]

    fork = git("merge-base", "HEAD", base)[0]
    paths = set(git("diff", "--name-only", fork))
    paths.update(git("ls-files", "--others", "--exclude-standard"))
    return sorted(p for p in paths if (REPO / p).exists())


def python_tests_for(path: str) -> set[Path]:
    """The Python test files that test `path`, by the suite's naming (tests mirror sources)."""
    p = Path(path)
    if path.startswith("tests/python/"):
        if p.name.startswith("test_") and p.suffix == ".py":
            return {REPO / p}
        # conftest.py or a helper module: every test file that uses it.
        if p.name == "conftest.py":
            return set(TESTS.glob("test_*.py"))
        module = re.compile(rf"\b(import|from)\s+{re.escape(p.stem)}\b")
        return {t for t in TESTS.glob("test_*.py") if module.search(t.read_text(encoding="utf-8"))}
    # What is generated from the flavour table and the native module's declarations (the
    # README's operation table, the reference pages, the generated stub) and its generators.
    if path.startswith(("src/flavour", "src/python/", "docs/_ext/", ".ci/stubs")):
        generated = {TESTS / "test_operations.py", TESTS / "test_operation_table.py"}
        generated |= {TESTS / "test_stub.py"}
    else:
        generated = set()
    if path.startswith("docs/"):
        return set(TESTS.glob("test_docs*.py")) | generated
    names: list[str] = []
    if path.startswith("python/opsapi/") and p.suffix in (".py", ".pyi"):
        names.append(p.parent.name if p.stem == "__init__" else p.stem.lstrip("_"))
        if p.parent.name != "opsapi" and p.stem != "__init__":
            names.append(p.parent.name)  # a package's module: the package's tests too
    elif path.startswith("src/python/") and p.suffix == ".rs":
        names.append(p.parent.name if p.stem == "mod" else p.stem)
    return {t for n in names for t in TESTS.glob(f"test_{n}*.py")} | generated


def plan(paths: list[str]) -> list[list[str]]:
    """The commands for these changed paths, in order."""
    cargo = os.environ.get("CARGO", "cargo")
    steps = [
        [cargo, "fmt", "--check"],
        [str(BIN / "ruff"), "check", "python", "tests", "docs"],
        [str(BIN / "ruff"), "format", "--check", "python", "tests", "docs"],
    ]
    rust = [
        p
        for p in paths
        if p.endswith(".rs") or Path(p).name in ("Cargo.toml", "Cargo.lock", "build.rs")
    ]
    rust = [p for p in rust if not p.startswith(("fuzz/", "bench/"))]
    if rust:
        steps.append([cargo, "clippy", "--quiet", "--all-targets", "--", "-D", "warnings"])
        binaries = {b for p in rust for prefix, b in RUST_BINARIES.items() if p.startswith(prefix)}
        only_tests = all(p.startswith(tuple(RUST_BINARIES)) for p in rust)
        run = [cargo, "nextest", "run", "--cargo-quiet", "--status-level", "fail"]
        if only_tests:
            run += ["-E", " | ".join(f"binary({b})" for b in sorted(binaries))]
        steps.append(run)
    tests = set().union(*(python_tests_for(p) for p in paths)) if paths else set()
    bindings = any(p.startswith("src/python/") or p.endswith(".pyi") for p in paths)
    library = any(p.startswith("src/") and p.endswith(".rs") for p in paths)
    # The extension the Python tests load is rebuilt from the changed Rust first.
    if bindings or (library and tests) or (tests and "Cargo.toml" in paths):
        steps.append(["make", "dev"])
    if bindings:
        steps.append(["make", "stubtest"])
    if tests:
        steps.append(
            [str(BIN / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p"]
            + ["no:randomly", "-m", "not slow", *sorted(str(t.relative_to(REPO)) for t in tests)]
        )
    return steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default=os.environ.get("CHECK_BASE", "main"))
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    args = parser.parse_args()
    paths = changed_paths(args.base)
    print(f"make check: {len(paths)} changed since {args.base}")
    for command in plan(paths):
        print("+", " ".join(command), flush=True)
        if not args.dry_run and subprocess.run(command, cwd=REPO).returncode != 0:
            return 1
    print("make check: green (make test is the judge)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
