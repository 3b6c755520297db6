"""What every command shares: exit codes, the parser class, the global options, the
client from a profile or the environment, output formats and the one-line error text."""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Any, TextIO

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_AUTH = 4
EXIT_API = 5
EXIT_TRANSPORT = 6
EXIT_PARTIAL = 7
# Above this many matching alerts, ack/unack by filter needs --yes.
CONFIRM_ABOVE = 20


class _Parser(argparse.ArgumentParser):
    """Raises instead of exiting, so that ``main(argv)`` returns the exit code."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        self.print_usage(sys.stderr)
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


_FORMATS = ("table", "json", "csv")


_WINDOW_HELP = {
    "granularity": "ISO 8601 duration, e.g. PT1M",
    "period": "ISO 8601 duration, e.g. P1D",
}


def _common(p: argparse.ArgumentParser) -> None:
    """``--profile`` after the command too (``opsapi alerts list --profile prod``).

    SUPPRESS as the default, so that a subcommand that is not given the flag keeps the value
    given before the command (argparse would otherwise overwrite it with the default).
    """
    p.add_argument(
        "--profile",
        default=argparse.SUPPRESS,
        metavar="NAME",
        help="profile of the config file (default: $OPSAPI_PROFILE, else OPSAPI_* variables)",
    )


def _format_option(p: argparse.ArgumentParser, choices: Sequence[str] = ()) -> None:
    choices = tuple(choices) or _FORMATS
    p.add_argument(
        "--output",
        "-o",
        "--format",
        dest="output",
        choices=choices,
        default=argparse.SUPPRESS,
        help="table (default), " + ", ".join(choices[1:]),
    )


def _client(args: argparse.Namespace) -> Any:
    import opsapi
    from opsapi import config

    name = getattr(args, "profile", None) or os.environ.get(config.PROFILE_ENV)
    if name:
        return opsapi.Client.from_profile(name)
    if os.environ.get("OPSAPI_BASE_URL") or os.environ.get("OPSAPI_CLIENT_ID"):
        return opsapi.Client.from_env()
    if config.DEFAULT_PROFILE in config.load_profiles():
        return opsapi.Client.from_profile(config.DEFAULT_PROFILE)
    try:
        return opsapi.Client.from_env()
    except opsapi.ConfigError as e:
        raise opsapi.ConfigError(
            f"{e} (or create a profile: opsapi config init --profile default)"
        ) from None


def _format(
    args: argparse.Namespace, default: str = "table", formats: Sequence[str] = _FORMATS
) -> str:
    fmt = getattr(args, "output", None) or default
    if fmt not in formats:
        raise _UsageError(f"--output: {fmt!r} is not one of {', '.join(formats)}")
    return fmt


def _json_default(v: Any) -> Any:
    if isinstance(v, datetime):
        return v.isoformat().replace("+00:00", "Z")
    return str(v)


def _write_json(value: Any, out: TextIO, *, default: Any = _json_default) -> None:
    json.dump(value, out, indent=2, default=default)
    out.write("\n")


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, datetime):
        return v.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _write_table(frame: Any, out: TextIO) -> None:
    """Plain aligned columns (no box drawing), one row per line: easy to grep and cut."""
    header = [c.upper() for c in frame.columns]
    rows = [[_cell(v) for v in row] for row in frame.iter_rows()]
    _write_rows(header, rows, out)


def _write_rows(header: list[str], rows: list[list[str]], out: TextIO) -> None:
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    for line in [header, *rows]:
        out.write("  ".join(s.ljust(w) for s, w in zip(line, widths)).rstrip() + "\n")


def _write_records(header: list[str], rows: list[list[Any]], fmt: str, out: TextIO) -> None:
    """Small results that are not frames (profiles): a table, JSON objects or CSV."""
    if fmt == "json":
        _write_json([dict(zip(header, r)) for r in rows], out)
    elif fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(header)
        w.writerows([_cell(v) for v in r] for r in rows)
    else:
        _write_rows([h.upper() for h in header], [[_cell(v) for v in r] for r in rows], out)


def _exit_code(e: Exception) -> int:
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
    return EXIT_API


def _error_text(e: Exception) -> str:
    """The text after ``error: `` (or ``error: ID: ``) of one failure: the API's
    ``errorCode: detail``, ``transport: ...``, the argument error, or the class and message of
    anything else (the server said something odd)."""
    import opsapi

    if isinstance(e, opsapi.ApiError):
        return _api_message(e)
    if isinstance(e, opsapi.TransportError):
        return f"transport: {e}"
    if isinstance(e, (opsapi.InvalidArgumentError, opsapi.ConfigError)):
        return str(e)
    return f"{type(e).__name__}: {e}"


def _api_message(e: Any) -> str:
    code = e.error_code or e.reason or f"HTTP {e.status}"
    return f"{code}: {e.detail}" if e.detail else str(code)


def _text_only(args: argparse.Namespace, what: str) -> None:
    """``sim`` and ``completion`` print text: ``--output`` other than table is a usage error
    (one line, exit 2) rather than text where JSON was asked for."""
    fmt = getattr(args, "output", None)
    if fmt is not None and fmt != "table":
        raise _UsageError(f"--output {fmt}: {what}; leave out --output")
