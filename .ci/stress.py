#!/usr/bin/env python3
"""The suite under load (issue 21, `make test-stress`).

Runs the Rust tests (unit and integration binaries, nextest's `stress` profile: 8 tests at
once) ``--rust-runs`` times and the Python suite without the notebooks and the browser
(``-m "not slow"``) ``--python-runs`` times in random order (pytest-randomly, a seed per
run), while every core is kept busy: by stress-ng (installed from Debian when missing and apt
is usable), else by busy Python processes. Every failure is reported with its run and seed;
the summary (runs, failures, time) goes to stdout and to ``--out``. Exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# nextest's status lines for a test that did not pass (FAIL, TIMEOUT, SIGSEGV, ...).
NEXTEST_BAD = re.compile(
    r"^\s+(FAIL|TIMEOUT|SIG[A-Z]+|ABORT|LEAK-FAIL)\s+\[.*?\]\s+(?:\(.*?\)\s+)?(.+)$"
)


def start_load(kind: str) -> tuple[str, list[subprocess.Popen[bytes]]]:
    cores = os.cpu_count() or 2
    if kind in ("auto", "stress-ng") and shutil.which("stress-ng") is None:
        if os.geteuid() == 0 and shutil.which("apt-get"):
            subprocess.run(
                "apt-get update -qq && DEBIAN_FRONTEND=noninteractive "
                "apt-get install -y -qq stress-ng",
                shell=True,
                check=False,
                stdout=subprocess.DEVNULL,
            )
    if kind in ("auto", "stress-ng") and shutil.which("stress-ng"):
        p = subprocess.Popen(
            ["stress-ng", "--cpu", str(cores), "--cpu-load", "100", "--quiet"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        return f"stress-ng --cpu {cores}", [p]
    if kind == "none":
        return "none", []
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cores)]
    return f"{cores} busy Python processes", procs


def run(cmd: list[str], log: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    with log.open("w") as f:
        r = subprocess.run(
            cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )
    return r.returncode, log.read_text(errors="replace")


def rust_run(i: int, logs: Path) -> list[str]:
    code, out = run(
        ["cargo", "nextest", "run", "--profile", "stress", "--cargo-quiet", "--tests"],
        logs / f"rust-{i}.log",
    )
    bad = [f"rust run {i}: {m.group(1)} {m.group(2).strip()}" for line in out.splitlines()
           if (m := NEXTEST_BAD.match(line))]  # fmt: skip
    if code != 0 and not bad:
        bad = [f"rust run {i}: exit {code} (see {logs / f'rust-{i}.log'})"]
    return bad


def python_run(i: int, python: str, seed: int, logs: Path) -> list[str]:
    junit = logs / f"python-{i}.xml"
    code, _ = run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "randomly",
         f"--randomly-seed={seed}", "-m", "not slow", f"--junitxml={junit}", "tests/python"],
        logs / f"python-{i}.log",
    )  # fmt: skip
    bad = []
    if junit.exists():
        for case in ET.parse(junit).getroot().iter("testcase"):
            for kind in ("failure", "error"):
                if case.find(kind) is not None:
                    name = f"{case.get('classname')}::{case.get('name')}"
                    bad.append(f"python run {i} (--randomly-seed={seed}): {kind} {name}")
    if code != 0 and not bad:
        bad = [f"python run {i} (--randomly-seed={seed}): exit {code}"]
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rust-runs", type=int, default=20)
    ap.add_argument("--python-runs", type=int, default=5)
    ap.add_argument("--python", default=sys.executable, help="the venv's python")
    ap.add_argument("--load", choices=["auto", "stress-ng", "python", "none"], default="auto")
    ap.add_argument("--out", default=str(ROOT / "out" / "stress.md"))
    args = ap.parse_args()

    logs = Path(tempfile.mkdtemp(prefix="opsapi-stress-"))
    # Build the test binaries before the load starts: the runs measure the tests, not rustc.
    subprocess.run(["cargo", "nextest", "list", "--tests", "--cargo-quiet"], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    load, procs = start_load(args.load)
    started = time.monotonic()
    failures: list[str] = []
    try:
        for i in range(1, args.rust_runs + 1):
            t = time.monotonic()
            bad = rust_run(i, logs)
            failures += bad
            print(f"rust {i}/{args.rust_runs}: {len(bad)} failed, {time.monotonic() - t:.0f} s",
                  flush=True)  # fmt: skip
        for i in range(1, args.python_runs + 1):
            seed = random.randrange(1, 2**31)
            t = time.monotonic()
            bad = python_run(i, args.python, seed, logs)
            failures += bad
            print(f"python {i}/{args.python_runs} (seed {seed}): {len(bad)} failed, "
                  f"{time.monotonic() - t:.0f} s", flush=True)  # fmt: skip
    finally:
        for p in procs:
            p.kill()
            p.wait()
    took = time.monotonic() - started
    lines = [
        "# make test-stress",
        "",
        f"- load: {load}",
        f"- Rust: {args.rust_runs} runs of every test binary, 8 tests at once",
        f"- Python: {args.python_runs} runs in random order, without notebooks and browser",
        f"- failures: {len(failures)}",
        f"- time: {took / 60:.1f} min",
        f"- logs: {logs}",
        "",
        *(f"- {f}" for f in failures),
    ]
    text = "\n".join(lines) + "\n"
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
