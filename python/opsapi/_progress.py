"""Progress of fleet pulls, shown only where a person can see it.

- In Jupyter: a widget bar when tqdm and ipywidgets are installed (``pip install
  opsapi[notebook]``); without ipywidgets, nothing (tqdm's fallback is a frozen text bar in a
  red stderr box).
- In a terminal, the ``opsapi`` command included: a text bar on stderr when stderr is a TTY:
  tqdm's when it is installed (``pip install 'opsapi[progress]'``), else a plain one of this
  module's (:class:`TextBar`).
- Anywhere else nothing: a headless notebook run (nbclient, papermill, nbconvert
  ``--execute``, ``python -m opsapi.demo``), a pipe, a log file, a Dask worker.

``OPSAPI_PROGRESS=0`` turns the bars off everywhere; ``progress=False`` does for one call.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any, Callable, Optional

_OFF = {"0", "false", "no", "off", "never"}


def _kernel_mode() -> Optional[str]:
    """``"interactive"`` or ``"headless"`` inside an IPython kernel; None outside one."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return None
    try:
        shell = ipython.get_ipython()
    except Exception:
        return None
    kernel = getattr(shell, "kernel", None)
    if kernel is None:  # terminal IPython: its stderr decides
        return None
    # nbclient (and so papermill, nbconvert --execute and the demo) sends every cell with
    # allow_stdin=False, because no person is there to answer input(); Jupyter's own front
    # ends (JupyterLab, Notebook, VS Code) send True. ipykernel keeps it per request.
    allow_stdin = getattr(kernel, "_allow_stdin", True)
    return "interactive" if allow_stdin else "headless"


def _is_tty(stream: Any) -> bool:
    try:
        return stream is not None and bool(stream.isatty())
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


class TextBar:
    """A progress bar on a terminal without tqdm: one line, redrawn in place, gone when done.

    >>> import io
    >>> out = io.StringIO()
    >>> bar = TextBar(4, out, width=10)
    >>> bar.update(1); bar.update(1); bar.set_postfix(failed=1)
    >>> out.getvalue().split("\r")[-1]
    'opsapi fleet [#####     ] 2/4 targets, 1 failed'
    >>> bar.update(2); bar.close()
    """

    def __init__(self, total: int, file: Any, *, width: int = 30) -> None:
        self.total, self.file, self.width = total, file, width
        self.done, self.failed, self.shown = 0, 0, 0

    def _draw(self) -> None:
        filled = self.width * self.done // max(self.total, 1)
        line = (f"opsapi fleet [{'#' * filled}{' ' * (self.width - filled)}] "
                f"{self.done}/{self.total} targets")  # fmt: skip
        if self.failed:
            line += f", {self.failed} failed"
        # Spaces over what a longer line before left behind.
        self.file.write("\r" + line.ljust(self.shown))
        self.file.flush()
        self.shown = len(line)

    def update(self, n: int = 1) -> None:
        self.done += n
        self._draw()

    def set_postfix(self, failed: int = 0) -> None:
        self.failed = failed
        self._draw()

    def close(self) -> None:
        """Clears the line (as tqdm's ``leave=False``)."""
        self.file.write("\r" + " " * self.shown + "\r")
        self.file.flush()


def _bar(total: int) -> Any:
    if os.environ.get("OPSAPI_PROGRESS", "").strip().lower() in _OFF:
        return None
    mode = _kernel_mode()
    if importlib.util.find_spec("tqdm") is None:
        return TextBar(total, sys.stderr) if mode is None and _is_tty(sys.stderr) else None
    kwargs: dict[str, Any] = {"total": total, "desc": "opsapi fleet", "unit": "target"}
    if mode == "headless":
        return None
    if mode == "interactive":
        if importlib.util.find_spec("ipywidgets") is None:
            return None
        from tqdm.notebook import tqdm as notebook_tqdm

        # leave=False: the widget goes away when the pull is done.
        return notebook_tqdm(leave=False, **kwargs)
    stderr = sys.stderr
    if not _is_tty(stderr):
        return None
    from tqdm.std import tqdm as text_tqdm

    return text_tqdm(file=stderr, leave=False, dynamic_ncols=True, **kwargs)


def make_progress(total: int) -> Optional[Callable[[int, int, str, bool], None]]:
    """A callback ``(done, total, target, ok)`` that drives a progress bar, or None.

    >>> make_progress(1) is None  # one target: nothing to show
    True
    """
    if total <= 1:
        return None
    try:
        bar = _bar(total)
    except Exception:  # a front end that cannot show the bar is no reason to fail the pull
        return None
    if bar is None:
        return None
    failed = 0

    def update(done: int, total: int, target: str, ok: bool) -> None:
        nonlocal failed
        if not ok:
            failed += 1
            bar.set_postfix(failed=failed)
        bar.update(1)
        if done >= total:
            bar.close()

    return update
