"""Soak (issue 12): many calls, shared clients, standing faults and short-lived nonces.

One ``opsapi.Client`` shared by 8 threads and one ``opsapi.AsyncClient`` shared by 8 asyncio
tasks run at the same time against the simulator (in a process of its own, bench/simproc.py, so
that this process's memory is the clients'), whose nonces live 1 s and whose standing faults
strike 1 % of requests (503, reset, 429, cut body; ``Retry-After: 0``). The calls are a seeded
mix of GET operations and a few acknowledges (PATCH, which the documented rules do not retry
after a fault that may have reached the server: their failures are expected and reported apart).

Reports calls, failed GETs (the target is 0), failed acknowledges by class, HTTP requests per
call (the simulator's log), 401s, faults struck, latency, RSS after a warm-up and at the end
(VmRSS from /proc/self/status) and wall time, as a markdown table. Not a test.

    python bench/soak.py [--calls 10000] [--threads 8] [--tasks 8] [--fault-rate 0.01]
                         [--out bench/SOAK.md] [--results bench/RESULTS.md]

``--results`` puts the table into that file as its "Soak" section (replacing an older one,
leaving the rest as it is).
"""

from __future__ import annotations

import argparse
import array
import asyncio
import collections
import gc
import json
import random
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import SimProcess, machine  # noqa: E402

import opsapi  # noqa: E402

# The standing faults, as shares of the fault rate (1 % in all by default): retried for GET.
FAULT_SHARES = {"rate_503": 0.3, "rate_reset": 0.3, "rate_429": 0.2, "rate_truncate": 0.2}
ACK_SHARE = 0.01  # acknowledges among the calls
WARMUP = 400  # calls before RSS is read at the start (no faults)
WINDOW = {"granularity": "PT1H", "period": "P1D"}


def rss_mb(field: str = "VmRSS") -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


class World:
    """Identifiers found through the API itself."""

    def __init__(self, client: opsapi.Client) -> None:
        self.groups = [g.id for g in client.groups.list()]
        self.hosts: list[tuple[str, str]] = []
        self.disks: list[tuple[str, str, str]] = []
        self.databases: list[tuple[str, str, str]] = []
        self.configs: list[tuple[str, str]] = []
        self.events: list[tuple[str, str]] = []
        for g in self.groups:
            for h in client.hosts.list(g):
                self.hosts.append((g, h.id))
                self.disks += [(g, h.id, p) for p in client.hosts.partitions(g, h.id)]
                self.databases += [(g, h.id, d) for d in client.hosts.databases(g, h.id)]
            self.events += [(g, e.id) for e in list(client.events.list(g))[:50]]
        open_alerts = client.global_alerts.list(status="OPEN")
        self.alerts = [a.id for a in client.global_alerts.list()]
        self.open_alerts = [a.id for a in open_alerts]
        self.configs = sorted({(a.group_id, a.alert_config_id) for a in open_alerts})


# name -> (is GET, call(client, world, rng)); iter is drained by the runner.
Call = Callable[[Any, World, random.Random], Any]
GETS: dict[str, Call] = {
    "groups.list": lambda c, w, r: c.groups.list(),
    "global_alerts.list": lambda c, w, r: c.global_alerts.list(status="OPEN"),
    "global_alerts.iter": lambda c, w, r: c.global_alerts.iter(),
    "global_alerts.get": lambda c, w, r: c.global_alerts.get(r.choice(w.alerts)),
    "alert_configs.open_alerts": lambda c, w, r: c.alert_configs.open_alerts(*r.choice(w.configs)),
    "hosts.list": lambda c, w, r: c.hosts.list(r.choice(w.groups)),
    "hosts.get": lambda c, w, r: c.hosts.get(*r.choice(w.hosts)),
    "hosts.databases": lambda c, w, r: c.hosts.databases(*r.choice(w.hosts)),
    "measurements.host": lambda c, w, r: c.measurements.host(
        *r.choice(w.hosts), metrics=["CONNECTIONS", "OPCOUNTER_CMD"], **WINDOW
    ),
    "measurements.disk": lambda c, w, r: c.measurements.disk(*r.choice(w.disks), **WINDOW),
    "measurements.database": lambda c, w, r: c.measurements.database(
        *r.choice(w.databases), **WINDOW
    ),
    "events.get": lambda c, w, r: c.events.get(*r.choice(w.events)),
}
ACK = "global_alerts.acknowledge"


