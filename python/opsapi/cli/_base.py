"""What every command shares: a command's shape (:class:`Command`), the exit codes, the parser
class, the global options, the client (by the precedence of :mod:`opsapi.config`), projects
by name or id, output formats, paths checked before any request, and the one-line error
text."""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Optional, TextIO

from ._table import Column, plural, write_table

EXIT_OK = 0
EXIT_FAILURE = 1  # a local file or folder could not be read or written (disk full, ...)
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_AUTH = 4
EXIT_API = 5
EXIT_TRANSPORT = 6
EXIT_PARTIAL = 7
EXIT_INTERRUPTED = 130  # Ctrl-C: 128 + SIGINT, as a shell reports it
#: What each exit code means (the reference page and ``opsapi.cli``'s docstring say it).
EXIT_CODES = [
    (EXIT_OK, "success"),
    (EXIT_FAILURE, "a local file or folder could not be written or read (disk full, ...)"),
    (EXIT_USAGE, "usage error (with the command's usage), invalid argument or missing "
                 "configuration"),
    (EXIT_NOT_FOUND, "not found (404), or no measurement store at the path"),
    (EXIT_AUTH, "authentication failed (401) or forbidden (403)"),
    (EXIT_API, "any other error answer from the API, or an undecodable one"),
    (EXIT_TRANSPORT, "transport: connect, TLS, timeout, reset"),
    (EXIT_PARTIAL, "alerts ack/unack of several alerts: some succeeded, some failed; sync: some "
                   "targets failed (the others were stored; the next sync asks the failed again)"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C); a store stays as the last finished write left it"),
]  # fmt: skip
# Above this many matching alerts, ack/unack by filter needs --yes.
CONFIRM_ABOVE = 20


@dataclass(frozen=True)
class Command:
    """One command of the table (``opsapi.cli.COMMANDS``): its arguments and its run.

    ``arguments(parser)`` adds its options and subcommands to the parser the table made for
    it; ``run(args, out)`` returns the exit code. ``rest``: whatever the parser does not know
    goes to ``args.rest`` instead of being a usage error (``sim`` hands it to its own parser).
    """

    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, TextIO], int]
    description: Optional[str] = None
    parser_options: dict[str, Any] = field(default_factory=dict)
    rest: bool = False


class Parser(argparse.ArgumentParser):
    """Raises instead of exiting, so that ``main(argv)`` returns the exit code; a usage error
    prints this (sub)command's usage, then the one ``error:`` line."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}", usage=self.format_usage())


class Failure(Exception):
    """A failure that ends the command with one ``error:`` line and its own exit code."""

    code = EXIT_FAILURE

    def __init__(self, message: str, *, code: Optional[int] = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class UsageError(Failure):
    """A user's mistake: one line on stderr (after ``usage`` when the parser found it), exit 2."""

    code = EXIT_USAGE

    def __init__(self, message: str, *, usage: Optional[str] = None) -> None:
        super().__init__(message)
        self.usage = usage


FORMATS = ("table", "json", "csv")

# The extras that bring what some commands need, as every message that needs them says.
CHARTS = "pip install 'opsapi[charts]'"
PROGRESS = "pip install 'opsapi[progress]'"

WINDOW_HELP = {
    "granularity": "ISO 8601 duration, e.g. PT1M",
    "period": "ISO 8601 duration, e.g. P1D",
}


def common(p: argparse.ArgumentParser) -> None:
    """``--profile`` after the command too (``opsapi alerts list --profile prod``).

    SUPPRESS as the default, so that a subcommand that is not given the flag keeps the value
    given before the command (argparse would otherwise overwrite it with the default).
    """
    p.add_argument(
        "--profile",
        default=argparse.SUPPRESS,
        metavar="NAME",
        help="profile of the config file (default: $OPSAPI_PROFILE, else OPSAPI_* variables, "
        "else the profile 'default')",
    )


def format_option(p: argparse.ArgumentParser, choices: Sequence[str] = ()) -> None:
    choices = tuple(choices) or FORMATS
    p.add_argument(
        "--output",
        "-o",
        "--format",
        dest="output",
        choices=choices,
        default=argparse.SUPPRESS,
        help="table (default), " + ", ".join(choices[1:]),
    )


def project_option(p: Any, *, repeat: bool = True, help: Optional[str] = None) -> None:
    """``--project PROJECT``, a name or an id (``args.projects``: a list; one value without
    ``repeat``)."""
    p.add_argument(
        "--project",
        dest="projects",
        action="append" if repeat else "store",
        metavar="PROJECT",
        help=help
        or (
            "a project, by name or id; repeat for several (default: every project the key can see)"
        ),
    )


def client(args: argparse.Namespace) -> Any:
    """The client of ``--profile``, ``$OPSAPI_PROFILE``, the environment or the profile
    ``default``, in that order (:func:`opsapi.config.chosen_profile`)."""
    import opsapi
    from opsapi import config

    name = config.chosen_profile(getattr(args, "profile", None))
    # Where the server came from: what a transport error says to check (see main).
    args.server_from = f"the profile {name!r}'s base_url" if name else "OPSAPI_BASE_URL"
    return opsapi.Client.from_profile(name) if name else opsapi.Client.from_env()


# A project id: 24 hexadecimal digits (Ops Manager, Cloud Manager and Atlas alike).
_ID = re.compile(r"[0-9a-fA-F]{24}")


