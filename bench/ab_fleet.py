"""The fleet pull of two builds of opsapi in one sitting (issue 32: the new layers cost
nothing per request): `make bench`'s variants (a) and (b), run alternately by each build's
Python against one simulator, so that both meet the same server, machine and load.

    .venv/bin/python bench/ab_fleet.py --before /path/to/old-venv/bin/python \\
        [--after .venv/bin/python] [--runs 9] [--out bench/AB-FLEET.md]

The simulator is the `--after` build's, in a process of its own (bench/simproc.py); each run
is a fresh subprocess of bench/variants.py under the build's interpreter. Time: the median of
the runs; requests per call: the simulator's log over the 100 measurement calls. The ratio
after/before is the figure; no time is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import CONCURRENCY, END, GRANULARITY, METRICS, PAGE_SIZE, START, SimProcess  # noqa: E402

VARIANTS = ("fleet_opsapi_sync", "fleet_opsapi_async")


def one_run(python: str, sim: SimProcess, name: str, cfg_path: str, calls: int) -> dict:
    sim.ask("clear")
    proc = subprocess.run(
        [python, str(HERE / "variants.py"), name, cfg_path],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=HERE,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{name} under {python} failed:\n{proc.stderr[-4000:]}")
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    counted = sim.ask("count")
    return {
        "seconds": r["seconds"],
        "rss_mb": r["rss_mb"],
        "rows": r["rows"],
        "requests_per_call": counted["requests"] / calls,
    }


def version(python: str) -> str:
    out = subprocess.run(
        [python, "-c", "import opsapi, sys; print(opsapi.__version__, opsapi.__file__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="the Python of the build to compare with")
    ap.add_argument("--after", default=sys.executable, help="the Python of the build measured")
    ap.add_argument("--runs", type=int, default=9, help="runs of each variant and build")
    ap.add_argument("--hosts", type=int, default=100)
    ap.add_argument("--out", type=Path, default=None, help="a Markdown table here too")
    args = ap.parse_args()
    builds = {"before": args.before, "after": args.after}
    results: dict = {(b, v): [] for b in builds for v in VARIANTS}
    with (
        SimProcess(
            240,
            hosts=args.hosts,
            seed=0,
            projects=max(1, args.hosts // 10),
            hosts_per_project=min(10, args.hosts),
            worker_threads=2,
            log_requests=True,
            global_alerts=0,
        ) as sim,
        tempfile.TemporaryDirectory() as tmp,
    ):
        targets = sim.info["targets"]
        cfg = {
            **{k: sim.info[k] for k in ("base_url", "public_key", "private_key")},
            "targets": targets,
            "metrics": METRICS,
            "start": START,
            "end": END,
            "granularity": GRANULARITY,
            "concurrency": CONCURRENCY,
            "page_size": PAGE_SIZE,
        }
        cfg_path = os.path.join(tmp, "config.json")
        Path(cfg_path).write_text(json.dumps(cfg))
        one_run(args.after, sim, VARIANTS[0], cfg_path, len(targets))  # fills the render cache
        for i in range(args.runs):
            # Alternating builds and variants: a drift of the machine falls on both alike.
            order = list(builds.items()) if i % 2 == 0 else list(reversed(builds.items()))
            for build, python in order:
                for variant in VARIANTS:
                    r = one_run(python, sim, variant, cfg_path, len(targets))
                    results[(build, variant)].append(r)
                    print(
                        f"  {build:<6} {variant:<18} {r['seconds']:.3f} s {r['rss_mb']:.0f} MB "
                        f"{r['requests_per_call']:.3f} req/call",
                        file=sys.stderr,
                        flush=True,
                    )
    lines = [
        f"Fleet pull A/B, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: "
        f"{len(targets)} hosts x {len(METRICS)} metrics x 1 day at {GRANULARITY}, "
        f"{args.runs} runs of each, alternating.",
        f"- before: {version(args.before)}",
        f"- after: {version(args.after)}",
        "",
        "| variant | before (median) | after (median) | after / before | requests / call "
        "(before, after) | rows |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for variant in VARIANTS:
        b = [r["seconds"] for r in results[("before", variant)]]
        a = [r["seconds"] for r in results[("after", variant)]]
        rb = max(r["requests_per_call"] for r in results[("before", variant)])
        ra = max(r["requests_per_call"] for r in results[("after", variant)])
        rows = {r["rows"] for k in builds for r in results[(k, variant)]}
        lines.append(
            f"| {variant} | {statistics.median(b):.3f} s | {statistics.median(a):.3f} s | "
            f"{statistics.median(a) / statistics.median(b):.2f}x | {rb:.3f}, {ra:.3f} | "
            f"{', '.join(map(str, sorted(rows)))} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
