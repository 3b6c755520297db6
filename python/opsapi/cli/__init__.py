"""``opsapi``: alert handling, projects, measurement export and the measurement store from
scripts and terminals.

Credentials, in this order (the precedence of :mod:`opsapi.config`, the same for
``Client.from_profile`` and ``Client.from_env``): ``--profile NAME``, else
``$OPSAPI_PROFILE``, else the ``OPSAPI_*`` variables of a connection (``OPSAPI_BASE_URL``,
``OPSAPI_PUBLIC_KEY``, ``OPSAPI_PRIVATE_KEY``, ``OPSAPI_CLIENT_ID``, ``OPSAPI_CLIENT_SECRET``,
``OPSAPI_FLAVOUR``; ``OPSAPI_CA_FILE`` with them) as for :meth:`opsapi.Client.from_env`, else
the profile ``default``; with none, an error that says to run ``opsapi config init``.

``--output json`` (``-o json``) on every command, before or after it, prints JSON for ``jq``:
the whole record. ``table`` (the default, fitted to the terminal's width, with a count line on
stderr) and ``csv`` are the other formats. ``sim`` and ``completion`` print text (the
simulator's address and keys, a shell script): there ``--output`` other than ``table`` is
refused (exit 2), and ``--profile`` has nothing to choose (they connect to no server).
``--project`` takes a project's name or its id.

Exit codes a script can rely on:

====  =========================================================
0     success
1     a local file or folder could not be written or read (disk full, ...)
2     usage error (with the command's usage), invalid argument or missing configuration
3     not found (404), or no measurement store at the path
4     authentication failed (401) or forbidden (403)
5     any other error answer from the API, or an undecodable one
6     transport: connect, TLS, timeout, reset
7     ``alerts ack``/``unack`` of several alerts: some succeeded, some failed; ``sync``:
      some targets failed (the others were stored; the next sync asks the failed again);
      ``store check``: some files are missing or damaged (each named on stdout)
130   interrupted (Ctrl-C); a store stays as the last finished write left it
====  =========================================================

A failure is one line on stderr, never a traceback: ``error: <errorCode>: <detail>`` for an
API failure; ``alerts ack``/``unack`` always end with a summary line (``acknowledged 5 of 6
alert(s), 1 failed``), and want ``--yes`` to change more than 20 alerts, given as ids or
matched by filters.

Example::

    $ opsapi projects
    $ opsapi clusters list --project Prod
    $ opsapi alerts list --status OPEN --format csv > open.csv
    $ opsapi alerts ack 5b7c... --for 4h --comment "disk resize scheduled"
    $ opsapi alerts ack --event-type OUTSIDE_METRIC_THRESHOLD --replica-set rs0 --for 2h --dry-run
    $ opsapi alerts list --project Prod --status OPEN --older-than 2h --format parquet \\
          --file open.parquet
    $ opsapi measurements host Prod $HOST --granularity PT1M --period P1D \\
          --metric CONNECTIONS --output conn.parquet
    $ opsapi --profile prod measurements fleet --disks --granularity PT1H --period P14D \\
          --output out/disks/            # hive-partitioned Parquet, a progress bar on a TTY
    $ opsapi capacity --window 14d             # what runs out first, where and when
    $ opsapi sync fleet-store --granularity PT1H --window P35D   # only what is new
    $ opsapi store info fleet-store
    $ opsapi store check fleet-store           # every file whole? (exit 7 names the bad ones)
    $ opsapi mcp --store fleet-store           # the tools an assistant calls (stdio)
    $ opsapi config init --profile prod        # asks; or every answer as a flag
    $ source <(opsapi completion bash)

One table of commands (:data:`COMMANDS`, as pip's ``commands_dict``): a name, the module and
the :class:`~opsapi.cli._base.Command` in it, and the summary that ``opsapi --help`` shows.
A command's module is imported only when that command runs (or when the whole tree is
needed: ``--help``, completion, the reference page); each brings its parser and its run, and
no command imports another's. ``_base`` holds what they share, ``_table`` the terminal's
tables.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NamedTuple, Optional, TextIO

from ._base import (
    CONFIRM_ABOVE,
    EXIT_API,
    EXIT_AUTH,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_TRANSPORT,
    EXIT_USAGE,
    Command,
    Failure,
    Parser,
    UsageError,
    error_text,
    exit_code,
)

__all__ = [
    "COMMANDS",
    "CONFIRM_ABOVE",
    "EXIT_API",
    "EXIT_AUTH",
    "EXIT_FAILURE",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_FOUND",
    "EXIT_OK",
    "EXIT_PARTIAL",
    "EXIT_TRANSPORT",
    "EXIT_USAGE",
    "build_parser",
    "main",
    "run",
]


class CommandInfo(NamedTuple):
    """Where a command lives: ``opsapi.cli.<module>.<name>``, and its one-line summary."""

    module: str
    name: str
    summary: str


#: Every command: its module (imported when it runs), the Command in it, its summary.
COMMANDS: dict[str, CommandInfo] = {
    "alerts": CommandInfo(
        "alerts", "ALERTS", "global and project alerts: list, show, acknowledge, un-acknowledge"
    ),
    "projects": CommandInfo("projects", "PROJECTS", "the projects the key can see: names and ids"),
    "clusters": CommandInfo(
        "clusters", "CLUSTERS", "clusters of projects by name: tier, disk and autoscaling"
    ),
    "measurements": CommandInfo(
        "measurements", "MEASUREMENTS", "host, disk and database measurements to CSV or Parquet"
    ),
    "capacity": CommandInfo(
        "capacity", "CAPACITY", "what runs out first, where and when (headroom of every resource)"
    ),
    "sync": CommandInfo(
        "store", "SYNC", "sync a measurement store: only what is new since the last sync"
    ),
    "store": CommandInfo("store", "STORE", "what a measurement store holds"),
    "mcp": CommandInfo(
        "mcp", "MCP", "serve an assistant over MCP: what runs out first, why an alert fired"
    ),
    "config": CommandInfo("profiles", "CONFIG", "profiles: connection settings by name"),
    "completion": CommandInfo("completion", "COMPLETION", "print a shell completion script"),
    "sim": CommandInfo("sim", "SIM", "run the API simulator until Ctrl-C (opsapi sim --help)"),
}


def command(name: str) -> Command:
    """The command ``name`` of :data:`COMMANDS`, its module imported now."""
    info = COMMANDS[name]
    cmd: Command = getattr(importlib.import_module(f"{__name__}.{info.module}"), info.name)
    return cmd


class _Version(argparse.Action):
    """``--version``: the package's version, read only when asked for."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            v = version("opsapi")
        except PackageNotFoundError:  # python/ used in place without an install
            import opsapi

            v = opsapi.__version__
        print(f"opsapi {v}")
        parser.exit(EXIT_OK)


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """The parser of the whole command tree; with ``only``, that command's in full and the
    others by name and summary (their modules are not imported)."""
    p = Parser(
        prog="opsapi",
        description="Ops Manager, Cloud Manager and Atlas from the command line (credentials "
        "from a profile or OPSAPI_*; see opsapi config init).",
    )
    p.add_argument("--version", action=_Version)
    p.add_argument(
        "--profile",
        metavar="NAME",
        help="profile of the config file (default: $OPSAPI_PROFILE, else OPSAPI_* variables, "
        "else the profile 'default')",
    )
    p.add_argument(
        "--output",
        "-o",
        metavar="FORMAT",
        help="table, json or csv for every command; measurements also take a file or folder "
        "(sim and completion print text: table only)",
    )
    top = p.add_subparsers(dest="area", required=True, parser_class=Parser, metavar="COMMAND")
    for name, info in COMMANDS.items():
        if only is not None and name != only:
            top.add_parser(name, help=info.summary, add_help=False)
            continue
        cmd = command(name)
        sub = top.add_parser(
            name,
            help=info.summary,
            description=cmd.description or info.summary[0].upper() + info.summary[1:] + ".",
            **cmd.parser_options,
        )
        cmd.arguments(sub)
    return p


