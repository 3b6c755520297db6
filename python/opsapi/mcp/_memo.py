"""Computed once, kept while their inputs stand: the server's caches.

A value is kept under a key that names everything it was computed from (for headroom: the
store's snapshot, the hosts' topology, the projects and the parameters), so a stale value is
never served: a new snapshot is a new key. A caller asking for a key that another thread is
computing waits for that computation rather than starting its own (an assistant often asks
two tools at once).

>>> memo = Memo(keep=2)
>>> memo.get("a", lambda: 1)[:2], memo.get("a", lambda: 2)[:2]
((1, False), (1, True))
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Callable, NamedTuple, Optional

__all__ = ["Got", "Memo"]


class Got(NamedTuple):
    """What :meth:`Memo.get` returns: the value, whether it was there already, how long its
    computation took (seconds) and when it finished (``time.time()``)."""

    value: Any
    hit: bool
    seconds: float
    at: float


class _Entry:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: Any = None
        self.error: Optional[BaseException] = None
        self.seconds = 0.0
        self.at = 0.0


class Memo:
    """At most ``keep`` values, the least recently used dropped first. A computation that
    raised is not kept: the next caller tries again."""

    def __init__(self, keep: int = 8) -> None:
        self._keep = keep
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Got:
        with self._lock:
            entry = self._entries.get(key)
            mine = entry is None
            if entry is None:
                entry = self._entries[key] = _Entry()
                while len(self._entries) > self._keep:
                    self._entries.popitem(last=False)
            else:
                self._entries.move_to_end(key)
        if not mine:
            entry.done.wait()
            if entry.error is not None:
                raise entry.error
            return Got(entry.value, True, entry.seconds, entry.at)
        t0 = time.perf_counter()
        try:
            entry.value = compute()
        except BaseException as e:
            entry.error = e
            with self._lock:
                if self._entries.get(key) is entry:
                    del self._entries[key]
            raise
        finally:
            entry.seconds = time.perf_counter() - t0
            entry.at = time.time()
            entry.done.set()
        return Got(entry.value, False, entry.seconds, entry.at)

    def peek(self, key: Hashable) -> Optional[Got]:
        """The value kept under ``key``, if it is there and done (nothing is computed)."""
        with self._lock:
            entry = self._entries.get(key)
        if entry is None or not entry.done.is_set() or entry.error is not None:
            return None
        return Got(entry.value, True, entry.seconds, entry.at)

    def items(self) -> list[tuple[Hashable, Got]]:
        """The keys and values kept now and done (nothing is computed)."""
        with self._lock:
            keys = list(self._entries)
        return [(k, got) for k in keys if (got := self.peek(k)) is not None]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
