"""Killing a syncing child process and checking the store it leaves (issue 22: "a sync killed
at any instant leaves the store as it was before that sync or with some targets already
updated: never a torn file, never a duplicate point, never a target whose last point is later
than its data").

Shared by tests/python/test_store.py (a sample of kill points, in ``make test``) and
bench/store_kills.py (every write of a sync plus random delays: the figure in
bench/RESULTS.md).

- A **world**: a simulator on a fixed clock and a *base* store synced at its now, then two
  hours later and one more: so that the sync under test (one hour later again) adds a point
  to every target and compacts each target's month (its fourth file).
- A **kill** copies the base, runs the sync in a child process and SIGKILLs it: at the n-th
  write step (the store's hook, ``OPSAPI_STORE_WRITES=pause:n``: the child stops just before
  that step and the test kills it), or after a random delay.
- The **check** reads what the child left: every ``*.parquet`` in the folder readable, the
  manifest's files as the manifest says (rows, first and last point), no point twice, the
  store readers see either the base or the clean result, and after one more sync (in this
  process) exactly the clean result, with no file the manifest does not list (live, or
  retired: kept a day for older readers), and after a vacuum the live files alone.
"""

from __future__ import annotations

import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

import polars as pl

import opsapi
from opsapi.testing import Simulator

FIXED_NOW = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)
OPTIONS: dict[str, Any] = {
    "kind": ("host", "disk"),
    "granularity": "PT1H",
    "window": "P2D",
    "progress": False,
}
HOOK = "OPSAPI_STORE_WRITES"

CHILD = """
import sys, opsapi
url, public, private, path = sys.argv[1:5]
client = opsapi.Client(url, public, private, max_retries=0)
client.measurements.sync(opsapi.Store(path), kind=("host", "disk"), granularity="PT1H",
                         window="P2D", progress=False)
print("done", flush=True)
"""

KEYS = ["group_id", "host_id", "partition_name", "database_name", "measurement", "timestamp"]


@dataclass
class World:
    """The simulator, the base store, and the clean result of the sync under test."""

    sim: Simulator
    root: Path
    base: Path
    clean: Path
    steps: int = 0
    clean_seconds: float = 0.0
    kinds: tuple[str, ...] = ("host", "disk")


@dataclass
class Outcome:
    """What one kill left and what its check found."""

    how: str
    killed: bool
    saw: str = ""  # "base" or "clean": what readers saw before the next sync
    problems: list[str] = field(default_factory=list)
    torn_temporary: int = 0  # torn hidden temporary files (allowed: nothing reads them)


def _sync(sim: Simulator, path: Path) -> opsapi.SyncReport:
    return sim.client().measurements.sync(opsapi.Store(str(path)), **OPTIONS)


def make_world(root: Path, *, hosts: int = 3) -> World:
    """A simulator (one project of ``hosts`` hosts) at FIXED_NOW + 3 h, the base store
    (synced at FIXED_NOW, + 1 h and + 2 h), and the clean store (the base synced at + 3 h by
    this process), with the number of write steps that sync takes in a child."""
    sim = Simulator(seed=0, projects=1, hosts_per_project=hosts, now=FIXED_NOW)
    base = root / "base"
    for _ in range(3):
        _sync(sim, base)
        sim.advance(3600)
    clean = root / "clean"
    shutil.copytree(base, clean)
    _sync(sim, clean)
    world = World(sim=sim, root=root, base=base, clean=clean)
    # The steps of the sync under test, counted by the hook in a child (its own process: the
    # hook reads its variable once), and how long a child takes.
    work = root / "count"
    shutil.copytree(base, work)
    started = time.monotonic()
    proc = _child(world, work, "count")
    _, err = proc.communicate(timeout=120)
    world.clean_seconds = time.monotonic() - started
    assert proc.returncode == 0, err
    world.steps = sum(1 for line in err.splitlines() if line.startswith("opsapi-store-write "))
    assert world.steps > 0, err
    return world


def _child(world: World, path: Path, hook: Optional[str]) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != HOOK}
    if hook is not None:
        env[HOOK] = hook
    env["OPSAPI_PROGRESS"] = "0"
    sim = world.sim
    args = [sys.executable, "-c", CHILD, sim.base_url, sim.public_key, sim.private_key, str(path)]
    return subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def kill_at_step(world: World, n: int, *, timeout: float = 60.0) -> Outcome:
    """Runs the sync in a child that stops before its n-th write step, kills it there, and
    checks what it left."""
    from _children import Lines, stop

    work = world.root / f"step-{n}"
    shutil.copytree(world.base, work)
    proc = _child(world, work, f"pause:{n}")
    lines = Lines(proc, proc.stderr)
    killed = False
    try:
        while True:
            line = lines.next(timeout, what=f"write step {n}")
            if line.startswith(f"opsapi-store-pause {n} "):
                os.kill(proc.pid, signal.SIGKILL)
                killed = True
                break
    except AssertionError:
        if proc.wait(timeout=30) != 0:
            raise
    finally:
        stop(proc)
    return check(world, work, f"write step {n}", killed)


