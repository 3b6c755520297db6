"""``python -m opsapi sim``: run the API simulator standalone until Ctrl-C."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Optional

from .testing import Simulator


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m opsapi")
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("sim", help="run the API simulator until Ctrl-C")
    sim.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    sim.add_argument("--bind", default="127.0.0.1", help="address to listen on")
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--projects", type=int, default=2)
    sim.add_argument("--hosts-per-project", type=int, default=5)
    sim.add_argument("--global-alerts", type=int, default=None)
    sim.add_argument("--latency", type=float, default=0.0, help="seconds added to each answer")
    sim.add_argument(
        "--tls",
        nargs="?",
        const="ca",
        default=None,
        choices=["ca", "self-signed"],
        help="serve HTTPS: certificate signed by an internal CA (ca, the default) or self-signed;"
        " prints OPSAPI_CA_FILE",
    )
    args = parser.parse_args(argv)

    kwargs = {}
    if args.global_alerts is not None:
        kwargs["global_alerts"] = args.global_alerts
    with Simulator(
        seed=args.seed,
        projects=args.projects,
        hosts_per_project=args.hosts_per_project,
        port=args.port,
        bind=args.bind,
        log_requests=False,
        tls=args.tls,
        **kwargs,
    ) as s:
        if args.latency:
            s.set_faults(latency=args.latency)
        print(f"OPSAPI_BASE_URL={s.base_url}")
        print(f"OPSAPI_PUBLIC_KEY={s.public_key}")
        print(f"OPSAPI_PRIVATE_KEY={s.private_key}")
        if s.ca_file is not None:
            print(f"OPSAPI_CA_FILE={s.ca_file}")
        print(f"# read-only key: {s.read_only_public_key} {s.read_only_private_key}")
        print(f"# projects: {' '.join(s.group_ids)}")
        print("# Ctrl-C to stop", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print("stopped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
