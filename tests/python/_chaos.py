"""The measurement store's chaos run (issue 31, "Done when"): random sequences of syncs,
syncs killed with SIGKILL (at a write step, or after a random delay), files corrupted
(truncated, filled with noise, deleted), the server's clock skewed a year ahead, while readers
in other processes scan and collect without pause; every store it leaves checked against a
clean reference.

- The **world**: a simulator on a fixed clock (one project, two hosts; hourly data kept two
  days by the server, as Ops Manager keeps less than the store), the *chaos* store (window
  three days) and the *clean* store, synced in this process, right after each sync the chaos
  store tried, with the clock right.
- Every **corruption** is named by ``store.check()`` at once, and the next sync that runs
  whole repairs it: afterwards ``check()`` finds nothing, and the points come back, or, where
  the server no longer has them, are recorded as a gap.
- A sync while the server's clock is a year ahead removes nothing by the window: no target's
  first point moves (but where it lost its first file to a gap).
- Readers never fail: a scan that raises, or a point twice in one scan, is a finding, except
  the error that names a file corrupted on purpose (``StoreFileError``: what a reader is
  promised). They are held between two scans while a file is corrupted, as no reader can be
  promised a file damaged while it reads it.
- At the **end**, after one last sync: no point twice, every point of the clean store's
  window in the chaos store with the same value, but those in a recorded gap, and no point
  there that the clean store lacks; the points both hold before the window agree;
  ``check()`` clean.

``python tests/python/_chaos.py --seconds 1200 --seed 7`` is the long run (``make
test-stress``); tests/python/test_store_chaos.py runs a short one in ``make test``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import polars as pl

sys.path.insert(0, os.path.dirname(__file__))
from _readers import Readers  # noqa: E402

import opsapi  # noqa: E402
from opsapi.testing import Simulator  # noqa: E402

FIXED_NOW = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)
KINDS = ("host", "disk")
OPTIONS: dict[str, Any] = {"kind": KINDS, "granularity": "PT1H", "window": "P3D", "progress": False}
KEYS = ["group_id", "host_id", "partition_name", "database_name", "measurement", "timestamp"]
HOOK = "OPSAPI_STORE_WRITES"
# What a run does, and how often: time passing, syncs, killed syncs, corruptions, the clock.
ACTIONS = ["advance", "sync", "kill", "corrupt", "skew"]
WEIGHTS = [4, 3, 3, 2, 1]
CHILD = """
import sys, opsapi
url, public, private, path = sys.argv[1:5]
client = opsapi.Client(url, public, private, max_retries=0)
client.measurements.sync(opsapi.Store(path), kind=("host", "disk"), granularity="PT1H",
                         window="P3D", progress=False)
