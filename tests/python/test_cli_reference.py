"""The command line's reference page (docs/reference/cli.md) is what the parser says: a
command, option or help text changed without regenerating the page fails here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("opsapi._native", reason="the compiled opsapi package is not installed")

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "reference" / "cli.md"


def _generator():
    path = REPO / "docs" / "_ext" / "cli_reference.py"
    spec = importlib.util.spec_from_file_location("cli_reference", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_is_the_parsers() -> None:
    expected = _generator().render()
    assert PAGE.read_text(encoding="utf-8") == expected, (
        "docs/reference/cli.md differs from the parser; regenerate it: "
        ".venv/bin/python docs/_ext/cli_reference.py > docs/reference/cli.md"
    )


def test_the_page_has_every_command_flag_and_exit_code() -> None:
    from opsapi import cli

    text = PAGE.read_text(encoding="utf-8")
    for name in cli.COMMANDS:
        assert f"\n## opsapi {name}\n" in text and f"(#opsapi-{name})" in text
    assert "\n## opsapi alerts ack\n" in text and "`--dry-run`" in text
    assert "`--rate-truncate P`" in text or "--rate-truncate P" in text  # the sim's own flags
    for code, _ in cli._base.EXIT_CODES:
        assert f"\n| {code} | " in text
    # opsapi.cli's own docstring lists the same codes.
    for code, _ in cli._base.EXIT_CODES:
        assert f"\n{code:<4}  " in (cli.__doc__ or ""), code
    assert "``--group``" not in text and "--group" not in text  # the hidden alias stays hidden