def _ack(c: Any, w: World, r: random.Random) -> Any:
    return c.global_alerts.acknowledge(
        r.choice(w.open_alerts), duration="PT1H", comment=f"soak {r.random():.6f}"
    )


def schedule(n: int, seed: int) -> list[str]:
    """The operations of the calls, in order: a seeded mix, ``ACK_SHARE`` acknowledges."""
    r = random.Random(seed)
    names = list(GETS)
    return [ACK if r.random() < ACK_SHARE else r.choice(names) for _ in range(n)]


class Soak:
    """Hands out the calls of a schedule to threads and tasks, and tallies each outcome in a
    few bytes (counters, and two arrays of doubles), so that the harness's own memory does not
    grow with the calls and RSS is the clients'."""

    def __init__(self, ops: list[str], world: World, seed: int) -> None:
        self.ops = ops
        self.world = world
        self.seed = seed
        self.next = 0
        self.lock = threading.Lock()
        # (GET or ACK, "sync" or "async", error class name or "") -> calls
        self.counts: collections.Counter[tuple[str, str, str]] = collections.Counter()
        self.get_seconds = array.array("d")  # each GET's latency
        self.finished = array.array("d")  # when each call ended (perf_counter)
        self.slow: collections.Counter[str] = collections.Counter()  # GETs over 1 s, by op
        self.failed_gets: list[str] = []  # the first few, for the report
        self.rss: list[float] = []  # RSS at each tenth of the calls
        self.started = time.perf_counter()

    @property
    def done(self) -> int:
        return len(self.finished)

    def take(self) -> int | None:
        with self.lock:
            if self.next >= len(self.ops):
                return None
            self.next += 1
            return self.next - 1

    def record(self, op: str, mode: str, error: BaseException | None, seconds: float) -> None:
        kind = "ACK" if op == ACK else "GET"
        name = type(error).__name__ if error is not None else ""
        with self.lock:
            self.counts[kind, mode, name] += 1
            self.finished.append(time.perf_counter())
            if len(self.finished) % max(1, len(self.ops) // 10) == 0:
                self.rss.append(rss_mb())
            if kind == "GET":
                self.get_seconds.append(seconds)
                if seconds > 1.0:
                    self.slow[op] += 1
                if error is not None and len(self.failed_gets) < 5:
                    self.failed_gets.append(f"`{op}` ({mode}): {name}: {str(error)[:300]}")

    def failures(self, kind: str) -> collections.Counter[str]:
        out: collections.Counter[str] = collections.Counter()
        for (k, _, name), n in self.counts.items():
            if k == kind and name:
                out[name] += n
        return out

    def calls(self, kind: str | None = None, mode: str | None = None) -> int:
        return sum(
            n
            for (k, m, _), n in self.counts.items()
            if (kind is None or k == kind) and (mode is None or m == mode)
        )

    def call_for(self, i: int) -> tuple[str, Call, random.Random]:
        op = self.ops[i]
        return op, (_ack if op == ACK else GETS[op]), random.Random(self.seed * 1_000_003 + i)

    def thread(self, client: opsapi.Client) -> None:
        while (i := self.take()) is not None:
            op, call, r = self.call_for(i)
            started = time.perf_counter()
            error = None
            try:
                result = call(client, self.world, r)
                if op == "global_alerts.iter":
                    result = list(result)
            except Exception as e:
                error = e
            self.record(op, "sync", error, time.perf_counter() - started)

    async def task(self, client: opsapi.AsyncClient) -> None:
        while (i := self.take()) is not None:
            op, call, r = self.call_for(i)
            started = time.perf_counter()
            error = None
            try:
                if op == "global_alerts.iter":
                    [a async for a in call(client, self.world, r)]
                else:
                    await call(client, self.world, r)
            except Exception as e:
                error = e
            self.record(op, "async", error, time.perf_counter() - started)

    def run(self, client: opsapi.Client, aclient: opsapi.AsyncClient, threads: int, tasks: int):
        self.started = time.perf_counter()
        workers = [threading.Thread(target=self.thread, args=(client,)) for _ in range(threads)]
        for w in workers:
            w.start()

        async def tasks_main() -> None:
            await asyncio.gather(*(self.task(aclient) for _ in range(tasks)))

        asyncio.run(tasks_main())
        for w in workers:
            w.join()


def percentile(xs: Any, p: float) -> float:
    if not len(xs):
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def by_class(n: collections.Counter[str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in n.most_common()) or "none"


def render(args: argparse.Namespace, m: dict[str, str], r: dict[str, Any]) -> str:
    soak: Soak = r["soak"]
    stats = r["stats"]
    calls = soak.done
    n_sync = soak.calls(mode="sync")
    failed_gets, failed_acks = soak.failures("GET"), soak.failures("ACK")
    faults = stats["faults"]
    labels = {
        "rate_503": "503",
        "rate_reset": "reset",
        "rate_429": "429",
        "rate_truncate": "cut body",
    }
    struck = ", ".join(f"{labels.get(k, k)} {v}" for k, v in sorted(faults.items())) or "none"
    rates = ", ".join(
        f"{labels.get(k, k)} {share * args.fault_rate * 100:.1f} %"
        for k, share in args.shares.items()
    )
    lat = soak.get_seconds
    lines = [
        f"## Soak: {calls:,} calls, {args.threads} threads + {args.tasks} asyncio tasks, "
        f"{args.fault_rate * 100:g} % faults, {args.nonce_lifetime:g} s nonces",
        "",
        f"Measured {m['date']} by `make soak` (`bench/soak.py`): {m['nproc']} CPUs "
        f"({m['cpu']}), {m['memory']} RAM, load average at the end {m['load']}; "
        f"Python {m['python']}, opsapi {m['opsapi']}.",
        "",
        f"One `Client` shared by {args.threads} threads and one `AsyncClient` shared by "
        f"{args.tasks} asyncio tasks, at the same time, against the simulator in a process of its "
        f"own (seed {args.seed}, nonce lifetime {args.nonce_lifetime:g} s) with standing faults "
        f"on {args.fault_rate * 100:g} % of requests ({rates}; `Retry-After: 0`), default "
        f"client settings (timeout 30 s, 3 retries). A seeded mix of {len(GETS)} GET "
        "operations (every page of listings, `iter()` drained) and about "
        f"{ACK_SHARE * 100:g} % acknowledges (PATCH: not retried after a fault that may have "
        f"reached the server, so some fail by design). RSS after {WARMUP} warm-up calls "
        "without faults, and at the end (the harness keeps a few bytes per call).",
        "",
        "| measure | value |",
        "|---|---:|",
        f"| calls | {calls:,} ({n_sync:,} sync, {calls - n_sync:,} async) |",
        f"| GET calls | {soak.calls('GET'):,} |",
        f"| **failed GETs** (target 0) | **{sum(failed_gets.values()):,}** "
        f"({by_class(failed_gets)}) |",
        f"| acknowledges | {soak.calls('ACK'):,} |",
        f"| failed acknowledges, by class | {sum(failed_acks.values()):,} "
        f"({by_class(failed_acks)}) |",
        f"| HTTP requests | {stats['requests']:,} ({stats['requests'] / calls:.3f} per call) |",
        f"| ... answered 401 (Digest: stale nonces, handshakes) "
        f"| {stats['by_status'].get('401', 0):,} |",
        f"| ... struck by a standing fault | {sum(faults.values()):,} ({struck}) |",
        f"| GET latency p50 / p99 / max | {percentile(lat, 0.5) * 1000:.1f} ms / "
        f"{percentile(lat, 0.99) * 1000:.1f} ms / {max(lat, default=0) * 1000:.0f} ms |",
        f"| RSS after warm-up / at end | {r['rss_start']:.1f} MB / {r['rss_end']:.1f} MB "
        f"({r['rss_end'] - r['rss_start']:+.1f} MB) |",
        "| RSS at each tenth of the calls | "
        + " / ".join(f"{x:.0f}" for x in soak.rss[:10])
        + " MB |",
        f"| peak RSS (VmHWM) | {r['hwm']:.1f} MB |",
        f"| wall time | {r['seconds']:.1f} s ({calls / r['seconds']:.0f} calls/s) |",
    ]
    done = sorted(soak.finished)
    k = min(1000, len(done) // 4)
    if k:
        first = k / (done[k - 1] - soak.started)
        last = k / (done[-1] - done[-k - 1]) if len(done) > k else float("nan")
        lines.append(f"| calls/s over the first / last {k:,} calls | {first:.0f} / {last:.0f} |")
    if faults.get("rate_429"):
        lines += [
            "",
            "The simulator's random 429s state no limit, so each one slows its project to 70 % "
            "of the rate the client observed before it, and each success raises the pace by 1 % "
            "again until, at twice the rate sent, it is dropped (README, rate limits). "
            "`--shares` runs the mix without 429s.",
        ]
    if soak.slow:
        lines += [
            "",
            "GETs slower than 1 s, by operation: "
            + ", ".join(f"`{k}` {v}" for k, v in soak.slow.most_common())
            + ".",
        ]
    if soak.failed_gets:
        lines += ["", "First failed GETs:", ""]
        lines += [f"- {x}" for x in soak.failed_gets]
    return "\n".join(lines) + "\n"


def into_results(path: Path, section: str) -> None:
    """Puts ``section`` (starting "## Soak") into ``path``: replaces the old one, else appends."""
    text = path.read_text() if path.exists() else ""
    old = re.search(r"^## Soak\b.*?(?=^## |\Z)", text, flags=re.S | re.M)
    if old:
        rest = text[old.end() :]
        text = text[: old.start()] + section + ("\n" + rest if rest else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=10_000)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--tasks", type=int, default=8)
    ap.add_argument("--fault-rate", type=float, default=0.01)
    ap.add_argument("--nonce-lifetime", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--shares",
        type=json.loads,
        default=FAULT_SHARES,
        help=f"the faults' shares of --fault-rate, as JSON (default {json.dumps(FAULT_SHARES)})",
    )
    ap.add_argument("--out", type=Path, help="write the table to this file too")
    ap.add_argument("--results", type=Path, help="put the table into this file's Soak section")
    args = ap.parse_args()

    sim_kwargs = {"hosts": 0, "seed": args.seed, "nonce_lifetime": args.nonce_lifetime}
    with SimProcess(timeout=60, **sim_kwargs) as sim:
        info = sim.info
        keys = (info["base_url"], info["public_key"], info["private_key"])
        client = opsapi.Client(*keys)
        aclient = opsapi.AsyncClient(*keys)
        world = World(client)

        print(f"warm-up: {WARMUP} calls without faults", file=sys.stderr, flush=True)
        warm = Soak(schedule(WARMUP, args.seed + 1), world, args.seed + 1)
        warm.run(client, aclient, args.threads, args.tasks)
        if warm.failures("GET") or warm.failures("ACK"):
            raise SystemExit(f"the warm-up failed: {warm.failed_gets or warm.counts}")
        gc.collect()
        rss_start = rss_mb()

        faults = {k: share * args.fault_rate for k, share in args.shares.items()}
        sim.ask("faults " + json.dumps({**faults, "retry_after_secs": 0}))
        sim.ask("clear")
        print(f"soak: {args.calls} calls, faults {faults}", file=sys.stderr, flush=True)
        soak = Soak(schedule(args.calls, args.seed), world, args.seed)
        started = time.perf_counter()
        stop = threading.Event()

        def progress() -> None:
            while not stop.wait(10):
                print(f"  {soak.done} calls", file=sys.stderr, flush=True)

        threading.Thread(target=progress, daemon=True).start()
        soak.run(client, aclient, args.threads, args.tasks)
        seconds = time.perf_counter() - started
        stop.set()
        stats = sim.ask("stats")
        sim.ask("faults {}")
        gc.collect()
        result = {
            "soak": soak,
            "stats": stats,
            "seconds": seconds,
            "started": soak.started,
            "rss_start": rss_start,
            "rss_end": rss_mb(),
            "hwm": rss_mb("VmHWM"),
        }
    table = render(args, machine(), result)
    print(table)
    if args.out:
        args.out.write_text(table)
    if args.results:
        into_results(args.results, table)


if __name__ == "__main__":
    main()
