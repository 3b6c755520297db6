"""What the tools read, and what the server keeps between questions.

:class:`Fleet` holds the client, the measurement store (``--store``) and the caches:

- the projects, and each project's hosts and clusters, listed again after
  :attr:`Settings.listing_seconds`;
- headroom (:func:`opsapi.capacity.headroom`), kept under a key naming all it was computed
  from: the store's snapshot (its manifest, which every sync replaces whole), the topology
  and clusters of the projects' hosts, the projects and the parameters. Whatever headroom
  returns is kept as it is (its columns are its own), so a change to headroom's method needs
  nothing here. Without a store, the measurements are pulled from the API
  (:func:`opsapi.capacity.headroom_inputs`) and a pull is reused for
  :attr:`Settings.pull_seconds`.

With a store, a thread started by :meth:`Fleet.start` computes headroom for every project at
once and again whenever a sync has changed the store (looked at every
:attr:`Settings.refresh_seconds`), so that the first question after a sync is answered from
what is already computed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, NamedTuple, Optional

import polars as pl
from mcp.server.mcpserver.exceptions import ToolError

import opsapi
from opsapi import capacity
from opsapi._duration import parse_duration

from ._memo import Memo

__all__ = ["Fleet", "Headroom", "Settings"]

log = logging.getLogger("opsapi.mcp")


@dataclass(frozen=True)
class Settings:
    """How the server reads the fleet (``opsapi mcp``'s options).

    >>> Settings(store="fleet-store").window
    '14d'
    """

    #: The measurement store's folder, or None: measurements from the API.
    store: Optional[str] = None
    #: The granularity headroom reads (of the store, or pulled).
    granularity: str = "PT1H"
    #: How far back headroom's statistics and fits look.
    window: str = "14d"
    #: How much history headroom reads for its backtests (None: all the store holds; without
    #: a store, the window alone).
    history: Optional[str] = None
    #: Whether ``acknowledge_alert`` is registered.
    allow_writes: bool = False
    #: The longest acknowledgement ``acknowledge_alert`` sends.
    max_ack: timedelta = timedelta(days=7)
    #: How long a listing of projects, hosts or clusters is reused.
    listing_seconds: float = 300.0
    #: Without a store: how long a pull of the measurements is reused.
    pull_seconds: float = 900.0
    #: With a store: how often the background thread looks for a new snapshot (None: no
    #: thread).
    refresh_seconds: Optional[float] = 30.0


class Headroom(NamedTuple):
    """Headroom of some projects, with what it was computed from."""

    frame: pl.DataFrame
    #: The newest measurement it read (headroom's "now").
    as_of: Optional[datetime]
    #: ``store PATH`` or ``the API``.
    source: str
    clusters: list[Any]
    #: Whether it was computed before this question, how long it took, and when.
    hit: bool
    seconds: float
    computed_at: float
    #: What it was kept under (what :meth:`Fleet._derived` keeps its derivations under).
    key: Any = None


class Fleet:
    """The client, the store and the caches the tools share (thread-safe: the SDK runs each
    tool call on a worker thread): what :func:`~opsapi.mcp.build_server` serves. Its methods
    with a leading underscore are the tools' (``_capacity.py``, ``_alerts.py``)."""

    def __init__(self, client: Any, settings: Settings) -> None:
        self.client = client
        self.settings = settings
        self.store = opsapi.Store(settings.store) if settings.store else None
        self._lock = threading.Lock()
        self._names_listed: Optional[tuple[float, dict[str, str]]] = None
        self._listed: dict[str, tuple[float, list[Any], list[Any]]] = {}
        self._headroom = Memo(keep=6)
        self._derivations = Memo(keep=24)
        self._alert_groups: dict[str, str] = {}
        #: The alerts results showed, as they were then (what a confirmation describes
        #: without asking the API anything before the person's answer).
        self._alerts_seen: dict[str, Any] = {}
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self.last_check: Optional[dict[str, Any]] = None

    # ---- clocks and projects ---------------------------------------------------------------

    def _now(self) -> datetime:
        """The API server's clock, as its answers' ``Date`` show it (else this machine's), to
        the minute: the client moves it on by this machine's clock between answers, and a
        result that names "now" reads the same through the minute (a question asked again,
        the guide's transcript)."""
        if self._names_listed is None:
            self._names()  # the client learns the server's clock from an answer
        now: datetime = self.client.server_time
        return now.replace(second=0, microsecond=0)

    def _known_now(self) -> Optional[datetime]:
        """The API server's clock (as :meth:`_now`) if an answer has shown it already, else
        None: nothing is asked to learn it."""
        if self._names_listed is None:
            return None
        return self._now()

    def _known_names(self) -> dict[str, str]:
        """The projects' names as the last listing gave them (empty before one): nothing is
        asked."""
        with self._lock:
            got = self._names_listed
        return {} if got is None else got[1]

    def _names(self) -> dict[str, str]:
        """Every project the key can see: id -> name."""
        with self._lock:
            got = self._names_listed
        if got is None or time.monotonic() - got[0] > self.settings.listing_seconds:
            names = {g.id: g.name or g.id for g in self.client.groups.list()}
            got = (time.monotonic(), names)
            with self._lock:
                self._names_listed = got
        return got[1]

    def _project_ids(self, project: Optional[str]) -> list[str]:
        """The projects a tool's ``project`` names (a name, any case, or an id), or all."""
        names = self._names()
        if project is None:
            return list(names)
        if project in names:
            return [project]
        found = [g for g, n in names.items() if n == project] or [
            g for g, n in names.items() if n.lower() == project.lower()
        ]
        if len(found) == 1:
            return found
        known = ", ".join(sorted(names.values())[:20])
        if found:
            raise ToolError(f"project: {len(found)} projects are named {project!r}; give the id")
        raise ToolError(f"project: no project is named {project!r} or has that id; the key "
                        f"sees: {known}")  # fmt: skip

    def _listings(self, ids: Sequence[str]) -> tuple[list[Any], list[Any]]:
        """The hosts and clusters of the projects ``ids`` (each project's listed again when
        older than :attr:`Settings.listing_seconds`), fetched concurrently."""
        now = time.monotonic()
        with self._lock:
            stale = [
                g for g in ids
                if g not in self._listed
                or now - self._listed[g][0] > self.settings.listing_seconds
            ]  # fmt: skip
        if stale:
            workers = max(1, min(8, len(stale)))
            with ThreadPoolExecutor(workers) as pool:
                hosts = list(pool.map(lambda g: list(self.client.hosts.list(g)), stale))
                clusters = list(pool.map(lambda g: list(self.client.clusters.list(g)), stale))
            with self._lock:
                for g, h, c in zip(stale, hosts, clusters):
                    self._listed[g] = (now, h, c)
        with self._lock:
            listed = [self._listed[g] for g in ids]
        return [h for _, hs, _ in listed for h in hs], [c for _, _, cs in listed for c in cs]

    def _host(self, target: str, ids: Sequence[str]) -> Any:
        """The host ``target`` names: its id, ``hostname:port`` or its host name alone (when
        one host has it)."""
        hosts, _ = self._listings(ids)
        t = target.lower()
        exact = [h for h in hosts if (h.id or "").lower() == t or _member(h).lower() == t]
        named = exact or [h for h in hosts if (h.hostname or "").lower() == t]
        if len(named) == 1:
            return named[0]
        if named:
            ports = ", ".join(sorted(_member(h) for h in named))
            raise ToolError(f"target: {target!r} is several hosts ({ports}); give hostname:port")
        raise ToolError(f"target: no host {target!r} in these projects; what_runs_out_first "
                        "and list_alerts name hosts as hostname:port")  # fmt: skip

    # ---- alerts' projects ------------------------------------------------------------------

    def _remember_alerts(self, alerts: Sequence[Any]) -> None:
        """The alerts a result showed, and their projects, so that ``explain_alert`` and
        ``acknowledge_alert`` need no ``project`` for them, and a confirmation can say what
        the alert is without a request."""
        with self._lock:
            for a in alerts:
                if a.group_id and a.id:
                    self._alert_groups[a.id] = a.group_id
                    self._alerts_seen[a.id] = a

    def _seen_alert(self, alert_id: str) -> Optional[Any]:
        """The alert as a result last showed it, or None."""
        with self._lock:
            return self._alerts_seen.get(alert_id)

    def _alert(self, alert_id: str, project: Optional[str]) -> Any:
        """The project alert ``alert_id``: in ``project``, else in the project a result showed
        it in, else looked for in each project the key sees (one request each)."""
        with self._lock:
            known = self._alert_groups.get(alert_id)
        ids = self._project_ids(project) if project else ([known] if known else None)
        for g in ids or self._project_ids(None):
            try:
                alert = self.client.alerts.get(g, alert_id)
            except opsapi.NotFoundError:
                continue
            self._remember_alerts([alert])
            return alert
        where = f"project {project!r}" if project else "any project the key sees"
        raise ToolError(f"alert_id: no alert {alert_id} in {where}; list_alerts lists them")

    # ---- headroom --------------------------------------------------------------------------

    def _snapshot(self) -> Optional[tuple[int, int, int]]:
        """What names the store's snapshot: its manifest file, which each sync replaces
        whole (a new file: a new inode, size and time). None without a store or before its
        first sync."""
        if self.store is None:
            return None
        try:
            st = os.stat(os.path.join(self.settings.store or "", "MANIFEST.json"))
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def headroom(self, ids: Sequence[str]) -> Headroom:
        """Headroom of the projects ``ids``: from the cache when nothing it rests on changed,
        else computed now (a caller asking while another computes it waits for that).

        >>> fleet = Fleet(client, Settings(window="2d"))
        >>> first, again = fleet.headroom(sim.group_ids), fleet.headroom(sim.group_ids)
        >>> first.hit, again.hit, again.frame is first.frame, first.source
        (False, True, True, 'the API')
        """
        ids = sorted(ids)
        s = self.settings
        params = (tuple(ids), s.window, s.granularity, s.history)
        if self.store is None:
            key: Any = ("api", int(time.time() // s.pull_seconds), params)
            got = self._headroom.get(key, lambda: self._from_api(ids))
        else:
            hosts, clusters = self._listings(ids)
            key = ("store", self._snapshot(), _listings_key(hosts, clusters), params)
            got = self._headroom.get(key, lambda: self._from_store(ids, hosts, clusters))
        frame, as_of, source, clusters = got.value
        return Headroom(frame, as_of, source, clusters, got.hit, got.seconds, got.at, key)

    def _derived(self, hr: Headroom, what: Hashable, compute: Callable[[], Any]) -> Any:
        """What ``compute`` derives from ``hr`` (a capacity function of headroom's frame:
        its deployments' rows, their sentences), kept as long as ``hr`` is, under ``what``
        (which names all else it reads: the project names)."""
        return self._derivations.get((hr.key, what), compute).value

    def _from_store(self, ids: Sequence[str], hosts: list[Any], clusters: list[Any]) -> Any:
        assert self.store is not None
        s = self.settings
        frames = []
        for kind, names in (("host", capacity.HEADROOM_HOST_METRICS),
                            ("disk", capacity.HEADROOM_DISK_METRICS)):  # fmt: skip
            lf = self.store.scan(kind=kind, granularity=s.granularity).filter(
                pl.col("group_id").is_in(list(ids)), pl.col("measurement").is_in(names)
            )
            if s.history is not None:
                back = parse_duration(s.history)
                lf = lf.filter(pl.col("timestamp") >= pl.col("timestamp").max() - back)
            frames.append(lf)
        host_frame, disk_frame = pl.collect_all(frames)
        events = self._events(ids, host_frame, disk_frame, clusters)
        h = capacity.headroom(host_frame, disk_frame, hosts, window=s.window, clusters=clusters,
                              events=events)  # fmt: skip
        return h, _newest(host_frame, disk_frame), f"store {s.store}", clusters

    def _from_api(self, ids: Sequence[str]) -> Any:
        s = self.settings
        inputs = capacity.headroom_inputs(
            self.client, ids, window=s.window, granularity=s.granularity, history=s.history
        )
        events = self._events(ids, inputs.host_frame, inputs.disk_frame, inputs.clusters)
        h = capacity.headroom(*inputs, window=s.window, clusters=inputs.clusters, events=events)
        return h, _newest(inputs.host_frame, inputs.disk_frame), "the API", inputs.clusters

    def _events(self, ids: Sequence[str], host_frame: Any, disk_frame: Any,
                clusters: list[Any]) -> Optional[pl.DataFrame]:  # fmt: skip
        """The projects' events over the frames' history, whose tier changes and disk resizes
        restart the forecasts as the report's do (a project whose events the server refuses
        only loses those restarts)."""
        stamps = pl.concat([host_frame.select("timestamp"), disk_frame.select("timestamp")])
        first, last = stamps["timestamp"].min(), stamps["timestamp"].max()
        if last is None:
            return None
        got = capacity.window_events(self.client, ids, start=first, end=last, clusters=clusters)
        return got.frame

    def _cached(self) -> list[dict[str, Any]]:
        """What the headroom cache holds now (for ``store_status``)."""
        out = []
        for key, got in self._headroom.items():
            ids = key[-1][0]  # type: ignore[index]  # (..., (ids, window, ...)): headroom's
            at = datetime.fromtimestamp(got.at, timezone.utc)
            out.append({"projects": len(ids), "computed_at": at,
                        "seconds": round(got.seconds, 2), "as_of": got.value[1]})  # fmt: skip
        return out

    # ---- the background thread ------------------------------------------------------------

    def start(self) -> None:
        """With a store: compute headroom of every project now, in the background, and again
        after each sync (what changes the store's snapshot); without one, nothing (a pull is
        made when a question needs it). :meth:`close` stops it.

        >>> fleet = Fleet(client, Settings())
        >>> fleet.start(); fleet.close()  # no store: no thread
        """
        if self.store is None or self.settings.refresh_seconds is None or self._thread:
            return
        self._thread = threading.Thread(target=self._refresh, name="opsapi-mcp-warm", daemon=True)
        self._thread.start()

    def _refresh(self) -> None:
        done: Any = object()
        while not self._stop.is_set():
            snap = self._snapshot()
            if snap is not None and snap != done:
                # Tried once per snapshot: a failure (the server down, a key refused) is said
                # in one log line, and by the next question that needs it.
                done = snap
                try:
                    self.headroom(self._project_ids(None))
                except Exception as e:
                    log.warning("opsapi mcp: headroom in the background failed: %s",
                                _safe(e))  # fmt: skip
            self._stop.wait(self.settings.refresh_seconds or 30.0)

    def close(self) -> None:
        """Stops what :meth:`start` started (it finishes the headroom it is computing, or is
        left behind after 5 s: it is a daemon thread).

        >>> Fleet(client, Settings(store="fleet-store")).close()
        """
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None


def _member(h: Any) -> str:
    return f"{h.hostname}:{h.port}" if h.hostname and h.port else (h.hostname or h.id or "")


def _listings_key(hosts: list[Any], clusters: list[Any]) -> str:
    """What headroom reads of the listings, as one hash: the hosts' topology and the
    clusters as the API sent them."""
    topo = capacity.topology(hosts, clusters) if hosts else pl.DataFrame()
    raw = json.dumps([c.to_dict() for c in clusters], sort_keys=True, default=str)
    return hashlib.sha256(topo.write_csv().encode() + raw.encode()).hexdigest()


def _newest(*frames: pl.DataFrame) -> Optional[datetime]:
    stamps: list[datetime] = [f["timestamp"].max() for f in frames if f.height]  # type: ignore[misc]
    stamps = [s for s in stamps if s is not None]
    return max(stamps) if stamps else None


def _safe(e: BaseException) -> str:
    from ._results import error_line

    if isinstance(e, opsapi.OpsApiError):
        return error_line(e)
    return type(e).__name__