_GLOBAL_VALUES = ("--profile", "--output", "-o")


def _command_in(argv: Sequence[str]) -> Optional[str]:
    """The command named in ``argv``: its first word that is neither an option nor a global
    option's value (None when there is none, or it is not a command)."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in _GLOBAL_VALUES:
            skip = True
        elif not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def _deepest(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)command's own parser that ``args`` came through: its usage is the one a
    mistake on its line should show."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(args, subs[0].dest, None) if subs else None
        if name is None or name not in subs[0].choices:
            return parser
        parser = subs[0].choices[name]


def main(argv: Optional[Sequence[str]] = None, *, out: Optional[TextIO] = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``) and return the exit code.

    >>> main(["alerts", "list", "--status", "OPEN", "--format", "json"])  # doctest: +SKIP
    0
    """
    try:
        return _main(list(argv) if argv is not None else sys.argv[1:], out or sys.stdout)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _main(argv: list[str], out: TextIO) -> int:
    name = _command_in(argv)
    # Only the command named is built in full ("" for none: --help, --version, a mistake).
    parser = build_parser(only=name or "")
    try:
        args, rest = parser.parse_known_args(argv)
        if rest and not command(args.area).rest:
            _deepest(parser, args).error("unrecognized arguments: " + " ".join(rest))
        args.rest = rest
    except UsageError as e:
        if e.usage:
            sys.stderr.write(e.usage)
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as e:  # --help, --version
        return int(e.code or 0)

    import opsapi

    try:
        return command(args.area).run(args, out)
    except Failure as e:  # a usage error (exit 2), or another with its own code
        print(f"error: {e}", file=sys.stderr)
        return e.code
    except opsapi.OpsApiError as e:  # one line; the exit code of its class (see exit_code)
        hint = ""
        if isinstance(e, opsapi.TransportError) and getattr(args, "server_from", None):
            hint = f" (is the server up? it is {args.server_from})"
        print(f"error: {error_text(e)}{hint}", file=sys.stderr)
        return exit_code(e)
    except BrokenPipeError:
        return EXIT_OK
    except OSError as e:  # a file of the user's that could not be written or read
        where = f"{e.filename}: " if e.filename else ""
        print(f"error: {where}{e.strerror or e}", file=sys.stderr)
        return EXIT_FAILURE


def run() -> None:
    """Console-script entry point: ``opsapi = "opsapi.cli:run"``."""
    sys.exit(main())
