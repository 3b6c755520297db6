"""The second round of benchmarks (issue 14), run by ``bench/run.py``: fleets of 10, 100 and
1 000 hosts in memory and to Parquet, and a fleet pull against a server that limits each
project's requests. Each has a simulator process of its own (``run.SimProcess``) and runs its
variants in fresh subprocesses (``run.run_variant``)."""

from __future__ import annotations

import json
import os
from typing import Any

SIZES = (10, 100, 1000)
# Runs per size: the 1 000-host pull takes seconds and its peak RSS, not its noise, is the
# point.
RUNS = {10: 5, 100: 3, 1000: 2}
# Rate limit: 2 projects x 100 hosts, 20 requests per second per project (a scaled-down
# "100 requests per minute per project"), one metric over an hour per target.
RL_PROJECTS, RL_HOSTS, RL_RATE = 2, 100, 20.0


def scaling(run: Any, cfg: dict[str, Any], tmp: str, timeout: float) -> dict[str, Any]:
    """Time and peak RSS of the pull of the first N hosts, in memory and to Parquet, against
    a simulator that renders every body afresh (no cache: the same work at every size, and
    memory that does not grow with the fleet)."""
    out: dict[str, Any] = {}
    with run.SimProcess(
        timeout,
        hosts=max(SIZES),
        seed=0,
        projects=max(SIZES) // 10,
        hosts_per_project=10,
        worker_threads=2,
        log_requests=True,
        cache_bytes=0,
    ) as sim:
        base = {k: sim.info[k] for k in ("base_url", "public_key", "private_key")}
        for n in SIZES:
            path = os.path.join(tmp, f"scale-{n}.json")
            with open(path, "w") as f:
                json.dump({**cfg, **base, "targets": sim.info["targets"], "n_hosts": n}, f)
            for kind in ("scale_memory", "scale_parquet"):
                out[f"{kind}:{n}"] = run.run_variant(sim, kind, path, RUNS[n], n, timeout)
    return out


def rate_limited(run: Any, cfg: dict[str, Any], tmp: str, timeout: float) -> dict[str, Any]:
    """A fleet pull of 200 targets over 2 projects against a simulator that allows
    ``RL_RATE`` requests per second per project (a bucket of one second's worth): the pace
    learned from its 429s, and the client's own ``rate_limit=``."""
    out: dict[str, Any] = {}
    with run.SimProcess(
        timeout,
        hosts=RL_PROJECTS * RL_HOSTS,
        seed=0,
        projects=RL_PROJECTS,
        hosts_per_project=RL_HOSTS,
        worker_threads=2,
        log_requests=True,
        rate_limit=RL_RATE,
    ) as sim:
        path = os.path.join(tmp, "ratelimit.json")
        rl_cfg = {
            **cfg,
            **{k: sim.info[k] for k in ("base_url", "public_key", "private_key")},
            "targets": sim.info["targets"],
            "metrics": ["CONNECTIONS"],
            "start": "2026-01-01T00:00:00Z",
            "end": "2026-01-01T01:00:00Z",
            "rate_limit": RL_RATE,
        }
        with open(path, "w") as f:
            json.dump(rl_cfg, f)
        for kind in ("ratelimit_learned", "ratelimit_client"):
            runs = []
            for _ in range(3):
                sim.ask(f"rate_limit {RL_RATE}")  # every project's bucket full again
                r = run.run_variant(sim, kind, path, 1, len(sim.info["targets"]), timeout)
                r["stats"] = sim.ask("stats")
                runs.append(r)
            runs.sort(key=lambda r: r["seconds"])
            out[kind] = {**runs[1], "all_seconds": [r["seconds"] for r in runs], "runs": 3}
    per_project = RL_HOSTS
    # The fastest any client can go: each project's bucket, then one request per 1/rate.
    out["minimum_seconds"] = max(0.0, per_project - RL_RATE) / RL_RATE
    return out


def _per_million(r: dict[str, Any]) -> float:
    return r["seconds"] / (r["rows"] / 1e6) if r["rows"] else float("nan")