def kill_after(world: World, seconds: float) -> Outcome:
    """Runs the sync in a child and kills it after ``seconds`` (whatever it is doing then)."""
    work = world.root / f"delay-{seconds:.4f}"
    shutil.copytree(world.base, work)
    proc = _child(world, work, None)
    try:
        proc.wait(timeout=seconds)
        killed = False
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        killed = True
    proc.wait(timeout=30)
    return check(world, work, f"after {seconds:.3f} s", killed)


def _scan(path: Path, kinds: tuple[str, ...]) -> pl.DataFrame:
    store = opsapi.Store(str(path))
    frames = [
        store.scan(kind=k, granularity="PT1H").with_columns(pl.lit(k).alias("kind")).collect()
        for k in kinds
    ]
    df = pl.concat(frames)
    keys = [c for c in df.columns if df[c].dtype == pl.Categorical]
    return df.with_columns(pl.col(keys).cast(pl.String)).sort(["kind", *KEYS], nulls_last=True)


def _targets(path: Path) -> pl.DataFrame:
    """The store's targets, but when each was last synced (the server's clock, to the
    millisecond: each run reads it at its own moment)."""
    t = opsapi.Store(str(path)).targets().drop("last_sync")
    keys = [c for c in t.columns if t[c].dtype == pl.Categorical]
    return t.with_columns(pl.col(keys).cast(pl.String)).sort(
        ["kind", "group_id", "host_id", "partition_name", "database_name"], nulls_last=True
    )


def check(world: World, path: Path, how: str, killed: bool) -> Outcome:
    """The checks of the module's docstring, on the store a killed child left at ``path``."""
    out = Outcome(how=how, killed=killed)
    problems = out.problems
    # Never a torn file where a reader looks: every *.parquet in the folder reads whole.
    for f in glob.glob(str(path / "**" / "*.parquet"), recursive=True):
        try:
            pl.read_parquet(f)
        except Exception as e:  # noqa: BLE001 (any failure to read is the finding)
            problems.append(f"torn file {f}: {e}")
    for f in glob.glob(str(path / "**" / ".*.tmp"), recursive=True):
        try:
            if f.endswith(".parquet.tmp"):
                pl.read_parquet(f)
        except Exception:  # noqa: BLE001
            out.torn_temporary += 1
    # The manifest says what its files hold.
    manifest = json.loads((path / "MANIFEST.json").read_text())
    for t in manifest["targets"]:
        for f in t["files"]:
            df = pl.read_parquet(path / f["name"])
            ts = df["timestamp"].dt.epoch("ms")
            if (df.height, ts.min(), ts.max()) != (f["rows"], f["first"], f["last"]):
                problems.append(f"{f['name']}: not what the manifest says")
    seen = _scan(path, world.kinds)
    dup = seen.select(["kind", *KEYS]).is_duplicated().sum()
    if dup:
        problems.append(f"{dup} duplicate points")
    # The last point of every target is that of its data.
    last = seen.group_by(["kind", "group_id", "host_id", "partition_name"]).agg(
        pl.col("timestamp").max().alias("data_last")
    )
    listed = _targets(path).join(last, on=["kind", "group_id", "host_id", "partition_name"])
    wrong = listed.filter(pl.col("last") != pl.col("data_last")).height
    if wrong:
        problems.append(f"{wrong} targets whose last point is not their data's")
    # Readers see the store as before the sync, or as the sync left it.
    if seen.equals(_scan(world.base, world.kinds)):
        out.saw = "base"
    elif seen.equals(_scan(world.clean, world.kinds)):
        out.saw = "clean"
    else:
        problems.append("readers see neither the store before the sync nor after it")
    # One more sync ends where a sync that was never killed ends, and leaves no stray file.
    _sync(world.sim, path)
    if not _scan(path, world.kinds).equals(_scan(world.clean, world.kinds)):
        problems.append("after the next sync: points differ from a clean sync's")
    if not _targets(path).equals(_targets(world.clean)):
        problems.append("after the next sync: targets differ from a clean sync's")
    # On disk: the live files and those kept a day for older readers (retired), nothing
    # else; after a vacuum, the live files alone.
    store = opsapi.Store(str(path))
    listed_files = sorted(
        os.path.normpath(f) for k in world.kinds for f in store.files(kind=k, granularity="PT1H")
    )
    retired = [
        os.path.normpath(path / r["name"])
        for r in json.loads((path / "MANIFEST.json").read_text()).get("retired", [])
    ]
    if _on_disk(path) != sorted(listed_files + retired):
        problems.append("after the next sync: files on disk that the manifest does not list")
    store.vacuum()
    if _on_disk(path) != listed_files:
        problems.append("after a vacuum: files on disk other than the live ones")
    shutil.rmtree(path, ignore_errors=True)
    return out


def _on_disk(path: Path) -> list[str]:
    return sorted(
        os.path.normpath(f)
        for f in glob.glob(str(path / "kind=*" / "**" / "*"), recursive=True)
        if os.path.isfile(f)
    )


def spread(total: int, count: int) -> list[int]:
    """``count`` write steps spread over ``1..=total`` (all of them when ``count >= total``)."""
    if count >= total:
        return list(range(1, total + 1))
    return sorted({1 + round(i * (total - 1) / (count - 1)) for i in range(count)})


def delays(world: World, count: int, seed: int = 22) -> list[float]:
    """Random delays over a child's whole run (its start included), reproducible."""
    r = random.Random(seed)
    return [r.uniform(0.0, world.clean_seconds) for _ in range(count)]
