"""``opsapi mcp``'s refusals, each before any server starts and whatever the CPython (these
run on 3.9 too, where the MCP SDK does not install): an address past loopback without
``--allow-remote`` or without a token, a store that is not one, and no SDK at all."""

from __future__ import annotations

import sys

import pytest

from opsapi import cli


def run(capsys, *argv: str) -> tuple[int, str]:
    code = cli.main(list(argv))
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, code, said",
    [
        (["--http", "0.0.0.0:8765"], 2, "not a loopback address; --allow-remote"),
        (["--http", "0.0.0.0:8765", "--allow-remote"], 2, "OPSAPI_MCP_TOKEN must hold"),
        (["--http", "localhost"], 2, "--http: 'localhost' is not HOST:PORT"),
        (["--allow-remote"], 2, "--allow-remote: only with --http"),
        (["--max-ack", "P0D"], 2, "--max-ack"),
        (["-o", "json"], 2, "opsapi mcp speaks MCP"),
    ],
)
def test_refused_before_it_starts(capsys, monkeypatch, argv, code, said) -> None:
    monkeypatch.setenv("OPSAPI_MCP_TOKEN", "short")
    got, err = run(capsys, "mcp", *argv)
    assert (got, err.count("error:")) == (code, 1) and said in err, err


def test_a_store_that_is_not_one(capsys, tmp_path) -> None:
    got, err = run(capsys, "mcp", "--store", str(tmp_path / "nowhere"))
    assert got == 3 and "no such folder, so no measurement store" in err
    got, err = run(capsys, "mcp", "--store", str(tmp_path))
    assert got == 3 and "not a measurement store" in err


def test_without_the_sdk_it_says_what_to_install(capsys, monkeypatch) -> None:
    import opsapi.mcp

    # What a CPython without the SDK finds (the SDK's modules another test imported too).
    for name in ["mcp", *[m for m in sys.modules if m.startswith("mcp.")]]:
        monkeypatch.setitem(sys.modules, name, None)
    for name in [m for m in sys.modules if m.startswith("opsapi.mcp.")]:
        monkeypatch.delitem(sys.modules, name)  # imported again, as for the first time
        monkeypatch.delattr(opsapi.mcp, name.rsplit(".", 1)[1], raising=False)
    got, err = run(capsys, "mcp")
    assert got == 2 and "pip install 'opsapi[mcp]' (CPython 3.10 or later)" in err, err
    assert "Traceback" not in err


def test_its_help_needs_no_sdk(capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)
    code = cli.main(["mcp", "--help"])
    out = capsys.readouterr().out
    assert code == 0 and "--allow-writes" in out and "--store PATH" in out
