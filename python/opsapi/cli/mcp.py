"""``opsapi mcp``: the Model Context Protocol server (:mod:`opsapi.mcp`), on stdio, or with
``--http 127.0.0.1:PORT`` over streamable HTTP on loopback.

Credentials as every command takes them (``--profile``, ``OPSAPI_*``, a profile's keyring
key). ``--store PATH`` reads a measurement store for headroom and histories. Read-only unless
``--allow-writes``, which adds ``acknowledge_alert`` (acting only after the person confirms
through the client, for at most ``--max-ack``). ``--http`` on an address other than loopback
needs ``--allow-remote`` and a bearer token in ``OPSAPI_MCP_TOKEN`` (32 characters or more),
checked on every request. Everything is checked before the server starts: a mistake is one
line on stderr and exit 2 (a store that is not one: exit 3).

Example::

    $ opsapi mcp --store fleet-store                # stdio: what a client starts
    $ opsapi --profile prod mcp --http 127.0.0.1:8765
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import timedelta
from typing import Optional, TextIO

from ._base import EXIT_OK, EXIT_USAGE, Command, Failure, UsageError, client, common, text_only

_DESCRIPTION = (
    "Serves opsapi's answers to an assistant over the Model Context Protocol: stdio by "
    "default (what a client such as Claude Desktop or an editor starts), or streamable HTTP "
    "on loopback with --http. Read-only tools: store_status, what_runs_out_first, "
    "resource_history, list_alerts, explain_alert, alert_noise, oversized; --allow-writes "
    "adds acknowledge_alert, which acts only after the person confirms through the client. "
    "Needs pip install 'opsapi[mcp]' (CPython 3.10 or later)."
)


# Its options: (flags, argparse's keywords).
_OPTIONS = [
    (("--output", "-o"), {"default": argparse.SUPPRESS, "metavar": "FORMAT",
                          "help": "table only (no table: the server speaks MCP)"}),
    (("--store",), {"metavar": "PATH", "help": "a measurement store (opsapi sync PATH fills "
                    "it): headroom and histories read it (default: pulled from the API)"}),
    (("--http",), {"metavar": "HOST:PORT", "help": "streamable HTTP at http://HOST:PORT/mcp "
                   "instead of stdio; loopback only (127.0.0.1:PORT, [::1]:PORT; port 0 takes "
                   "a free one, said on stderr)"}),
    (("--allow-remote",), {"action": "store_true", "help": "let --http listen on another "
                           "address; every request must then carry the bearer token in "
                           "$OPSAPI_MCP_TOKEN"}),
    (("--allow-writes",), {"action": "store_true", "help": "add acknowledge_alert (it asks "
                           "the person through the client before it acts)"}),
    (("--max-ack",), {"default": "P7D", "metavar": "DURATION", "help": "the longest "
                      "acknowledgement acknowledge_alert sends (default P7D)"}),
    (("--window",), {"default": "14d", "metavar": "DURATION",
                     "help": "how far back headroom looks (default 14d)"}),
    (("--granularity",), {"default": "PT1H", "metavar": "DURATION",
                          "help": "the granularity headroom reads (default PT1H)"}),
]  # fmt: skip


def _arguments(p: argparse.ArgumentParser) -> None:
    common(p)
    for flags, options in _OPTIONS:
        p.add_argument(*flags, **options)  # type: ignore[arg-type]


def _run(args: argparse.Namespace, out: TextIO) -> int:
    from opsapi._duration import parse_duration

    text_only(args, "opsapi mcp speaks MCP (on stdio, or over --http)")
    http = None
    token = None
    if args.http is not None:
        from opsapi.mcp._http import MIN_TOKEN, TOKEN_ENV, address, loopback

        try:
            http = address(args.http)
        except ValueError as e:
            raise UsageError(f"--http: {e}") from None
        token = os.environ.get(TOKEN_ENV) or None
        if not loopback(http[0]):
            if not args.allow_remote:
                raise UsageError(
                    f"--http {args.http}: not a loopback address; --allow-remote (with a "
                    f"bearer token in ${TOKEN_ENV}) serves past it"
                )
            if token is None or len(token) < MIN_TOKEN:
                raise UsageError(f"--allow-remote: ${TOKEN_ENV} must hold a bearer token of "
                                 f"{MIN_TOKEN} characters or more")  # fmt: skip
    elif args.allow_remote:
        raise UsageError("--allow-remote: only with --http")
    max_ack = parse_duration(args.max_ack)
    if max_ack <= timedelta(0):
        raise UsageError(f"--max-ack: {args.max_ack} is not a positive duration")
    for flag in ("window", "granularity"):
        parse_duration(getattr(args, flag))
    if args.store is not None:
        from .store import _store_at

        _store_at(args.store)
    return serve(args, http, token, max_ack)


def serve(
    args: argparse.Namespace, http: Optional[tuple[str, int]], token: Optional[str],
    max_ack: timedelta,
) -> int:  # fmt: skip
    """The server, once every option is checked: the SDK imported (or what to install said),
    the client built as every command builds it, until the client leaves (stdio) or Ctrl-C."""
    try:
        from opsapi.mcp import _fleet, _server
    except ImportError as e:
        from opsapi.mcp import NEEDS

        raise Failure(f"{NEEDS} ({e})", code=EXIT_USAGE) from None
    settings = _fleet.Settings(
        store=args.store,
        granularity=args.granularity,
        window=args.window,
        allow_writes=args.allow_writes,
        max_ack=max_ack,
    )
    fleet = _fleet.Fleet(client(args), settings)
    server = _server.build_server(fleet)
    fleet.start()
    try:
        if http is None:
            server.run("stdio")
        else:
            from opsapi.mcp._http import serve_http

            serve_http(server, *http, token, lambda line: print(line, file=sys.stderr,
                                                                 flush=True))  # fmt: skip
    finally:
        fleet.close()
    return EXIT_OK


MCP = Command(arguments=_arguments, run=_run, description=_DESCRIPTION)
