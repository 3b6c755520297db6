"""``opsapi config init|list``: profiles (connection settings by name) in the config file
(:mod:`opsapi.config`: where it is, what a profile holds, the precedence)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any, Optional, TextIO

from ._base import (
    EXIT_OK,
    Command,
    Parser,
    UsageError,
    common,
    format_option,
    output_format,
    write_json,
    write_records,
)
from ._table import Column, plural

# `config list`: one row per profile (the file is the count line's).
_LIST = [
    Column("name", "Profile", keep=9),
    Column("flavour", "Flavour", keep=3),
    Column("base_url", "Server", keep=5, wrap=True, narrow=20),
    Column("public_key", "Public key", keep=4),
    Column("client_id", "Client id", keep=2),
    Column("private_key", "Secret from", keep=6, wrap=True, narrow=16),
    Column("file", "File", keep=-1),
]


def _ask(prompt: str, default: Optional[str] = None) -> str:
    shown = f"{prompt} [{default}]: " if default else f"{prompt}: "
    try:
        answer = input(shown).strip()
    except EOFError:
        raise UsageError(f"no answer for {prompt!r}") from None
    return answer or (default or "")


def _read_secret(args: argparse.Namespace, interactive: bool) -> str:
    if args.private_key_stdin:
        key = sys.stdin.readline().strip()
    elif interactive:
        import getpass

        key = getpass.getpass("private key (not shown): ").strip()
    else:
        raise UsageError("the private key to store: pass --private-key-stdin and pipe it in")
    if not key:
        raise UsageError("the private key is empty")
    return key


def _run(args: argparse.Namespace, out: TextIO) -> int:
    from opsapi import config

    fmt = output_format(args)
    if args.command == "list":
        file = config.config_path()
        profiles = config.load_profiles(file)
        rows = [
            {
                "name": p.name,
                "base_url": p.base_url,
                "public_key": p.public_key,
                "private_key": p.key_source,
                "file": str(file),
                "flavour": p.flavour or ("atlas" if p.client_id else None),
                "client_id": p.client_id,
            }
            for p in profiles.values()
        ]
        # The file is the same on every row: the table says it once, in the count line.
        columns = _LIST if fmt != "table" else _LIST[:-1]
        if not profiles and fmt == "table":
            print(f"no profiles in {file}; add one with: opsapi config init", file=sys.stderr)
            return EXIT_OK
        count = f"{plural(len(rows), 'profile')} in {file}"
        write_records(columns, rows, fmt, out, count=count)
        return EXIT_OK

    name = config.profile_name(getattr(args, "profile", None))
    if name in config.load_profiles() and not args.force:
        raise UsageError(f"profile {name!r} exists in {config.config_path()}; pass --force")
    interactive = not args.no_input and not args.private_key_stdin and sys.stdin.isatty()
    # Atlas needs no base URL (https://cloud.mongodb.com), and a service account no public key.
    atlas = args.flavour == "atlas" or bool(args.client_id)
    base_url = args.base_url or (
        _ask("base URL (https://host:port)") if interactive and not atlas else ""
    )
    public_key = args.public_key or (
        _ask("public key") if interactive and not args.client_id else ""
    )
    env, file_, keyring = args.private_key_env, args.private_key_file, args.keyring
    if not (env or file_ or keyring) and interactive:
        choice = _ask("private key from an environment variable, a file or the keyring", "env")
        if choice.startswith("e"):
            default_env = re.sub(r"[^A-Za-z0-9_]", "_", f"OPSAPI_{name.upper()}_PRIVATE_KEY")
            env = _ask("environment variable", default_env)
        elif choice.startswith("f"):
            file_ = _ask("file (mode 0600)", str(config.config_path().parent / f"{name}.key"))
        elif choice.startswith("k"):
            keyring = True
        else:
            raise UsageError(f"{choice!r}: answer env, file or keyring")
    missing = [
        flag
        for flag, given in (
            ("--base-url", base_url or atlas),
            ("--public-key", public_key or args.client_id),
            ("--private-key-env, --private-key-file or --keyring", env or file_ or keyring),
        )
        if not given
    ]
    if missing:
        raise UsageError("config init: missing " + "; ".join(missing))
    if args.private_key_stdin and not (file_ or keyring):
        raise UsageError("--private-key-stdin: give --private-key-file or --keyring to store it")
    if args.client_id and public_key:
        raise UsageError("config init: give --public-key or --client-id, not both")
    if file_:
        file_ = str(os.path.abspath(os.path.expanduser(file_)))
    options: dict[str, Any] = {}
    if args.ca_file:
        options["ca_file"] = str(os.path.abspath(os.path.expanduser(args.ca_file)))
    if args.timeout is not None:
        options["timeout"] = args.timeout
    # The profile first: it refuses a --private-key-env that is no variable's name (a pasted
    # key) before anything repeats it or writes it anywhere.
    profile = config.Profile(
        name=name,
        base_url=base_url or None,
        public_key=public_key or None,
        private_key_env=env,
        private_key_file=file_,
        private_key_keyring=bool(keyring),
        options=options,
        client_id=args.client_id,
        flavour=args.flavour,
    )
    if env and os.environ.get(env) is None:
        print(f"note: {env} is not set in this shell", file=sys.stderr)
    if file_ and (args.private_key_stdin or (interactive and not os.path.exists(file_))):
        config.write_private_key_file(file_, _read_secret(args, interactive), force=args.force)
    if file_:
        profile.private_key()  # a missing or readable-by-others file is refused now, not later
    if keyring:
        config.store_in_keyring(name, _read_secret(args, interactive))
    written = config.write_profile(profile, force=args.force)
    if fmt == "table":
        print(
            f"wrote profile {name!r} to {written} ({profile.secret_name}: {profile.key_source})",
            file=sys.stderr,
        )
    else:
        row = {
            "name": name,
            "base_url": base_url,
            "public_key": public_key,
            "private_key": profile.key_source,
            "file": str(written),
        }
        if fmt == "json":
            write_json(row, out)
        else:
            write_records([c for c in _LIST if c.key in row], [row], fmt, out)
    return EXIT_OK


def _arguments(cfg: argparse.ArgumentParser) -> None:
    """``opsapi config init|list``."""
    c = cfg.add_subparsers(dest="command", required=True, parser_class=Parser)
    init = c.add_parser(
        "init",
        help="add a profile (asks for what the flags do not give)",
        description="Writes a profile into the config file ($OPSAPI_CONFIG or the platform's "
        "config folder). The private key is never written there: it comes from an environment "
        "variable, a file with mode 0600, or the system keyring.",
    )
    init.add_argument("--base-url", help="not needed for Atlas (https://cloud.mongodb.com)")
    init.add_argument("--public-key", help="the API key's public part (the private part: below)")
    init.add_argument(
        "--flavour",
        choices=("ops-manager", "cloud-manager", "atlas"),
        help="the server (default: the base URL's)",
    )
    init.add_argument(
        "--client-id", metavar="ID", help="an Atlas service account instead of an API key"
    )
    src = init.add_mutually_exclusive_group()
    src.add_argument(
        "--private-key-env",
        "--client-secret-env",
        dest="private_key_env",
        metavar="NAME",
        help="environment variable of the key (of the client secret, with --client-id)",
    )
    src.add_argument(
        "--private-key-file",
        "--client-secret-file",
        dest="private_key_file",
        metavar="PATH",
        help="file holding the key or client secret (mode 0600)",
    )
    src.add_argument(
        "--keyring", action="store_true", help="the key or client secret in the system keyring"
    )
    init.add_argument(
        "--private-key-stdin",
        action="store_true",
        help="read the key from stdin and store it in --private-key-file (0600) or --keyring",
    )
    init.add_argument("--ca-file", metavar="PATH", help="PEM bundle for a self-signed server")
    init.add_argument("--timeout", type=float, metavar="SECONDS", help="per request")
    init.add_argument("--force", action="store_true", help="replace an existing profile")
    init.add_argument(
        "--no-input", action="store_true", help="never ask (also when stdin is not a terminal)"
    )
    lsp = c.add_parser("list", help="profiles of the config file (never the private key)")
    for sp in (init, lsp):
        format_option(sp)
        common(sp)


CONFIG = Command(arguments=_arguments, run=_run)
