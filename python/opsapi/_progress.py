"""Progress of fleet pulls: a tqdm bar when tqdm is installed, else nothing."""

from __future__ import annotations

from typing import Callable, Optional


def make_progress(total: int) -> Optional[Callable[[int, int, str, bool], None]]:
    """A callback ``(done, total, target, ok)`` that drives a progress bar, or None."""
    if total <= 1:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    bar = tqdm(total=total, desc="opsapi fleet", unit="target", leave=False)
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
