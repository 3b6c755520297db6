"""Readers of a measurement store in other processes, scanning and collecting it over and over
while the test syncs it (issue 31: "readers in other processes scan and collect continuously
through 50 syncs that compact, with 0 errors").

Each reader is a child process: it takes ``store.scan(...)`` of a random kind and collects it
(at once, or after a pause, as a LazyFrame taken before a sync and collected after it), checks
that no point is there twice, and at its end prints each kind of error it met (class, path,
message, how often) as one JSON line. A test that must
change the store under the readers' feet outside a sync (a file corrupted on purpose) pauses
them first: ``pause()`` returns once every reader is idle between two scans.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

READER = r"""
import json, os, random, sys, time, traceback
import opsapi
path, kinds, ctl, name, seed = sys.argv[1:6]
kinds, seed = kinds.split(","), int(seed)
rng = random.Random(seed)
store = opsapi.Store(path)
stop, pause = os.path.join(ctl, "stop"), os.path.join(ctl, "pause")
idle = os.path.join(ctl, "idle-" + name)
keys = ["group_id", "host_id", "partition_name", "database_name", "measurement", "timestamp"]
scans = lazy = rows = 0
errors = {}  # one entry per kind of error (class, path, message), with how often
def found(e, text):
    key = (type(e).__name__ if e else "", getattr(e, "path", None), text.splitlines()[-1])
    errors.setdefault(key, [text, 0])[1] += 1
print("ready", flush=True)
while scans == 0 or not os.path.exists(stop):
    if os.path.exists(pause):
        open(idle, "w").close()
        time.sleep(0.005)
        continue
    if os.path.exists(idle):
        os.remove(idle)
    try:
        lf = store.scan(kind=rng.choice(kinds), granularity="PT1H")
        if rng.random() < 0.3:  # taken now, collected after whatever syncs run meanwhile
            time.sleep(rng.uniform(0.0, 0.2))
            lazy += 1
        df = lf.collect()
        dup = df.select(keys).is_duplicated().sum()
        if dup:
            found(None, f"{dup} points twice in one scan")
        rows += df.height
    except Exception as e:
        found(e, traceback.format_exc())
    scans += 1
for (kind, where, _), (text, n) in errors.items():
    print(json.dumps({"error": text, "type": kind, "path": where, "times": n}), flush=True)
print(json.dumps({"scans": scans, "lazy": lazy, "rows": rows}), flush=True)
"""


@dataclass
class Result:
    """What the readers did: scans (of which collected after a pause), and every error (its
    traceback, exception class and ``path`` when it has one)."""

    scans: int = 0
    lazy: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)


class Readers:
    """``n`` reader processes of the store at ``path`` (a context manager: ``stop()`` on exit)."""

    def __init__(self, n: int, path: Path, kinds: tuple[str, ...], ctl: Path, seed: int = 0):
        self.ctl = ctl
        ctl.mkdir(parents=True, exist_ok=True)
        self.n = n
        self.procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    READER,
                    str(path),
                    ",".join(kinds),
                    str(ctl),
                    str(i),
                    str(seed + i),
                ],  # fmt: skip
                stdout=subprocess.PIPE,
                text=True,
            )
            for i in range(n)
        ]
        for p in self.procs:
            assert p.stdout is not None
            line = p.stdout.readline()
            assert line.strip() == "ready", f"a reader did not start: {line!r}"
        self.result = Result()

    def __enter__(self) -> Readers:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def pause(self, timeout: float = 60.0) -> None:
        """Holds every reader between two scans; returns once all are idle."""
        (self.ctl / "pause").touch()
        deadline = time.monotonic() + timeout
        while not all((self.ctl / f"idle-{i}").exists() for i in range(self.n)):
            assert time.monotonic() < deadline, "the readers did not pause"
            time.sleep(0.005)

    def resume(self) -> None:
        (self.ctl / "pause").unlink(missing_ok=True)

    def stop(self) -> Result:
        """Ends the readers (each after one scan at least) and gathers what they did."""
        if not self.procs:
            return self.result
        self.resume()
        (self.ctl / "stop").touch()
        for p in self.procs:
            out, _ = p.communicate(timeout=300)
            for line in out.splitlines():
                msg = json.loads(line)
                if "error" in msg:
                    self.result.errors.append(msg)
                else:
                    self.result.scans += msg["scans"]
                    self.result.lazy += msg["lazy"]
            if p.returncode != 0:
                self.result.errors.append({"error": f"a reader exited {p.returncode}"})
        self.procs = []
        return self.result