def render(scale: dict[str, Any], limited: dict[str, Any]) -> tuple[list[str], list[tuple]]:
    """The sections' markdown, and the target rows they measure: (target, measured, met)."""
    lines = [
        "",
        "## Fleets of 10, 100 and 1 000 hosts (20 metrics × 1 day at PT1M)",
        "",
        "The simulator renders every body afresh here (`cache_bytes=0`), so every size does the "
        "same work per point on both sides. *In memory*: `Client.measurements.fleet`; "
        "*Parquet*: `Client.measurements.fleet_to_parquet` into hive partitions. Peak RSS: the "
        "subprocess's `ru_maxrss`.",
        "",
        "| hosts | data points | in memory: time | per M points | peak RSS "
        "| Parquet: time | per M points | peak RSS |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n in SIZES:
        m, p = scale[f"scale_memory:{n}"], scale[f"scale_parquet:{n}"]
        lines.append(
            f"| {n} | {m['rows'] / 1e6:.2f} M | {m['seconds']:.2f} s | {_per_million(m):.3f} s "
            f"| {m['rss_mb']:.0f} MB | {p['seconds']:.2f} s | {_per_million(p):.3f} s "
            f"| {p['rss_mb']:.0f} MB |"
        )
    m100, m1k = scale["scale_memory:100"], scale["scale_memory:1000"]
    p100, p1k = scale["scale_parquet:100"], scale["scale_parquet:1000"]
    learned, own = limited["ratelimit_learned"], limited["ratelimit_client"]
    minimum = limited["minimum_seconds"]

    def refused(r: dict[str, Any]) -> tuple[int, int]:
        by_status = r["stats"]["by_status"]
        answered = sum(v for k, v in by_status.items() if k != "401")
        return by_status.get("429", 0), answered

    lines += [
        "",
        f"## Under a rate limit: {RL_PROJECTS * RL_HOSTS} targets over {RL_PROJECTS} projects, "
        f"{RL_RATE:.0f} requests per second per project",
        "",
        "The simulator answers 429 `RATE_LIMITED` past each project's bucket (one second's "
        "worth), stating the limit as Ops Manager does; the minimum is what the limits allow: "
        f"({RL_HOSTS} − {RL_RATE:.0f}) / {RL_RATE:.0f} = {minimum:.1f} s per project, the "
        "projects in parallel. 429s: of the answered requests (the last run's; Digest "
        "challenges not counted).",
        "",
        "| variant | time (median) | × minimum | failed targets | 429s |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, r in (
        ("pace learned from the 429s (default)", learned),
        (f"`rate_limit={RL_RATE:.0f}` (opt-in)", own),
    ):
        n429, answered = refused(r)
        lines.append(
            f"| {label} | {r['seconds']:.2f} s | {r['seconds'] / minimum:.2f}× "
            f"| {r['failures']} | {n429} of {answered} ({100 * n429 / answered:.1f} %) |"
        )
    n429, answered = refused(learned)
    targets = [
        (
            "1 000 hosts: time per point ≤ 1.2× that at 100 (in memory)",
            f"{_per_million(m1k) / _per_million(m100):.2f}×",
            _per_million(m1k) <= 1.2 * _per_million(m100),
        ),
        (
            "1 000 hosts: time per point ≤ 1.2× that at 100 (Parquet)",
            f"{_per_million(p1k) / _per_million(p100):.2f}×",
            _per_million(p1k) <= 1.2 * _per_million(p100),
        ),
        (
            "Parquet peak RSS at 1 000 hosts ≤ 1.2× that at 100",
            f"{p1k['rss_mb'] / p100['rss_mb']:.2f}×",
            p1k["rss_mb"] <= 1.2 * p100["rss_mb"],
        ),
        (
            "Parquet peak RSS at 1 000 hosts < 400 MB",
            f"{p1k['rss_mb']:.0f} MB",
            p1k["rss_mb"] < 400,
        ),
        (
            "rate limit: within 1.15× of the minimum",
            f"{learned['seconds'] / minimum:.2f}×",
            learned["seconds"] <= 1.15 * minimum,
        ),
        ("rate limit: 0 targets fail", str(learned["failures"]), learned["failures"] == 0),
        (
            "rate limit: < 5 % of requests answered 429",
            f"{100 * n429 / answered:.1f} %",
            n429 < 0.05 * answered,
        ),
    ]
    return lines, targets