def project_ids(client: Any, values: Optional[Sequence[str]], flag: str = "--project") -> Any:
    """The ids of the projects given by name or id (None stays None: every project). An id
    is taken as it is; a name is looked up among the projects the key can see (one request),
    and one that matches none, or several, is a usage error that lists them."""
    if values is None:
        return None
    if all(_ID.fullmatch(v) for v in values):
        return list(values)
    groups = _groups(client)
    out = []
    for v in values:
        if _ID.fullmatch(v):
            out.append(v)
            continue
        matches = [g for g in groups if g.name == v] or [
            g for g in groups if (g.name or "").lower() == v.lower()
        ]
        if len(matches) == 1:
            out.append(matches[0].id)
        elif matches:
            listed = ", ".join(f"{g.id} ({g.name})" for g in matches)
            raise UsageError(f"{flag} {v}: {len(matches)} projects have this name: {listed}; "
                             "give the id")  # fmt: skip
        else:
            raise UsageError(f"{flag} {v}: no project of this name or id; `opsapi projects` "
                             "lists those the key can see")  # fmt: skip
    return out


def _groups(client: Any) -> list[Any]:
    """Every project the key can see (what a name is looked up in)."""
    return list(client.groups.list())


def output_format(
    args: argparse.Namespace, default: str = "table", formats: Sequence[str] = FORMATS
) -> str:
    fmt = getattr(args, "output", None) or default
    if fmt not in formats:
        raise UsageError(f"--output: {fmt!r} is not one of {', '.join(formats)}")
    return fmt


def _json_default(v: Any) -> Any:
    if isinstance(v, datetime):
        return v.isoformat().replace("+00:00", "Z")
    return str(v)


def write_json(value: Any, out: TextIO, *, default: Any = _json_default) -> None:
    json.dump(value, out, indent=2, default=default)
    out.write("\n")


def csv_cell(v: Any) -> str:
    """A value as CSV holds it: ISO 8601 instants, whole floats without ``.0``."""
    if v is None:
        return ""
    if isinstance(v, datetime):
        return v.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def write_records(
    columns: Sequence[Column],
    rows: Sequence[dict[str, Any]],
    fmt: str,
    out: TextIO,
    *,
    count: Optional[str] = None,
) -> None:
    """Records (dicts by the columns' keys): JSON objects or CSV of every column, or a table
    for a person (fitted to the terminal, ``count`` on stderr)."""
    if fmt == "json":
        write_json([{c.key: r.get(c.key) for c in columns} for r in rows], out)
    elif fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow([c.key for c in columns])
        w.writerows([csv_cell(r.get(c.key)) for c in columns] for r in rows)
    else:
        write_table(columns, rows, out, count=count)


def write_models(
    models: Sequence[Any],
    fmt: str,
    out: TextIO,
    columns: Sequence[Column],
    row: Callable[[Any], dict[str, Any]],
    noun: str,
) -> int:
    """What a listing command prints: with ``--output json`` each model's JSON as the server
    sent it (``to_dict()``), else one row of ``columns`` per model (``row``), counted in
    ``noun``s."""
    if fmt == "json":
        write_json([m.to_dict() for m in models], out)
    else:
        rows = [row(m) for m in models]
        write_records(columns, rows, fmt, out, count=plural(len(rows), noun))
    return EXIT_OK


def exit_code(e: BaseException) -> int:
    """The exit code of one failure, raised (``main``) or returned (``acknowledge_many``)."""
    import opsapi

    if isinstance(e, (opsapi.AuthenticationError, opsapi.ForbiddenError)):
        return EXIT_AUTH
    if isinstance(e, opsapi.NotFoundError):
        return EXIT_NOT_FOUND
    if isinstance(e, opsapi.TransportError):
        return EXIT_TRANSPORT
    if isinstance(e, (opsapi.InvalidArgumentError, opsapi.ConfigError)):
        return EXIT_USAGE
    if isinstance(e, opsapi.OutputError):
        return EXIT_FAILURE
    return EXIT_API


def error_text(e: BaseException) -> str:
    """The text after ``error: `` (or ``error: ID: ``) of one failure: the API's
    ``errorCode: detail``, ``transport: ...``, the argument error, or the class and message of
    anything else (the server said something odd)."""
    import opsapi

    if isinstance(e, opsapi.ApiError):
        return api_message(e)
    if isinstance(e, opsapi.TransportError):
        return f"transport: {e}"
    if isinstance(e, (opsapi.InvalidArgumentError, opsapi.ConfigError, opsapi.OutputError)):
        return str(e)
    return f"{type(e).__name__}: {e}"


def api_message(e: Any) -> str:
    code = e.error_code or e.reason or f"HTTP {e.status}"
    return f"{code}: {e.detail}" if e.detail else str(code)


def text_only(args: argparse.Namespace, what: str) -> None:
    """``sim`` and ``completion`` print text: ``--output`` other than table is a usage error
    (one line, exit 2) rather than text where JSON was asked for."""
    fmt = getattr(args, "output", None)
    if fmt is not None and fmt != "table":
        raise UsageError(f"--output {fmt}: {what}; leave out --output")


def writable_file(path: str, flag: str) -> None:
    """A file the command will write: checked before any request, so that a mistyped path
    is one line (exit 2) instead of a traceback after a long pull."""
    if os.path.isdir(path):
        raise UsageError(f"{flag} {path}: is a folder; give a file name")
    _writable_parent(os.path.dirname(os.path.abspath(path)), path, flag)


def writable_folder(path: str, flag: str) -> None:
    """A folder the command will create (or fill): not a file, and inside one it can write."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UsageError(f"{flag} {path}: is a file, not a folder")
    parent = os.path.abspath(path)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    _writable_parent(parent, path, flag)


def _writable_parent(parent: str, path: str, flag: str) -> None:
    if not os.path.exists(parent):
        raise UsageError(f"{flag} {path}: the folder {parent} does not exist")
    if not os.path.isdir(parent):
        raise UsageError(f"{flag} {path}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"{flag} {path}: cannot write in {parent} (permission denied)")
