"""Child processes a test reads from, each under a watchdog: a child that hangs before it writes
what the test waits for fails that test, named, in seconds, instead of hanging the run."""

from __future__ import annotations

import queue
import subprocess
import threading
import time
from typing import IO


class Lines:
    """The lines of a child's text stream, read on a thread of their own, handed over with a
    deadline."""

    def __init__(self, proc: subprocess.Popen[str], stream: IO[str] | None = None) -> None:
        self.proc = proc
        self._q: queue.Queue[str | None] = queue.Queue()
        source = stream if stream is not None else proc.stdout
        assert source is not None, "the child's output is not piped"

        def pump() -> None:
            for line in source:
                self._q.put(line)
            self._q.put(None)

        threading.Thread(target=pump, daemon=True).start()

    def next(self, timeout: float = 60.0, what: str = "a line") -> str:
        """The next line (with its newline); an AssertionError naming ``what`` when the child
        wrote none within ``timeout`` seconds (the child is killed) or ended."""
        try:
            line = self._q.get(timeout=timeout)
        except queue.Empty:
            self.proc.kill()
            raise AssertionError(f"the child wrote no {what} within {timeout} s") from None
        if line is None:
            raise AssertionError(f"the child ended (exit {self.proc.poll()}) before {what}")
        return line

    def env_until(self, marker: str, timeout: float = 60.0) -> dict[str, str]:
        """The ``OPSAPI_*=value`` lines up to the line starting with ``marker`` (the
        simulator's banner), all within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        env: dict[str, str] = {}
        while True:
            left = max(0.0, deadline - time.monotonic())
            line = self.next(left, what=f"banner line {marker!r}")
            if line.startswith(marker):
                return env
            key, sep, value = line.rstrip("\n").partition("=")
            if sep and key.startswith("OPSAPI_"):
                env[key] = value


def stop(proc: subprocess.Popen[str]) -> None:
    """Kills a child still running and reaps it (a test's ``finally``)."""
    if proc.poll() is None:
        proc.kill()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
