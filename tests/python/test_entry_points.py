"""Entry points: ``python -m opsapi`` is the ``opsapi`` CLI, and ``opsapi sim`` takes the Rust
``opsapi-sim`` binary's flags (one parser, in Rust)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from _children import Lines, stop

import opsapi


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "opsapi", *argv], capture_output=True, text=True, timeout=60
    )


def test_python_m_opsapi_is_the_cli():
    out = run("--help")
    assert out.returncode == 0
    for command in ("alerts", "measurements", "sim"):
        assert command in out.stdout


def test_sim_help_is_the_rust_help_with_a_line_per_flag():
    out = run("sim", "--help")
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout.startswith("usage: opsapi-sim [FLAGS]\n")
    assert out.stdout == opsapi._native._sim_help()
    lines = out.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80  # no 390-character line
    for flag, what in (("--latency-ms MS", "delay"), ("--tls [ca|self-signed]", "HTTPS")):
        line = next(x for x in lines if x.strip().startswith(flag))
        assert what in line, line  # each flag with what it does


def test_sim_refuses_a_flag_the_binary_does_not_take():
    out = run("sim", "--latency", "1")
    assert out.returncode == 2
    assert "unknown option --latency" in out.stderr


def test_global_options_before_sim_never_end_in_a_traceback():
    # `opsapi -o json sim` once ended in KeyError: 'sim'. JSON is refused: it prints text.
    for argv in (["-o", "json", "sim"], ["--output", "csv", "--profile", "x", "sim"]):
        out = run(*argv)
        assert out.returncode == 2, out.stderr
        assert out.stdout == "" and out.stderr.count("\n") == 1, out.stderr
        assert out.stderr.startswith(f"error: --output {argv[1]}: opsapi sim prints")
    out = run("--profile", "x", "-o", "table", "sim", "--help")
    assert out.returncode == 0
    assert out.stdout.startswith("usage: opsapi-sim [FLAGS]")


# The global options (a profile: the simulator needs none; table: what it prints) before it.
@pytest.mark.parametrize("globals_", [[], ["--profile", "nope", "-o", "table"]])
def test_sim_serves_with_the_binarys_flags_until_sigint(globals_):
    proc = subprocess.Popen(
        [sys.executable, "-m", "opsapi", *globals_, "sim", "--port", "0", "--seed", "3",
         "--projects", "1", "--hosts-per-project", "2", "--latency-ms", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        env = Lines(proc).env_until("# Ctrl-C")
        client = opsapi.Client(
            env["OPSAPI_BASE_URL"], env["OPSAPI_PUBLIC_KEY"], env["OPSAPI_PRIVATE_KEY"]
        )
        groups = client.groups.list()
        assert len(groups) == 1
        assert len(client.hosts.list(groups[0].id)) == 2
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        stop(proc)
