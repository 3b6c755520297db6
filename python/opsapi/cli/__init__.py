"""``opsapi``: alert handling and measurement export from scripts.

Credentials come from a profile (``--profile NAME`` or ``$OPSAPI_PROFILE``, see ``opsapi
config init``), else from ``OPSAPI_BASE_URL``, ``OPSAPI_PUBLIC_KEY``, ``OPSAPI_PRIVATE_KEY`` (and
optionally ``OPSAPI_CA_FILE``) as for :meth:`opsapi.Client.from_env`, else from the profile
named ``default`` when the config file has one.

``--output json`` (``-o json``) on every command, before or after it, prints JSON for ``jq``;
``table`` and ``csv`` are the other formats. ``sim`` and ``completion`` print text (the
simulator's address and keys, a shell script): there ``--output`` other than ``table`` is
refused (exit 2), and ``--profile`` has nothing to choose (they connect to no server).

Exit codes a script can rely on:

====  =========================================================
0     success
2     usage error, invalid argument or missing configuration
3     not found (404)
4     authentication failed (401) or forbidden (403)
5     any other error answer from the API, or an undecodable one
6     transport: connect, TLS, timeout, reset
7     ``alerts ack``/``unack`` of several alerts: some succeeded, some failed; ``sync``:
      some targets failed (the others were stored; the next sync asks the failed again);
      ``store check``: some files are missing or damaged (each named on stdout)
====  =========================================================

On an API failure the one line on stderr is ``error: <errorCode>: <detail>``; ``alerts
ack``/``unack`` always end with a summary line (``acknowledged 5 of 6 alert(s), 1 failed``),
and want ``--yes`` to change more than 20 alerts, given as ids or matched by filters.

Example::

    $ opsapi alerts list --status OPEN --format csv > open.csv
    $ opsapi alerts ack 5b7c... --for 4h --comment "disk resize scheduled"
    $ opsapi alerts ack --event-type OUTSIDE_METRIC_THRESHOLD --replica-set rs0 --for 2h --dry-run
    $ opsapi alerts list --status OPEN --older-than 2h --format parquet --file open.parquet
    $ opsapi measurements host $GROUP $HOST --granularity PT1M --period P1D \\
          --metric CONNECTIONS --output conn.parquet
    $ opsapi --profile prod measurements fleet --disks --granularity PT1H --period P14D \\
          --output out/disks/            # hive-partitioned Parquet, a progress bar on a TTY
    $ opsapi capacity --window 14d             # what runs out first, where and when
    $ opsapi sync fleet-store --granularity PT1H --window P35D   # only what is new
    $ opsapi store info fleet-store
    $ opsapi store check fleet-store           # every file whole? (exit 7 names the bad ones)
    $ opsapi config init --profile prod        # asks; or every answer as a flag
    $ source <(opsapi completion bash)

One module per area (``alerts``, ``capacity``, ``measurements``, ``profiles``, ``store``,
``text``), each adding its commands to the one parser that ``_build_parser`` assembles, so
that completion and the tests read the whole command tree from one place; ``_base`` holds
what they share.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Optional, TextIO

from . import alerts, capacity, measurements, profiles, store, text
from ._base import (
    CONFIRM_ABOVE,
    EXIT_API,
    EXIT_AUTH,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_TRANSPORT,
    EXIT_USAGE,
    _error_text,
    _exit_code,
    _Parser,
    _UsageError,
)

__all__ = [
    "CONFIRM_ABOVE",
    "EXIT_API",
    "EXIT_AUTH",
    "EXIT_NOT_FOUND",
    "EXIT_OK",
    "EXIT_PARTIAL",
    "EXIT_TRANSPORT",
    "EXIT_USAGE",
    "main",
    "run",
]


def _build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="opsapi",
        description="Ops Manager public API from the command line (credentials from a profile "
        "or OPSAPI_*).",
    )
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
    top = p.add_subparsers(dest="area", required=True, parser_class=_Parser)
    alerts.add_parser(top)
    text.add_sim_parser(top)
    measurements.add_parser(top)
    capacity.add_parser(top)
    store.add_parser(top)
    profiles.add_parser(top)
    text.add_completion_parser(top)
    return p


def main(argv: Optional[Sequence[str]] = None, *, out: Optional[TextIO] = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``) and return the exit code.

    >>> main(["alerts", "list", "--status", "OPEN", "--format", "json"])  # doctest: +SKIP
    0
    """
    out = out if out is not None else sys.stdout
    argv = list(argv) if argv is not None else sys.argv[1:]
    parser = _build_parser()
    try:
        # Known args: whatever follows `sim` is the simulator's own flags (its Rust parser
        # reads them), after the global options that may come before any command.
        args, rest = parser.parse_known_args(argv)
        if rest and args.area != "sim":
            parser.error("unrecognized arguments: " + " ".join(rest))
    except _UsageError as e:
        print(e, file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as e:  # --help
        return int(e.code or 0)

    import opsapi

    commands = {
        "alerts": alerts._cmd_alerts,
        "measurements": measurements._cmd_measurements,
        "capacity": capacity._cmd_capacity,
        "sync": store._cmd_sync,
        "store": store._cmd_store,
        "config": profiles._cmd_config,
        "completion": text._cmd_completion,
        "sim": lambda args, out: text._cmd_sim(args, rest),
    }
    try:
        return commands[args.area](args, out)
    except _UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except opsapi.OpsApiError as e:  # one line; the exit code of its class (see _exit_code)
        print(f"error: {_error_text(e)}", file=sys.stderr)
        return _exit_code(e)
    except BrokenPipeError:
        return EXIT_OK


def run() -> None:
    """Console-script entry point: ``opsapi = "opsapi.cli:run"``."""
    sys.exit(main())
