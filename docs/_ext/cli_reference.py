"""The command line's reference page (``docs/reference/cli.md``), written from the parser
itself (:func:`opsapi.cli.build_parser`): every command and subcommand, its description, its
arguments and options with their help, and the exit codes. ``tests/python/test_cli_reference.py``
fails when the page and the parser differ; regenerate with::

    .venv/bin/python docs/_ext/cli_reference.py > docs/reference/cli.md

The text is built from the parser's actions, not from argparse's ``--help`` layout, which
differs between Python versions.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

HEAD = """\
# Command line (opsapi)

<!-- Generated from the parser by docs/_ext/cli_reference.py: edit the parser, then run
     .venv/bin/python docs/_ext/cli_reference.py > docs/reference/cli.md -->

`opsapi --help` and `opsapi COMMAND --help` print the same as this page. Credentials come, in
this order, from `--profile NAME`, `$OPSAPI_PROFILE`, the `OPSAPI_*` variables of a connection,
or the profile `default` (see [Profiles](config.md)); `--output json` prints the whole record
for scripts, and the default table fits the terminal's width, with a count line on stderr.
`--project` takes a project's name or its id (`opsapi projects` lists both).

"""


def _walk(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    """Every (sub)command: its path, its parser and its one-line summary."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            summaries = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield (*path, name), sub, summaries.get(name, "")
                yield from _walk(sub, (*path, name))


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _arguments(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction) or a.help == argparse.SUPPRESS:
            continue
        if isinstance(a, argparse._HelpAction):
            continue
        if a.option_strings:
            value = "" if a.nargs == 0 else f" {a.metavar or a.dest.upper()}"
            if a.choices and a.nargs != 0 and not a.metavar:
                value = " {" + ",".join(str(c) for c in a.choices) + "}"
            name = ", ".join(f"`{flag}{value}`" for flag in a.option_strings)
        else:
            name = f"`{a.metavar or a.dest.upper()}`"
            if a.choices:
                name += " (" + ", ".join(f"`{c}`" for c in a.choices) + ")"
        what = _cell(a.help or "")
        if a.required and a.option_strings:
            what = (what + " (required)").strip()
        rows.append(f"| {name} | {what} |")
    if not rows:
        return []
    return ["| Argument | What |", "| --- | --- |", *rows, ""]


def _subcommands(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> list[str]:
    lines = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                anchor = "-".join(["opsapi", *path, choice.dest])
                full = " ".join(["opsapi", *path, choice.dest])
                lines.append(f"- [`{full}`](#{anchor}): {_cell(choice.help or '')}")
    return [*lines, ""] if lines else []


def render() -> str:
    """The page."""
    from opsapi.cli import _base, build_parser

    top = build_parser()
    out = [HEAD, "## opsapi", "", _cell(top.description or ""), ""]
    out += _subcommands(top, ()) + _arguments(top)
    for path, parser, summary in _walk(top):
        name = " ".join(["opsapi", *path])
        out += [f"## {name}", ""]  # its anchor: #opsapi-alerts-list (the toc's slug)
        text = parser.description or (summary[:1].upper() + summary[1:] + "." if summary else "")
        if text:
            out += [_cell(text), ""]
        out += _subcommands(parser, path) + _arguments(parser)
        if path == ("sim",):  # its flags are the simulator's own parser's (Rust)
            from opsapi import _native

            out += ["Its own flags (`opsapi sim --help`, the same as `opsapi-sim --help`):", "",
                    "```text", _native._sim_help().rstrip("\n"), "```", ""]  # fmt: skip
    out += ["## Exit codes", "", "| Code | Meaning |", "| --- | --- |"]
    out += [f"| {code} | {_cell(meaning)} |" for code, meaning in _base.EXIT_CODES]
    return "\n".join(out).rstrip("\n") + "\n"


if __name__ == "__main__":
    print(render(), end="")
