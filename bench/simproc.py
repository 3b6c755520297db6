"""The simulator in a process of its own, driven over stdin/stdout (one JSON line each way).

It runs apart from the orchestrator so that the variants, started by a small parent, do not
inherit its memory: Linux carries ``ru_maxrss`` across fork and exec, so a parent holding the
simulator's render cache would raise every child's reported peak to its own.

Commands: ``clear`` (empties the request log), ``count`` (requests, 401s, other errors since the
last clear), ``stats`` (requests since the last clear by method, by status and by the fault that
struck them), ``faults {...}`` (``sim.set_faults(**json)``; ``faults {}`` clears them),
``rate_limit X`` (``sim.set_rate_limit(X)``, buckets full again; ``null``: none), ``close``.
"""

from __future__ import annotations

import collections
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
            elif cmd == "stats":
                log = sim.requests()
                count = collections.Counter
                reply = {
                    "requests": len(log),
                    "by_method": dict(count(e["method"] for e in log)),
                    "by_status": {str(k): v for k, v in count(e["status"] for e in log).items()},
                    "faults": dict(count(f for e in log for f in e["faults"])),
                }
            elif cmd.startswith("rate_limit "):
                # Also refills every project's bucket: each run starts from the same state.
                sim.set_rate_limit(json.loads(cmd[len("rate_limit ") :]))
                reply = "ok"
            elif cmd.startswith("faults "):
                sim.set_faults(**json.loads(cmd[len("faults ") :]))
                reply = "ok"
            elif cmd == "close":
                break
            else:
                reply = {"error": f"unknown command {cmd!r}"}
            print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
