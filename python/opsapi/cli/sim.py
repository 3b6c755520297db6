"""``opsapi sim``: the API simulator until Ctrl-C, with the flags, help and output of the Rust
``opsapi-sim`` binary (one parser for both, ``src/sim/cli.rs``). It connects to no server and
prints text."""

from __future__ import annotations

import argparse

from ._base import EXIT_OK, Command, common, text_only


def _arguments(sim: argparse.ArgumentParser) -> None:
    """Its flags go to the simulator's own (Rust) parser, as the opsapi-sim binary reads them:
    everything this parser does not know (``args.rest``), --help included. The global options
    are accepted after it too (never as prefixes: --port is the simulator's)."""
    sim.add_argument(
        "--output", "-o", default=argparse.SUPPRESS, metavar="FORMAT", help="table only: text"
    )
    common(sim)


def _run(args: argparse.Namespace, out: object) -> int:
    """``opsapi [--profile P] [-o table] sim [flags]``: the simulator's own command line until
    Ctrl-C or SIGTERM. A profile has nothing to choose; ``--output`` other than table is
    refused."""
    from opsapi import _native

    argv = list(args.rest)
    if not {"-h", "--help"} & set(argv):  # the simulator's help, whatever comes with it
        text_only(
            args,
            "opsapi sim prints the address and keys as text (and OPSAPI_*= lines for a shell)",
        )
    try:
        return int(_native._sim_main(argv))
    except KeyboardInterrupt:  # the signal that stopped it, re-raised by Python on return
        return EXIT_OK


SIM = Command(
    arguments=_arguments,
    run=_run,  # type: ignore[arg-type]
    description="Runs the API simulator (a seeded world of projects, hosts, alerts and "
    "measurements) until Ctrl-C; its flags and their descriptions: opsapi sim --help.",
    parser_options={"add_help": False, "allow_abbrev": False},
    rest=True,
)
