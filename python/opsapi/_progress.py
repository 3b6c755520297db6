"""Progress of fleet pulls, shown only where a person can see it.

- In Jupyter: a widget bar when tqdm and ipywidgets are installed (``pip install
  opsapi[notebook]``); without ipywidgets, nothing (tqdm's fallback is a frozen text bar in a
  red stderr box).
- In a terminal, the ``opsapi`` command included: a text bar on stderr when stderr is a TTY and
  tqdm is installed.
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


def _bar(total: int) -> Any:
    if os.environ.get("OPSAPI_PROGRESS", "").strip().lower() in _OFF:
        return None
    if importlib.util.find_spec("tqdm") is None:
        return None
    mode = _kernel_mode()
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
    try:
        is_tty = stderr is not None and stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stderr
        is_tty = False
    if not is_tty:
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
