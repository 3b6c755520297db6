"""``opsapi sim`` and ``opsapi completion``: commands that print text and connect to no
server."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ._base import EXIT_OK, _common, _text_only


def _cmd_completion(args: argparse.Namespace, out: TextIO) -> int:
    from opsapi._completion import script

    _text_only(args, "opsapi completion prints a shell script, only as text")
    from . import _build_parser

    out.write(script(_build_parser(), args.shell))
    return EXIT_OK


def _cmd_sim(args: argparse.Namespace, argv: list[str]) -> int:
    """``opsapi [--profile P] [-o table] sim [flags]``: the simulator's own command line (Rust:
    the same parser, flags and output as the ``opsapi-sim`` binary), until Ctrl-C or SIGTERM.
    It connects to nothing, so a profile has nothing to choose; it prints text, so
    ``--output`` other than table is refused."""
    from opsapi import _native

    if not {"-h", "--help"} & set(argv):  # the simulator's help, whatever comes with it
        _text_only(
            args,
            "opsapi sim prints the address and keys as text (and OPSAPI_*= lines for a shell)",
        )
    try:
        return _native._sim_main(argv)
    except KeyboardInterrupt:  # the signal that stopped it, re-raised by Python on return
        return EXIT_OK


def add_sim_parser(top: Any) -> None:
    """``opsapi sim``: its flags go to the simulator's own (Rust) parser, as the opsapi-sim
    binary reads them: everything this parser does not know (parse_known_args), --help
    included. The global options are accepted after it too (never as prefixes: --port is the
    simulator's)."""
    sim = top.add_parser(
        "sim",
        help="run the API simulator until Ctrl-C (its flags: opsapi sim --help)",
        add_help=False,
        allow_abbrev=False,
    )
    sim.add_argument(
        "--output", "-o", default=argparse.SUPPRESS, metavar="FORMAT", help="table only: text"
    )
    _common(sim)


def add_completion_parser(top: Any) -> None:
    """``opsapi completion bash|zsh|fish``."""
    comp = top.add_parser(
        "completion",
        help="print a shell completion script",
        description="bash: source <(opsapi completion bash); zsh: opsapi completion zsh > "
        '"${fpath[1]}/_opsapi"; fish: opsapi completion fish > '
        "~/.config/fish/completions/opsapi.fish",
    )
    comp.add_argument("shell", choices=["bash", "zsh", "fish"])
    # Accepted after the command too, as everywhere; anything but table is refused when run.
    comp.add_argument(
        "--output",
        "-o",
        default=argparse.SUPPRESS,
        metavar="FORMAT",
        help="table only: the script is shell code",
    )
    _common(comp)
