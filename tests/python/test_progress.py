"""Progress bars only where a person sees them (opsapi._progress)."""

from __future__ import annotations

import io
import sys
import types

import pytest

pytest.importorskip("opsapi._native", reason="the compiled opsapi package is not installed")
pytest.importorskip("tqdm", reason="tqdm is not installed")

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
