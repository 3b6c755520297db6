"""Ctrl-C during a long synchronous call cancels it promptly, and the process exits cleanly."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

CHILD = textwrap.dedent(
    """
    import sys, time
    import opsapi
    from opsapi.testing import Simulator

    with Simulator(seed=0) as sim:
        client = sim.client(max_retries=0, timeout=60)
        group = sim.group_ids[0]
        client.groups.list()                 # digest handshake done before the slow call
        sim.set_faults(latency=30.0)
        print("ready", flush=True)
        started = time.monotonic()
        try:
            client.hosts.list(group)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print(f"interrupted after {time.monotonic() - started:.2f}", flush=True)
        sim.set_faults()
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
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.5)  # the request is in flight, the simulator holds it for 30 s
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline().strip()
        reacted = time.monotonic() - sent
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert line.startswith("interrupted after "), (line, err)
    assert float(line.split()[-1]) < 3.0
    assert reacted < 2.0, f"took {reacted:.2f} s to react to Ctrl-C"
    assert child.returncode == 0, err
    assert "PyGILState_Release" not in err and "Fatal Python error" not in err, err
