"""``python -m opsapi.demo --out out/``: the capacity report, headless, against the simulator.

Loads 14 days of measurements of every host (:func:`load`), writes the report a team lead
reads to ``<out>/capacity.html`` (one file that works offline: what runs out first, the
headroom table, a chart per finding; ``opsapi._report``), the frames behind it as Parquet
next to it, and prints the summary. The analyst's notebook (``notebooks/capacity.ipynb``)
calls the same functions, with its code.

Needs ``altair`` and ``vl-convert-python``.

Example::

    $ python -m opsapi.demo --out out/
    $ python -m opsapi.demo --live          # OPSAPI_* kept: the report of a real deployment
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from opsapi._report import ReportData

_CREDENTIALS = ("OPSAPI_BASE_URL", "OPSAPI_PUBLIC_KEY", "OPSAPI_PRIVATE_KEY", "OPSAPI_CA_FILE")
# The simulator's clock for the demo: the same report whenever it runs.
DEMO_NOW = datetime(2026, 3, 2, 10, tzinfo=timezone.utc)


def load(live: bool, window: str = "14d") -> ReportData:
    """Everything the report reads, in one place: a real deployment's (``OPSAPI_*``) with
    ``live``, else the built-in simulator's (seed 0, on a fixed clock). A local measurement
    store plugs in here."""
    import opsapi
    from opsapi import capacity
    from opsapi._report import ReportData
    from opsapi.testing import Simulator

    sim = None if live else Simulator(seed=0, now=DEMO_NOW)
    try:
        client = opsapi.Client.from_env() if sim is None else sim.client()
        names = {g.id: g.name for g in client.groups.list()}
        inputs = capacity.headroom_inputs(client, list(names), window=window)
        db_targets = [
            (h.group_id, h.id, d)
            for h in inputs.hosts
            for d in client.hosts.databases(h.group_id, h.id)
        ]
        db_frame = client.measurements.fleet(
            db_targets, kind="database", granularity="PT1H", period="P14D",
            metrics=[capacity.STORAGE_SIZE, capacity.INDEX_SIZE],
        )  # fmt: skip
    finally:
        if sim is not None:
            sim.close()
    return ReportData(
        inputs.host_frame, inputs.disk_frame, inputs.hosts, names, window,
        now=None if live else DEMO_NOW, db_frame=db_frame,
    )  # fmt: skip


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the demo; returns the exit code (0 on success, 2 when a dependency is missing)."""
    p = argparse.ArgumentParser(prog="python -m opsapi.demo", description=__doc__.splitlines()[0])
    p.add_argument("--out", default="out", help="output directory (default: out)")
    p.add_argument(
        "--live", action="store_true", help="keep OPSAPI_* (default: the built-in simulator)"
    )
    p.add_argument("--window", default="14d", help="how far back (default 14d)")
    args = p.parse_args(list(argv) if argv is not None else None)
    try:
        import altair  # noqa: F401
        import vl_convert  # noqa: F401
    except ImportError as e:
        print(f"error: {e.name} is missing; install altair vl-convert-python", file=sys.stderr)
        return 2
    from opsapi import _report

    if not args.live:  # the simulator, whatever credentials the shell holds
        for name in _CREDENTIALS:
            os.environ.pop(name, None)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    print("loading measurements ...", file=sys.stderr, flush=True)
    data = load(args.live, args.window)
    report = out / "capacity.html"
    report.write_text(_report.render(data), encoding="utf-8")
    for name, frame in data.frames.items():
        frame.write_parquet(out / f"{name}.parquet")
    print(f"report: {report}")
    for line in data.frames["summary"]["summary"]:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
