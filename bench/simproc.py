"""The simulator in a process of its own, driven over stdin/stdout (one JSON line each way).

It runs apart from the orchestrator so that the variants, started by a small parent, do not
inherit its memory: Linux carries ``ru_maxrss`` across fork and exec, so a parent holding the
simulator's render cache would raise every child's reported peak to its own.

Commands: ``clear`` (empties the request log), ``count`` (requests, 401s, other errors since the
last clear), ``close``.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    from opsapi.testing import Simulator

    kwargs = json.loads(sys.argv[1])
    hosts = kwargs.pop("hosts")
    with Simulator(**kwargs) as sim:
        client = sim.client()
        targets = [(g, h.id) for g in sim.group_ids for h in client.hosts.list(g)][:hosts]
        out = {
            "base_url": sim.base_url,
            "public_key": sim.public_key,
            "private_key": sim.private_key,
            "targets": targets,
        }
        print(json.dumps(out), flush=True)
        for line in sys.stdin:
            cmd = line.strip()
            if cmd == "clear":
                sim.clear_requests()
                reply: object = "ok"
            elif cmd == "count":
                log = sim.requests()
                reply = {
                    "requests": len(log),
                    "challenges": sum(1 for e in log if e["status"] == 401),
                    "errors": sum(1 for e in log if e["status"] not in (200, 401)),
                }
            elif cmd == "close":
                break
            else:
                reply = {"error": f"unknown command {cmd!r}"}
            print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