"""


@dataclass
class Figures:
    """What a run did and found."""

    actions: dict[str, int] = field(default_factory=dict)
    kills: int = 0
    corruptions: int = 0
    named: int = 0
    repaired: int = 0
    gaps: int = 0
    points_lost: int = 0
    scans: int = 0
    lazy_scans: int = 0
    named_to_readers: int = 0
    problems: list[str] = field(default_factory=list)

    def count(self, action: str) -> None:
        self.actions[action] = self.actions.get(action, 0) + 1


class Chaos:
    def __init__(self, root: Path, seed: int, weights: list[int] | None = None) -> None:
        self.rng = random.Random(seed)
        self.weights = weights or WEIGHTS
        self.root = root
        self.sim = Simulator(
            seed=seed,
            projects=1,
            hosts_per_project=2,
            now=FIXED_NOW,
            retention={"PT1H": 2 * 86400},
        )
        self.client = self.sim.client()
        self.path = root / "chaos"
        self.store = opsapi.Store(self.path)
        self.clean = opsapi.Store(root / "clean")
        self.skew = 0.0
        self.figures = Figures()
        # Corrupted files not yet repaired by a sync that ran whole, and all of them.
        self.outstanding: set[str] = set()
        self.corrupted: set[str] = set()

    # ---- actions ----------------------------------------------------------------------------

    def sync(self) -> None:
        firsts = _firsts(self.store) if self.skew > 0 else None
        report = self.client.measurements.sync(self.store, **OPTIONS)
        self.after_whole_sync(report, firsts)

    def after_whole_sync(self, report: Any, firsts: pl.DataFrame | None = None) -> None:
        """A sync that ran whole (``report``: None for a child's) repaired every corruption."""
        if report is not None:
            self.figures.gaps += len(report.gaps)
            self.figures.points_lost += sum(g["points"] for g in report.gaps)
        check = self.store.check()
        if not check.ok:
            self.figures.problems.append(f"after a whole sync, check(): {check.problems.rows()}")
        self.figures.repaired += len(self.outstanding)
        self.outstanding.clear()
        if firsts is not None and report is not None:
            self.nothing_left_the_window(firsts, report)
        self.sync_clean()

    def nothing_left_the_window(self, firsts: pl.DataFrame, report: Any) -> None:
        """After a sync with the clock a year ahead: no target's first point moved, but where
        its first file was lost to a gap."""
        after = _firsts(self.store)
        moved = firsts.join(after, on=TARGET, suffix="_after", nulls_equal=True).filter(
            (pl.col("first_after") > pl.col("first")) & (pl.col("gaps_after") <= pl.col("gaps"))
        )
        moved = moved.rows(named=True)
        if moved:
            self.figures.problems.append(f"a sync with the clock a year ahead removed {moved}")

    def sync_clean(self) -> None:
        skew = self.skew
        self.set_skew(0.0)
        self.client.measurements.sync(self.clean, **OPTIONS)
        self.set_skew(skew)

    def kill(self) -> None:
        """A sync in a child, killed at a random write step or after a random delay."""
        env = {k: v for k, v in os.environ.items() if k != HOOK}
        env["OPSAPI_PROGRESS"] = "0"
        at_step = self.rng.random() < 0.5
        if at_step:
            env[HOOK] = f"pause:{self.rng.randint(1, 80)}"
        s = self.sim
        args = [sys.executable, "-c", CHILD, s.base_url, s.public_key, s.private_key]
        args.append(str(self.path))
        proc = subprocess.Popen(args, env=env, stderr=subprocess.PIPE, text=True)
        killed = False
        if at_step:
            assert proc.stderr is not None
            for line in proc.stderr:
                if line.startswith("opsapi-store-pause "):
                    os.kill(proc.pid, signal.SIGKILL)
                    killed = True
                    break
        else:
            try:
                proc.wait(timeout=self.rng.uniform(0.3, 2.5))
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                killed = True
        proc.wait(timeout=60)
        if killed:
            self.figures.kills += 1
            self.sync_clean()
        elif proc.returncode != 0:
            self.figures.problems.append(f"a sync child failed: exit {proc.returncode}")
            self.sync_clean()
        else:  # it ran whole before it could be killed
            self.after_whole_sync(None)

    def corrupt(self, readers: Readers) -> None:
        """A live file truncated, filled with noise or deleted, while the readers are held;
        ``check()`` must name it (and every other one not yet repaired)."""
        files = [f for f in _live_files(self.path) if f not in self.outstanding]
        files = [f for f in files if os.path.exists(f)]
        if not files:
            return
        victim = self.rng.choice(files)
        how = self.rng.choice(["truncate", "noise", "delete"])
        readers.pause()
        try:
            if how == "delete":
                os.remove(victim)
            else:
                size = os.path.getsize(victim)
                with open(victim, "r+b") as f:
                    if how == "truncate":
                        f.truncate(self.rng.randint(0, size - 1))
                    else:
                        f.write(bytes(self.rng.getrandbits(8) for _ in range(size)))
        finally:
            readers.resume()
        self.figures.corruptions += 1
        self.corrupted.add(victim)
        self.outstanding.add(victim)
        named = {p for p, _ in self.store.check().problems.rows()}
        if victim in named:
            self.figures.named += 1
        else:
            self.figures.problems.append(f"check() did not name {victim} ({how})")

    def set_skew(self, seconds: float) -> None:
        self.skew = seconds
        self.sim.set_date_skew(seconds)

    def skew_clock(self) -> None:
        if self.skew:
            self.set_skew(0.0)
        else:
            ahead = datetime.now(timezone.utc) + timedelta(days=365) - self.sim.now
            self.set_skew(ahead.total_seconds())

    # ---- the run and its end ------------------------------------------------------------------

    def run(self, seconds: float, readers: int = 2) -> Figures:
        self.sync()
        deadline = time.monotonic() + seconds
        with Readers(readers, self.path, KINDS, self.root / "readers", seed=7) as rs:
            while time.monotonic() < deadline:
                action = self.rng.choices(ACTIONS, self.weights)[0]
                self.figures.count(action)
                if action == "advance":
                    self.sim.advance(3600 * self.rng.randint(1, 5))
                elif action == "sync":
                    self.sync()
                elif action == "kill":
                    self.kill()
                elif action == "corrupt":
                    self.corrupt(rs)
                else:
                    self.skew_clock()
            result = rs.stop()
        self.figures.scans, self.figures.lazy_scans = result.scans, result.lazy
        for e in result.errors:
            if e.get("type") == "StoreFileError" and e.get("path") in self.corrupted:
                self.figures.named_to_readers += 1
            else:
                self.figures.problems.append(f"reader: {e['error']}")
        self.set_skew(0.0)
        self.sync()
        self.compare()
        return self.figures

    def compare(self) -> None:
        """The chaos store against the clean one (see the module's docstring)."""
        problems = self.figures.problems
        window_start = self.sim.now - timedelta(days=3)
        for kind in KINDS:
            got = _frame(self.store, kind)
            want = _frame(self.clean, kind)
            dup = got.select(KEYS).is_duplicated().sum()
            if dup:
                problems.append(f"{kind}: {dup} points twice")
            joined = want.join(got, on=KEYS, how="left", suffix="_got", nulls_equal=True)
            recent = joined.filter(pl.col("timestamp") >= window_start)
            missing = recent.filter(pl.col("value_got").is_null() & pl.col("value").is_not_null())
            missing = missing.filter(~self._in_gap(kind, missing))
            if missing.height:
                problems.append(f"{kind}: {missing.height} points of the window lost")
            both = joined.filter(pl.col("value").is_not_null() & pl.col("value_got").is_not_null())
            if both.filter(pl.col("value") != pl.col("value_got")).height:
                problems.append(f"{kind}: points whose value differs from the clean store's")
            extra = got.join(want, on=KEYS, how="anti", nulls_equal=True)
            extra = extra.filter(pl.col("timestamp") >= window_start)
            if extra.height:
                problems.append(f"{kind}: {extra.height} points not in the clean store")
        if not self.store.check().ok:
            problems.append("check() after the last sync")

    def _in_gap(self, kind: str, rows: pl.DataFrame) -> pl.Series:
        """Whether each row lies in a gap the manifest records for its target."""
        manifest = json.loads((self.path / "MANIFEST.json").read_text())
        gaps: dict[tuple[Any, ...], list[tuple[int, int]]] = {}
        for t in manifest["targets"]:
            key = (t["kind"], t["group_id"], t["host_id"], t.get("name"))
            gaps.setdefault(key, []).extend((g["first"], g["last"]) for g in t.get("gaps", []))
        out = []
        for r in rows.iter_rows(named=True):
            key = (kind, r["group_id"], r["host_id"], r["partition_name"])
            ms = int(r["timestamp"].timestamp() * 1000)
            out.append(any(a <= ms <= b for a, b in gaps.get(key, [])))
        return pl.Series(out, dtype=pl.Boolean)

    def close(self) -> None:
        self.sim.close()


TARGET = ["kind", "group_id", "host_id", "partition_name"]


def _firsts(store: opsapi.Store) -> pl.DataFrame:
    """Each target's first point, and its gaps (a sync that finds a file lost since may move
    the first point, recording a gap)."""
    t = store.targets().select(*TARGET, "first", "gaps")
    return t.with_columns(pl.col(TARGET).cast(pl.String))


def _live_files(path: Path) -> list[str]:
    """The live files as the manifest names them (not ``files()``, which refuses a store
    with a damaged file)."""
    manifest = json.loads((path / "MANIFEST.json").read_text())
    return [str(path / f["name"]) for t in manifest["targets"] for f in t["files"]]


def _frame(store: opsapi.Store, kind: str) -> pl.DataFrame:
    df = store.scan(kind=kind, granularity="PT1H").collect()
    keys = [c for c in df.columns if df[c].dtype == pl.Categorical]
    return df.with_columns(pl.col(keys).cast(pl.String))


def run(
    seconds: float, seed: int, root: Path | None = None, weights: list[int] | None = None
) -> Figures:
    tmp = Path(tempfile.mkdtemp(prefix="opsapi-chaos-")) if root is None else root
    chaos = Chaos(tmp, seed, weights)
    try:
        return chaos.run(seconds)
    finally:
        chaos.close()
        if root is None:
            shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=1200.0)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    started = time.monotonic()
    f = run(a.seconds, a.seed)
    print(
        f"chaos, seed {a.seed}, {time.monotonic() - started:.0f} s: actions {f.actions}; "
        f"{f.kills} syncs killed; {f.corruptions} files corrupted, {f.named} named by check(), "
        f"{f.repaired} repaired; {f.gaps} gaps ({f.points_lost} points the server no longer "
        f"had); readers: {f.scans} scans ({f.lazy_scans} collected later, "
        f"{f.named_to_readers} told of a damaged file by name); "
        f"{len(f.problems)} problems"
    )
    for p in f.problems:
        print("problem:", p)
    return 1 if f.problems else 0


if __name__ == "__main__":
    sys.exit(main())
