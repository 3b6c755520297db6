"""``opsapi completion bash|zsh|fish``: the shell's completion script, generated from the
whole command tree (:mod:`opsapi.cli._completion`)."""

from __future__ import annotations

import argparse
from typing import TextIO

from ._base import EXIT_OK, Command, common, text_only


def _arguments(comp: argparse.ArgumentParser) -> None:
    comp.add_argument("shell", choices=["bash", "zsh", "fish"], help="the shell")
    # Accepted after the command too, as everywhere; anything but table is refused when run.
    comp.add_argument(
        "--output",
        "-o",
        default=argparse.SUPPRESS,
        metavar="FORMAT",
        help="table only: the script is shell code",
    )
    common(comp)


def _run(args: argparse.Namespace, out: TextIO) -> int:
    from . import build_parser
    from ._completion import script

    text_only(args, "opsapi completion prints a shell script, only as text")
    out.write(script(build_parser(), args.shell))
    return EXIT_OK


COMPLETION = Command(
    arguments=_arguments,
    run=_run,
    description="bash: source <(opsapi completion bash); zsh: opsapi completion zsh > "
    '"${fpath[1]}/_opsapi"; fish: opsapi completion fish > '
    "~/.config/fish/completions/opsapi.fish",
)
