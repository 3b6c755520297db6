"""Ctrl-C during a long synchronous call cancels it promptly, and the process exits cleanly."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

from _children import Lines, stop

CHILD = textwrap.dedent(
    """
    import threading, time
    import opsapi
    from opsapi.testing import Simulator

    with Simulator(seed=0, now="2026-03-02T10:00:00Z") as sim:
        client = sim.client(max_retries=0, timeout=60)
        group = sim.group_ids[0]
        client.groups.list()                 # digest handshake done before the slow call
        # The slow call's request is held on arrival: "ready" means it is in flight.
        held = sim.hold(path=f"/groups/{group}/hosts")

        def announce():
            if held.wait_arrived(60):
                print("ready", flush=True)

        threading.Thread(target=announce, daemon=True).start()
        started = time.monotonic()
        try:
            client.hosts.list(group)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print(f"interrupted after {time.monotonic() - started:.2f}", flush=True)
        held.release()
    """
)


def test_ctrl_c_cancels_a_slow_call_promptly() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = Lines(child)
        assert lines.next(what="'ready'").strip() == "ready"
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        line = lines.next(what="'interrupted after'").strip()
        reacted = time.monotonic() - sent
        assert child.wait(timeout=60) == 0, child.stderr.read() if child.stderr else ""
        err = child.stderr.read() if child.stderr else ""
    finally:
        stop(child)
    assert line.startswith("interrupted after "), (line, err)
    # behaviour: Ctrl-C ends the call at once; uninterrupted, the held request would keep it
    # for its whole 60 s budget. 20 s tells the two apart with room for a loaded machine.
    assert reacted < 20.0, f"took {reacted:.2f} s to react to Ctrl-C"
    assert "PyGILState_Release" not in err and "Fatal Python error" not in err, err
