"""The measurement store's kill figure (issue 22 §4: "≥ 200 kills at random points, 0 torn files,
0 duplicate or lost points"): a sync killed (SIGKILL, in a child process) at every one of its
write steps and after random delays, each store checked as tests/python/_kills.py says, and
against a clean sync. ``make test`` runs a sample of these (tests/python/test_store.py).

    python bench/store_kills.py [--delays 130] [--results bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "python"))

import _kills  # noqa: E402

from store import into_results  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--delays", type=int, default=130, help="kills at random delays")
    ap.add_argument("--results", type=Path, help="put the section into this file")
    ap.add_argument("--json", type=Path, default=HERE / "store_kills.json")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="opsapi-store-kills-"))
    started = time.monotonic()
    world = _kills.make_world(root)
    try:
        at_steps = [_kills.kill_at_step(world, n) for n in range(1, world.steps + 1)]
        at_delays = [_kills.kill_after(world, d) for d in _kills.delays(world, args.delays)]
    finally:
        world.sim.close()
        shutil.rmtree(root, ignore_errors=True)
    outcomes = at_steps + at_delays
    problems = [f"{o.how}: {p}" for o in outcomes for p in o.problems]
    killed = [o for o in outcomes if o.killed]
    result = {
        "kills": len(killed),
        "at_steps": sum(o.killed for o in at_steps),
        "at_delays": sum(o.killed for o in at_delays),
        "not_killed": len(outcomes) - len(killed),
        "steps_per_sync": world.steps,
        "problems": len(problems),
        "first_problems": problems[:10],
        "saw_base": sum(o.saw == "base" for o in killed),
        "saw_clean": sum(o.saw == "clean" for o in killed),
        "torn_temporary": sum(o.torn_temporary for o in killed),
        "seconds": time.monotonic() - started,
    }
    args.json.write_text(json.dumps(result, indent=2))
    lines = [
        "## Measurement store: kills (issue 22)",
        "",
        "Measured by `bench/store_kills.py` (tests/python/_kills.py): a store of one project "
        "of 3 hosts (host and disk measurements, PT1H, window P2D) synced three times an hour "
        "apart; the next sync (a point added to every target, each target's month compacted) "
        "runs in a child process that is SIGKILLed at one of its write steps (it stops there "
        "through the store's hook, `OPSAPI_STORE_WRITES=pause:N`) or after a random delay "
        "over its whole run. Each store it leaves is checked: every `*.parquet` in the folder "
        "reads whole, the manifest's files hold what it says, no point is there twice, every "
        "target's last point is its data's, readers see the store as before the sync or as "
        "the sync left it, and one more sync ends exactly where a sync never killed ends, with "
        "no file the manifest does not list.",
        "",
        "| kills | at write steps | at random delays | problems | readers saw: before / after "
        "| torn temporary files (never read) | time |",
        "|---:|---:|---:|---:|---|---:|---:|",
        f"| {result['kills']} | {result['at_steps']} (every one of {world.steps}) | "
        f"{result['at_delays']} (of {args.delays}; the others ended first) | "
        f"{result['problems']} | {result['saw_base']} / {result['saw_clean']} | "
        f"{result['torn_temporary']} | {result['seconds']:.0f} s |",
        "",
    ]
    if problems:
        lines += ["Problems:", "", *[f"- {p}" for p in problems[:10]], ""]
    section = "\n".join(lines) + "\n"
    print(section)
    if args.results:
        into_results(args.results, section, "Measurement store: kills")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
