"""The measurement store's figures (issue 22 §4), measured in one run against the simulator with
a per-project limit of 100 requests per minute, scaled in time (``--scale``: the limit is
100 × scale per minute, the same for every sync of the run, so that ratios of two syncs'
times hold at the real rate when both are bound by it).

- A world of 1 000 hosts (20 projects of 50) on the wall clock: the first sync of a store
  (every host, partition and database, PT1H, ``--window`` P35D), the simulator's clock one
  hour later, the second sync, then a third with nothing new.
- Bytes per stored point: the store's files against the JSON the server sent (the bodies of a
  sample of the same requests, fetched again) and against ``fleet_to_parquet``'s files of the
  same targets and window.
- Peak RSS of a first sync at 10, 100 and 1 000 hosts (each sync in a fresh process).
- Reading back 14 days of every disk of the 1 000 hosts: ``store.scan(...).collect()``
  against ``client.measurements.fleet(...)`` of the same targets, under the limit at its real
  rate (100 a minute: the pull takes minutes, as it would on such a server), and with none.
- Kills: bench/store_kills.py's figure, from bench/store_kills.json (run it first: ``make
  bench`` does).

Every sync runs in a process of its own (`--child`), so its ``ru_maxrss`` is its own; the
simulator runs in another (`--serve`).

    python bench/store.py [--hosts 1000] [--scale 10] [--window P35D] [--results bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PER_PROJECT = 50  # hosts per project
LIMIT_PER_MINUTE = 100  # Older Ops Manager deployments: 100 requests per minute per project


# ---- the simulator, in a process of its own -----------------------------------------------


def serve(config: dict[str, Any]) -> None:
    """``--serve``: the simulator, driven over stdin (``advance S``, ``clear``, ``count``,
    ``rate_limit X``, ``close``), one JSON line back per command."""
    from opsapi.testing import Simulator

    with Simulator(**config) as sim:
        info = {"base_url": sim.base_url, "public_key": sim.public_key,
                "private_key": sim.private_key}  # fmt: skip
        print(json.dumps(info), flush=True)
        for line in sys.stdin:
            cmd, _, arg = line.strip().partition(" ")
            reply: Any = "ok"
            if cmd == "advance":
                sim.advance(float(arg))
            elif cmd == "clear":
                sim.clear_requests()
            elif cmd == "count":
                log = [r for r in sim.requests() if r["authorized"]]
                reply = {
                    "requests": len(log),
                    "data": sum(1 for r in log if r["path"].endswith("/measurements")),
                    "429": sum(1 for r in sim.requests() if r["status"] == 429),
                }
            elif cmd == "rate_limit":
                sim.set_rate_limit(json.loads(arg))
            elif cmd == "close":
                print(json.dumps(reply), flush=True)
                return
            print(json.dumps(reply), flush=True)


class Sim:
    def __init__(self, **config: Any) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", json.dumps(config)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.info = self._read()

    def _read(self) -> Any:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the simulator exited ({self.proc.wait()})")
        return json.loads(line)

    def ask(self, cmd: str) -> Any:
        assert self.proc.stdin is not None
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.ask("close")
                self.proc.wait(timeout=10)
            except (OSError, RuntimeError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


# ---- what a child process measures --------------------------------------------------------


def child(task: dict[str, Any]) -> None:
    """``--child``: one measured call in a fresh process; prints a JSON line."""
    import resource

    import opsapi

    client = opsapi.Client(task["base_url"], task["public_key"], task["private_key"],
                           timeout=300)  # fmt: skip
    out: dict[str, Any] = {}
    what = task["what"]
    started = time.perf_counter()
    if what == "sync":
        r = client.measurements.sync(
            opsapi.Store(task["store"]), granularity="PT1H", window=task["window"],
            progress=False,
        )  # fmt: skip
        out.update(
            seconds=time.perf_counter() - started,
            targets=len(r.new) + len(r.updated) + len(r.unchanged) + len(r.failed),
            new=len(r.new), updated=len(r.updated), unchanged=len(r.unchanged),
            failed=len(r.failed), requests=r.requests, data_requests=r.data_requests,
            points_added=r.points_added, bytes_written=r.bytes_written,
        )  # fmt: skip
    elif what == "scan":
        import polars as pl

        store = opsapi.Store(task["store"])
        since = task["since"]
        times = []
        for _ in range(3):
            t = time.perf_counter()
            frame = (
                store.scan(kind="disk", granularity="PT1H")
                .filter(pl.col("timestamp") >= pl.lit(since).str.to_datetime(time_zone="UTC"))
                .collect()
            )
            times.append(time.perf_counter() - t)
        out.update(seconds=statistics.median(times), rows=frame.height)
    elif what == "fleet":
        t = time.perf_counter()
        frame = client.measurements.fleet(
            [tuple(x) for x in task["targets"]], kind="disk", granularity="PT1H",
            start=task["since"], end=task["until"], progress=False,
        )  # fmt: skip
        out.update(seconds=time.perf_counter() - t, rows=frame.height)
    elif what == "fleet_to_parquet":
        kinds: dict[str, list[tuple[str, ...]]] = {}
        for t in task["targets"]:
            kinds.setdefault(t[0], []).append(tuple(t[1:]))
        path = task["path"]
        for kind, targets in kinds.items():
            client.measurements.fleet_to_parquet(
                targets, os.path.join(path, kind), kind=kind, granularity="PT1H",
                start=task["since"], end=task["until"], progress=False,
            )  # fmt: skip
        import polars as pl

        rows = pl.scan_parquet(os.path.join(path, "**", "*.parquet")).select(pl.len()).collect()
        out.update(seconds=time.perf_counter() - started, rows=rows.item())
    elif what == "json":
        # The bodies of a sample of the first sync's requests, as the server sends them.
        import requests
        from requests.auth import HTTPDigestAuth

        auth = HTTPDigestAuth(task["public_key"], task["private_key"])
        session = requests.Session()
        total_bytes = points = 0
        for t in task["targets"]:
            kind, g, h = t[0], t[1], t[2]
            path = f"/groups/{g}/hosts/{h}/measurements"
            if kind == "disk":
                path = f"/groups/{g}/hosts/{h}/disks/{t[3]}/measurements"
            elif kind == "database":
                path = f"/groups/{g}/hosts/{h}/databases/{t[3]}/measurements"
            params = {"granularity": "PT1H", "start": task["since"], "end": task["until"]}
            r = session.get(task["base_url"] + "/api/public/v1.0" + path, params=params,
                            auth=auth, timeout=120)  # fmt: skip
            r.raise_for_status()
            total_bytes += len(r.content)
            points += sum(len(m["dataPoints"]) for m in r.json()["measurements"])
        out.update(bytes=total_bytes, points=points)
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out), flush=True)


def run_child(sim: Sim, **task: Any) -> dict[str, Any]:
    task = {**sim.info, **task}
    # The task on stdin: a fleet's list of targets is longer than an argument may be.
    r = subprocess.run(
        [sys.executable, __file__, "--child", "-"],
        input=json.dumps(task), capture_output=True, text=True, timeout=3600,
        env={**os.environ, "OPSAPI_PROGRESS": "0"},
    )  # fmt: skip
    if r.returncode != 0:
        raise RuntimeError(f"{task['what']} failed: {r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


# ---- the run ------------------------------------------------------------------------------


def du(path: Path, pattern: str = "**/*.parquet") -> int:
    return sum(p.stat().st_size for p in path.glob(pattern) if p.is_file())


def sim_config(hosts: int, scale: float) -> dict[str, Any]:
    projects = max(1, hosts // PER_PROJECT)
    return {
        "seed": 0,
        "projects": projects,
        "hosts_per_project": min(hosts, PER_PROJECT),
        "worker_threads": 2,
        "rate_limit": LIMIT_PER_MINUTE / 60 * scale,
        "cache_bytes": 0,
        "global_alerts": 0,
    }


def store_figures(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"scale": args.scale, "window": args.window, "hosts": args.hosts}
    # Peak RSS of a first sync at 10 and 100 hosts (1 000: the main run below).
    rss: dict[int, float] = {}
    for hosts in (10, 100):
        sim = Sim(**sim_config(hosts, args.scale))
        try:
            r = run_child(sim, what="sync", store=str(work / f"rss-{hosts}"), window=args.window)
            rss[hosts] = r["peak_rss_mb"]
            out[f"targets_{hosts}"] = r["targets"]
        finally:
            sim.close()
    sim = Sim(**sim_config(args.hosts, args.scale))
    try:
        store = work / "store"
        first = run_child(sim, what="sync", store=str(store), window=args.window)
        first["sim"] = sim.ask("count")
        rss[args.hosts] = first["peak_rss_mb"]
        out["first"] = first
        # The window of the first sync, for the JSON and fleet_to_parquet comparisons.
        manifest = json.loads((store / "MANIFEST.json").read_text())
        targets = [[t["kind"], t["group_id"], t["host_id"], *([t["name"]] if "name" in t else [])]
                   for t in manifest["targets"]]  # fmt: skip
        first_ms = min(f["first"] for t in manifest["targets"] for f in t["files"])
        last_ms = max(f["last"] for t in manifest["targets"] for f in t["files"])
        iso = lambda ms: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms / 1000))  # noqa: E731
        since, until = iso(first_ms), iso(last_ms)
        points = sum(f["rows"] for t in manifest["targets"] for f in t["files"])
        out["store_first"] = {"bytes": du(store), "points": points}
        sim.ask("advance 3600")
        sim.ask("clear")
        second = run_child(sim, what="sync", store=str(store), window=args.window)
        second["sim"] = sim.ask("count")
        out["second"] = second
        sim.ask("clear")
        third = run_child(sim, what="sync", store=str(store), window=args.window)
        third["sim"] = sim.ask("count")
        out["third"] = third
        manifest = json.loads((store / "MANIFEST.json").read_text())
        out["store_after"] = {
            "bytes": du(store),
            "points": sum(f["rows"] for t in manifest["targets"] for f in t["files"]),
        }
        # Bytes per point: the JSON (a sample of each kind) and fleet_to_parquet's files.
        sample = [t for k in ("host", "disk", "database")
                  for t in [x for x in targets if x[0] == k][:60]]  # fmt: skip
        sim.ask("rate_limit null")
        out["json"] = run_child(sim, what="json", targets=sample, since=since, until=until)
        ftp = work / "fleet_to_parquet"
        written = run_child(sim, what="fleet_to_parquet", targets=targets, path=str(ftp),
                            since=since, until=until)  # fmt: skip
        out["fleet_to_parquet"] = {"bytes": du(ftp), "points": written["rows"]}
        # Reading back 14 days of every disk.
        disks = [t[1:] for t in targets if t[0] == "disk"]
        until_ms = max(f["last"] for t in manifest["targets"] for f in t["files"])
        since14 = iso(until_ms - 14 * 86_400_000)
        until14 = iso(until_ms)
        out["scan"] = run_child(sim, what="scan", store=str(store), since=since14)
        out["fleet_free"] = run_child(sim, what="fleet", targets=disks, since=since14,
                                      until=until14)  # fmt: skip
        # At the real limit (not scaled): the pull is bound by it, as on such a server.
        sim.ask(f"rate_limit {LIMIT_PER_MINUTE / 60}")
        out["fleet_limited"] = run_child(sim, what="fleet", targets=disks, since=since14,
                                         until=until14)  # fmt: skip
    finally:
        sim.close()
    out["rss"] = rss
    return out


def render(m: dict[str, Any], kills: dict[str, Any] | None) -> str:
    first, second, third = m["first"], m["second"], m["third"]
    targets = second["targets"]
    per_target = second["requests"] / targets
    time_ratio = second["seconds"] / first["seconds"]
    store_bpp = m["store_after"]["bytes"] / m["store_after"]["points"]
    store_first_bpp = m["store_first"]["bytes"] / m["store_first"]["points"]
    json_bpp = m["json"]["bytes"] / m["json"]["points"]
    ftp_bpp = m["fleet_to_parquet"]["bytes"] / m["fleet_to_parquet"]["points"]
    rss = m["rss"]
    rss_ratio = rss[m["hosts"]] / rss[100]
    read_free = m["fleet_free"]["seconds"] / m["scan"]["seconds"]
    read_limited = m["fleet_limited"]["seconds"] / m["scan"]["seconds"]
    ok = lambda b: "met" if b else "**missed**"  # noqa: E731
    rows = [
        ("second sync, one hour later, 1 000 hosts: requests", "≤ 1 per target",
         f"{per_target:.3f} per target ({second['requests']} for {targets} targets: "
         f"{second['data_requests']} for data, {second['requests'] - second['data_requests']} "
         "listings)", ok(per_target <= 1)),
        ("second sync, one hour later, 1 000 hosts: time", "≤ 5 % of the first sync's",
         f"{100 * time_ratio:.1f} % ({second['seconds']:.1f} s against {first['seconds']:.1f} s)",
         ok(time_ratio <= 0.05)),
        ("sync with nothing new since the last one: requests for data", "0",
         f"{third['data_requests']} (the simulator's log: {third['sim']['data']})",
         ok(third["data_requests"] == 0 and third["sim"]["data"] == 0)),
        ("store size on disk", "≤ 3 bytes per stored point",
         f"{store_bpp:.2f} B/point after the second sync ({store_first_bpp:.2f} after the "
         f"first); JSON {json_bpp:.1f} B/point; `fleet_to_parquet` {ftp_bpp:.2f} B/point",
         ok(store_bpp <= 3)),
        ("peak RSS of a sync (10, 100, 1 000 hosts)", "≤ 1.2× from 100 to 1 000",
         f"{rss[10]:.0f} / {rss[100]:.0f} / {rss[m['hosts']]:.0f} MB: {rss_ratio:.2f}×",
         ok(rss_ratio <= 1.2)),
        ("reading back 14 days × 1 000 hosts of disk measurements", "≥ 20× faster than `fleet`",
         f"{read_limited:.0f}× under the limit (not scaled), {read_free:.1f}× with none "
         f"(scan {m['scan']['seconds']:.2f} s, {m['scan']['rows']} rows; fleet "
         f"{m['fleet_limited']['seconds']:.1f} s and {m['fleet_free']['seconds']:.1f} s)",
         ok(read_limited >= 20)),
    ]  # fmt: skip
    if kills:
        rows.append(
            (
                "kill tests",
                "≥ 200 kills, 0 torn files, 0 duplicate or lost points",
                f"{kills['kills']} kills ({kills['at_steps']} at write steps, {kills['at_delays']} "
                f"at random delays): {kills['problems']} problems",
                ok(kills["kills"] >= 200 and kills["problems"] == 0),
            )  # fmt: skip
        )
    lines = [
        "## Measurement store (issue 22)",
        "",
        f"Measured by `bench/store.py`: {m['hosts']} hosts in {m['hosts'] // PER_PROJECT} "
        f"projects of {PER_PROJECT} ({targets} targets: every host, partition and database), "
        f"PT1H, window {m['window']}, every measurement; the simulator on the wall clock with a "
        f"limit of {LIMIT_PER_MINUTE} requests per minute per project scaled by {m['scale']:g} "
        f"({LIMIT_PER_MINUTE * m['scale']:g} per minute), the same for every sync and pull of "
        "the run; each sync in a fresh process. The second sync runs after the simulator's "
        "clock moved one hour.",
        "",
        "| figure | target | measured | |",
        "|---|---|---|---|",
        *[f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows],
        "",
        f"First sync: {first['requests']} requests ({first['data_requests']} for data), "
        f"{first['points_added']} points, {first['bytes_written'] / 1e6:.1f} MB written, "
        f"{first['sim']['429']} answers 429. Second: {second['points_added']} points, "
        f"{second['bytes_written'] / 1e6:.1f} MB written, {second['sim']['429']} answers 429.",
        "",
        "Why the second sync's time is not 5 % of the first's: where the per-project limit "
        "binds, a sync takes its requests over the limit, whatever their size. The second "
        f"sync sends one request per target ({second['requests']}), the first "
        f"{first['requests']} (the same data requests, plus each host's partitions and "
        "databases listings): under the limit alone the second would take "
        f"{100 * second['requests'] / first['requests']:.0f} % of the first's time. The first "
        "is slower than its requests (it writes every point of the window), the second is "
        "bound by its requests; it moves "
        f"{100 * second['points_added'] / max(1, first['points_added']):.2f} % of the first's "
        "points. Fewer requests than one per target would mean not asking targets that have "
        "new points; the listings above one per target are discovery's (a project's hosts at "
        "every sync, so that a new host starts filling).",
        "",
    ]
    return "\n".join(lines) + "\n"


def into_results(path: Path, section: str, title: str) -> None:
    """Puts ``section`` (starting ``## {title}``) into ``path``: replaces the old one, else
    appends."""
    text = path.read_text() if path.exists() else ""
    old = re.search(rf"^## {re.escape(title)}.*?(?=^## |\Z)", text, flags=re.S | re.M)
    if old:
        text = (
            text[: old.start()] + section + ("\n" + text[old.end() :] if text[old.end() :] else "")
        )
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve(json.loads(sys.argv[2]))
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(json.loads(sys.stdin.read() if sys.argv[2] == "-" else sys.argv[2]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hosts", type=int, default=1000)
    ap.add_argument("--scale", type=float, default=10.0)
    ap.add_argument("--window", default="P35D")
    ap.add_argument("--results", type=Path, help="put the section into this file")
    ap.add_argument("--json", type=Path, default=HERE / "store.json")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="opsapi-store-bench-"))
    try:
        m = store_figures(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    args.json.write_text(json.dumps(m, indent=2))
    kills_path = HERE / "store_kills.json"
    kills = json.loads(kills_path.read_text()) if kills_path.exists() else None
    section = render(m, kills)
    print(section)
    if args.results:
        into_results(args.results, section, "Measurement store (issue 22)")


if __name__ == "__main__":
    main()
