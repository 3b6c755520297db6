"""Progress bars only where a person sees them (opsapi._progress)."""

from __future__ import annotations

import io
import sys
import types

import pytest

pytest.importorskip("opsapi._native", reason="the compiled opsapi package is not installed")
pytest.importorskip("tqdm", reason="tqdm is not installed")

from conftest import FIXED_NOW

from opsapi import _progress  # noqa: E402


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _kernel(monkeypatch, allow_stdin: bool) -> None:
    shell = types.SimpleNamespace(kernel=types.SimpleNamespace(_allow_stdin=allow_stdin))
    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: shell  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", fake)


def test_text_bar_on_a_terminal(monkeypatch) -> None:
    monkeypatch.delenv("OPSAPI_PROGRESS", raising=False)
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    err = _Tty()
    monkeypatch.setattr(sys, "stderr", err)
    update = _progress.make_progress(3)
    assert update is not None
    for done in (1, 2, 3):
        update(done, 3, f"g/h{done}", done != 2)
    shown = err.getvalue()
    assert "opsapi fleet" in shown and "0/3" in shown and "failed=1" in shown
    # Redrawn in place and wiped when done (tqdm throttles redraws, so 3/3 may never show).
    assert "\n" not in shown and shown.endswith(" \r")


def test_a_plain_bar_on_a_terminal_without_tqdm(monkeypatch) -> None:
    """The help of sync and fleet promises a bar on a terminal: without tqdm, a plain one."""
    monkeypatch.delenv("OPSAPI_PROGRESS", raising=False)
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # as if not installed
    err = _Tty()
    monkeypatch.setattr(sys, "stderr", err)
    update = _progress.make_progress(3)
    assert update is not None
    for done in (1, 2, 3):
        update(done, 3, f"g/h{done}", done != 2)
    frames = err.getvalue().split("\r")
    assert "opsapi fleet [" in frames[1] and "] 1/3 targets" in frames[1]
    assert any(f.rstrip().endswith("3/3 targets, 1 failed") for f in frames), frames
    assert "\n" not in err.getvalue() and frames[-1] == ""  # wiped when done
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a pipe: nothing, with or without tqdm
    assert _progress.make_progress(3) is None


@pytest.mark.parametrize("env", [None, "0"])
def test_nothing_in_a_pipe_or_when_turned_off(monkeypatch, env) -> None:
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    if env is None:
        monkeypatch.delenv("OPSAPI_PROGRESS", raising=False)
        monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a TTY
    else:
        monkeypatch.setenv("OPSAPI_PROGRESS", env)
        monkeypatch.setattr(sys, "stderr", _Tty())
    assert _progress.make_progress(5) is None


def test_nothing_in_a_headless_kernel_even_with_a_tty(monkeypatch) -> None:
    monkeypatch.delenv("OPSAPI_PROGRESS", raising=False)
    monkeypatch.setattr(sys, "stderr", _Tty())
    _kernel(monkeypatch, allow_stdin=False)  # nbclient, papermill, the demo
    assert _progress.make_progress(5) is None
    assert sys.stderr.getvalue() == ""


def test_widget_in_an_interactive_kernel_only_with_ipywidgets(monkeypatch) -> None:
    monkeypatch.delenv("OPSAPI_PROGRESS", raising=False)
    monkeypatch.setattr(sys, "stderr", _Tty())
    _kernel(monkeypatch, allow_stdin=True)
    real_find_spec = _progress.importlib.util.find_spec
    monkeypatch.setattr(
        _progress.importlib.util,
        "find_spec",
        lambda name: None if name == "ipywidgets" else real_find_spec(name),
    )
    # Without ipywidgets: no bar, rather than tqdm's frozen text bar and TqdmWarning.
    assert _progress.make_progress(5) is None
    assert sys.stderr.getvalue() == ""


def test_widget_in_an_interactive_kernel_with_ipywidgets(monkeypatch) -> None:
    """Jupyter with ipywidgets (the notebook extra): the bar is a widget, displayed once,
    driven by the callback (value, failures), hidden when done; nothing on stderr."""
    ipywidgets = pytest.importorskip("ipywidgets", reason="ipywidgets is not installed")
    tqdm_notebook = pytest.importorskip("tqdm.notebook")  # imported before IPython is faked
    shown: list = []
    monkeypatch.setattr(tqdm_notebook, "display", lambda *objs, **_: shown.extend(objs))
    monkeypatch.delenv("OPSAPI_PROGRESS", raising=False)
    monkeypatch.setattr(sys, "stderr", _Tty())
    _kernel(monkeypatch, allow_stdin=True)  # JupyterLab, Notebook, VS Code
    update = _progress.make_progress(4)
    assert update is not None
    (container,) = shown
    assert isinstance(container, ipywidgets.Box)
    label, bar, text = container.children
    assert isinstance(bar, ipywidgets.FloatProgress) and bar.max == 4 and bar.value == 0
    assert "opsapi fleet" in label.value.replace("\u2007", " ")  # tqdm pads with figure spaces
    for done in (1, 2, 3, 4):
        update(done, 4, f"g/h{done}", done != 3)
    assert bar.value == 4  # (redraws are throttled: the last one counts)
    assert "failed=1" in text.value
    assert container.layout.visibility == "hidden"  # leave=False: gone when the pull is done
    assert len(shown) == 1 and sys.stderr.getvalue() == ""


def _pty_stderr(argv: list[str], env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """Runs argv with stderr on a pseudo-terminal (80 columns): (exit code, stdout, what the
    terminal received)."""
    import fcntl
    import os
    import struct
    import subprocess
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    try:
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=slave)  # fmt: skip
        os.close(slave)
        slave = -1
        seen = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        out = proc.stdout.read() if proc.stdout else b""
        return proc.wait(timeout=60), out, seen
    finally:
        os.close(master)
        if slave != -1:
            os.close(slave)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_the_cli_draws_a_text_bar_on_a_terminal_only(monkeypatch) -> None:
    """`opsapi measurements fleet` in a real terminal (a pty on stderr): a text bar; the same
    command with stderr in a pipe: none."""
    import json
    import os
    import subprocess

    from opsapi.testing import Simulator

    with Simulator(seed=0, projects=1, hosts_per_project=4, now=FIXED_NOW) as sim:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPSAPI_")}
        env.update(
            OPSAPI_BASE_URL=sim.base_url,
            OPSAPI_PUBLIC_KEY=sim.public_key,
            OPSAPI_PRIVATE_KEY=sim.private_key,
            OPSAPI_CONFIG=os.devnull,
        )
        argv = [sys.executable, "-m", "opsapi", "measurements", "fleet", "--granularity",
                "PT1H", "--period", "PT6H", "--metric", "CONNECTIONS", "-o", "json"]  # fmt: skip
        code, out, terminal = _pty_stderr(argv, env)
        assert code == 0, terminal.decode(errors="replace")
        assert {r["host_id"] for r in json.loads(out)} and b"Traceback" not in terminal
        text = terminal.decode(errors="replace")
        assert "opsapi fleet" in text and "/4" in text and "\r" in text, text  # a redrawn bar
        piped = subprocess.run(argv, env=env, capture_output=True, timeout=60)
        assert piped.returncode == 0
        assert piped.stderr == b""  # no bar, no stray output, in a pipe
