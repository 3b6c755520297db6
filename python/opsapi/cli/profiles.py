"""``opsapi config``: profiles (connection settings by name) in the config file."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Optional, TextIO

from ._base import (
    EXIT_OK,
    _common,
    _format,
    _format_option,
    _Parser,
    _UsageError,
    _write_json,
    _write_records,
)


def _ask(prompt: str, default: Optional[str] = None) -> str:
    shown = f"{prompt} [{default}]: " if default else f"{prompt}: "
    try:
        answer = input(shown).strip()
    except EOFError:
        raise _UsageError(f"no answer for {prompt!r}") from None
    return answer or (default or "")


def _read_secret(args: argparse.Namespace, interactive: bool) -> str:
    if args.private_key_stdin:
        key = sys.stdin.readline().strip()
    elif interactive:
        import getpass

        key = getpass.getpass("private key (not shown): ").strip()
    else:
        raise _UsageError("the private key to store: pass --private-key-stdin and pipe it in")
    if not key:
        raise _UsageError("the private key is empty")
    return key


def _cmd_config(args: argparse.Namespace, out: TextIO) -> int:
    from opsapi import config

    fmt = _format(args)
    if args.command == "list":
        file = config.config_path()
        profiles = config.load_profiles(file)
        header = ["name", "base_url", "public_key", "private_key", "file", "flavour", "client_id"]
        rows = [
            [
                p.name,
                p.base_url,
                p.public_key,
                p.key_source,
                str(file),
                p.flavour or ("atlas" if p.client_id else None),
                p.client_id,
            ]
            for p in profiles.values()
        ]
        _write_records(header, rows, fmt, out)
        if not profiles and fmt == "table":
            print(f"no profiles in {file}; add one with: opsapi config init", file=sys.stderr)
        return EXIT_OK

    name = config.profile_name(getattr(args, "profile", None))
    if name in config.load_profiles() and not args.force:
        raise _UsageError(f"profile {name!r} exists in {config.config_path()}; pass --force")
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
            env = _ask("environment variable", f"OPSAPI_{name.upper()}_PRIVATE_KEY")
        elif choice.startswith("f"):
            file_ = _ask("file (mode 0600)", str(config.config_path().parent / f"{name}.key"))
        elif choice.startswith("k"):
            keyring = True
        else:
            raise _UsageError(f"{choice!r}: answer env, file or keyring")
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
        raise _UsageError("config init: missing " + "; ".join(missing))
    if args.private_key_stdin and not (file_ or keyring):
        raise _UsageError("--private-key-stdin: give --private-key-file or --keyring to store it")
    if env and os.environ.get(env) is None:
        print(f"note: {env} is not set in this shell", file=sys.stderr)
    if file_:
        file_ = str(os.path.abspath(os.path.expanduser(file_)))
        if args.private_key_stdin or (interactive and not os.path.exists(file_)):
            config.write_private_key_file(file_, _read_secret(args, interactive), force=args.force)
    options: dict[str, Any] = {}
    if args.ca_file:
        options["ca_file"] = str(os.path.abspath(os.path.expanduser(args.ca_file)))
    if args.timeout is not None:
        options["timeout"] = args.timeout
    if args.client_id and public_key:
        raise _UsageError("config init: give --public-key or --client-id, not both")
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
        header = ["name", "base_url", "public_key", "private_key", "file"]
        row = [name, base_url, public_key, profile.key_source, str(written)]
        if fmt == "json":
            _write_json(dict(zip(header, row)), out)
        else:
            _write_records(header, [row], fmt, out)
    return EXIT_OK


def add_parser(top: Any) -> None:
    """``opsapi config init|list``."""
    cfg = top.add_parser("config", help="profiles: connection settings by name")
    c = cfg.add_subparsers(dest="command", required=True, parser_class=_Parser)
    init = c.add_parser(
        "init",
        help="add a profile (asks for what the flags do not give)",
        description="Writes a profile into the config file ($OPSAPI_CONFIG or the platform's "
        "config folder). The private key is never written there: it comes from an environment "
        "variable, a file with mode 0600, or the system keyring.",
    )
    init.add_argument("--base-url", help="not needed for Atlas (https://cloud.mongodb.com)")
    init.add_argument("--public-key")
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
    init.add_argument("--timeout", type=float, metavar="SECONDS")
    init.add_argument("--force", action="store_true", help="replace an existing profile")
    init.add_argument(
        "--no-input", action="store_true", help="never ask (also when stdin is not a terminal)"
    )
    lsp = c.add_parser("list", help="profiles of the config file (never the private key)")
    for sp in (init, lsp):
        _format_option(sp)
        _common(sp)
