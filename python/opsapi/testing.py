"""Testing aid: the built-in API simulator, in-process on a free loopback port.

(Over 600 lines: the Simulator class is the native simulator's whole Python face, each
method documented with its example; the seasonal and forecast cases and the hold on a request
are small.)

>>> with Simulator(seed=0) as sim:
...     client = sim.client()
...     client.hosts.list(sim.group_ids[0])
HostList(len=5, total_count=5)
"""

from __future__ import annotations

import atexit
import weakref
from datetime import datetime, timedelta
from typing import Any, NamedTuple, Optional, Union

import polars as pl

from ._native import AsyncClient, Client, _forecast_cases, _Hold, _seasonal_cases, _Simulator

__all__ = [
    "ForecastCases",
    "Hold",
    "SeasonalCases",
    "Simulator",
    "forecast_cases",
    "seasonal_cases",
]

_open: weakref.WeakSet[Simulator] = weakref.WeakSet()


class Simulator:
    """The API simulator. Same seed, same data.

    Keyword arguments: ``global_alerts`` (count), ``nonce_lifetime`` (seconds), ``port``
    (0 = a free one), ``bind``, ``worker_threads``, ``log_requests``, ``faults`` (a dict of
    :meth:`set_faults` arguments), ``rate_limit`` (requests per second per project, see
    :meth:`set_rate_limit`), ``cache_bytes`` (the bound of the rendered-body cache, default
    512 MiB; 0 renders every answer afresh), ``retention``: how long measurements are kept
    per granularity (None, the default: every window is served; ``True``: as Ops Manager
    keeps them, by our reading of its documentation: 10-second data 8 hours, minute data 2
    days, 5-minute data 8 days, hourly data 63 days, daily data for ever; or a dict
    ``{"PT1M": seconds or None, ...}`` over those), points older than that left out of every
    answer, and ``tls``: serve HTTPS with a certificate
    generated at start, signed by an internal CA (``True`` or ``"ca"``) or self-signed as
    ``openssl req -x509`` makes it (``"self-signed"``); :attr:`ca_file` is then the PEM file a
    client trusts it with, and :meth:`client` passes it.

    ``flavour`` serves the same world as ``"ops-manager"`` (the default), ``"cloud-manager"``
    (without global alerts and the global access list) or ``"atlas"``: its Admin API v2
    (``/api/atlas/v2``, processes named ``hostname:port`` for hosts, a versioned media type
    asked of every request, 406 without), a service account (:attr:`client_id`,
    :attr:`client_secret`; access tokens from ``POST /api/oauth/token``, which has its own
    bucket of 10 a minute, living ``token_lifetime`` seconds, 3600 by default), ``PT10S``
    refused below tier M40, and, with ``token_buckets=True`` (or a dict of endpoint set to
    ``(capacity, per_minute)``), Atlas's token buckets per endpoint set and project.
    :meth:`client` returns a client of its flavour.

    ``now`` (an aware ``datetime`` or an ISO 8601 string) fixes the simulator's clock: the
    world is anchored there, ``period`` windows end there, and the clock stands still until
    :meth:`advance` moves it, so that acknowledgements run out, nonces go stale and rate-limit
    tokens come back when the test says, not when the machine gets round to it. Answers carry
    it in their ``Date`` header, and clients count acknowledgements from it
    (``Client.server_time``). Without it, the clock is the wall clock and the world is
    anchored at midnight UTC of the day it starts.

    >>> with Simulator(tls="self-signed") as sim:
    ...     [g.name for g in sim.client().groups.list()]
    ['Prod', 'Staging', 'Analytics']
    >>> sim = Simulator(now="2026-03-02T10:00:00Z")
    >>> sim.now
    datetime.datetime(2026, 3, 2, 10, 0, tzinfo=datetime.timezone.utc)
    >>> sim.advance(90); sim.now.isoformat()
    '2026-03-02T10:01:30+00:00'
    >>> sim.close()
    """

    def __init__(
        self,
        seed: int = 0,
        projects: int = 3,
        hosts_per_project: int = 5,
        *,
        faults: Optional[dict[str, Any]] = None,
        **kwargs: Any,
    ) -> None:
        self._sim = _Simulator(
            seed=seed, projects=projects, hosts_per_project=hosts_per_project, **kwargs
        )
        if faults:
            self._sim.set_faults(**faults)
        _open.add(self)

    @property
    def base_url(self) -> str:
        return self._sim.base_url

    @property
    def flavour(self) -> str:
        """``"ops-manager"``, ``"cloud-manager"`` or ``"atlas"``: the server it serves as.

        >>> with Simulator(flavour="atlas") as atlas:
        ...     atlas.flavour
        'atlas'
        """
        return self._sim.flavour

    @property
    def api_url(self) -> str:
        """The address of its API: :attr:`base_url` and the flavour's path
        (``/api/public/v1.0``, or ``/api/atlas/v2``)."""
        return self._sim.api_url

    @property
    def client_id(self) -> str:
        """The service account's client id (Atlas; with :attr:`client_secret`, what
        ``Client.atlas(client_id=..., client_secret=...)`` takes)."""
        return self._sim.client_id

    @property
    def client_secret(self) -> str:
        """The service account's client secret."""
        return self._sim.client_secret

    @property
    def public_key(self) -> str:
        """The Global Owner key's public part."""
        return self._sim.public_key

    @property
    def private_key(self) -> str:
        """The Global Owner key's private part."""
        return self._sim.private_key

    @property
    def read_only_public_key(self) -> str:
        """A Project Read Only key (first project only)."""
        return self._sim.read_only_public_key

    @property
    def read_only_private_key(self) -> str:
        return self._sim.read_only_private_key

    @property
    def ca_file(self) -> Optional[str]:
        """With ``tls``, the PEM file to pass as ``ca_file`` (the internal CA's certificate, or
        the server's own self-signed one); removed when the simulator closes. Else None."""
        return self._sim.ca_file

    @property
    def group_ids(self) -> list[str]:
        return self._sim.group_ids

    def client(self, **kwargs: Any) -> Client:
        """An :class:`opsapi.Client` of its flavour: the Global Owner key (Ops Manager, Cloud
        Manager) or the service account (Atlas), and :attr:`ca_file` unless given; keyword
        arguments go to the client.

        >>> client = sim.client(timeout=5)
        >>> client.hosts.list(sim.group_ids[0])
        HostList(len=5, total_count=5)
        >>> with Simulator(flavour="atlas") as atlas:
        ...     atlas.client().hosts.list(atlas.group_ids[0])[0].id
        'rs0-0.prod.example.net:27017'
        """
        return self._client(Client, kwargs)

    def async_client(self, **kwargs: Any) -> AsyncClient:
        """An :class:`opsapi.AsyncClient` of its flavour (see :meth:`client`); keyword
        arguments go to the client.

        >>> client = sim.async_client()
        >>> await client.hosts.list(sim.group_ids[0])
        HostList(len=5, total_count=5)
        """
        return self._client(AsyncClient, kwargs)

    def _client(self, cls: Any, kwargs: dict[str, Any]) -> Any:
        kwargs = self._tls(kwargs)
        if self.flavour == "atlas":
            return cls.atlas(
                client_id=self.client_id,
                client_secret=self.client_secret,
                base_url=self.base_url,
                **kwargs,
            )
        kwargs.setdefault("flavour", self.flavour)
        return cls(self.base_url, self.public_key, self.private_key, **kwargs)

    def _tls(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        ca_file = self.ca_file
        if ca_file is not None:
            kwargs.setdefault("ca_file", ca_file)
        return kwargs

    @property
    def now(self) -> datetime:
        """The simulator's time: ``now`` as given plus what :meth:`advance` added, or the wall
        clock plus that."""
        return self._sim.now

    def advance(self, by: Union[float, timedelta]) -> None:
        """Moves the simulator's clock forward by ``by`` (seconds, or a ``timedelta``):
        acknowledgements that end before the new time have run out, nonces older than their
        lifetime are stale, rate-limit buckets refill.

        >>> sim = Simulator(now="2026-03-02T10:00:00Z")
        >>> sim.advance(timedelta(hours=2)); sim.now.isoformat()
        '2026-03-02T12:00:00+00:00'
        >>> sim.close()
        """
        seconds = by.total_seconds() if isinstance(by, timedelta) else by
        self._sim.advance(seconds)

    def set_date_skew(self, by: Union[float, timedelta]) -> None:
        """Makes every answer's ``Date`` header ``by`` (seconds, or a ``timedelta``, either
        sign) off the simulator's clock, its data and windows unchanged: a server whose clock
        is wrong, as a misconfigured host or proxy answers. ``0`` sets it right again.

        >>> sim = Simulator(now="2026-03-02T10:00:00Z")
        >>> sim.set_date_skew(timedelta(days=365)); sim.now.isoformat()
        '2026-03-02T10:00:00+00:00'
        >>> sim.set_date_skew(0); sim.close()
        """
        seconds = by.total_seconds() if isinstance(by, timedelta) else by
        self._sim.set_date_skew(seconds)

    def hold(
        self,
        *,
        method: Optional[str] = None,
        path: Optional[str] = None,
        page: Optional[int] = None,
        nth: int = 1,
    ) -> Hold:
        """Keeps the next request that matches (see :meth:`inject` for ``method``, ``path``,
        ``page`` and ``nth``) waiting on arrival, logged but not yet handled, until the hold is
        released (or leaves its ``with`` block): an order between requests that a sleep would
        only make likely.

        >>> from concurrent.futures import ThreadPoolExecutor
        >>> client = sim.client()
        >>> _ = client.groups.list()  # the handshake first: a fresh client's calls wait for it
        >>> with ThreadPoolExecutor() as pool, sim.hold(path="/groups") as held:
        ...     call = pool.submit(client.groups.list)
        ...     assert held.wait_arrived(timeout=30)
        ...     len(client.hosts.list(sim.group_ids[0]))  # answered while /groups waits
        5
        >>> len(call.result())
        3
        """
        return Hold(self._sim.hold(method=method, path=path, page=page, nth=nth))

    def requests(self) -> list[dict[str, Any]]:
        """The request log, oldest first: dicts with ``method``, ``path``, ``query`` (the raw
        query string or None), ``body`` (bytes), ``status`` (0: closed without an answer),
        ``signed`` (it carried an ``Authorization`` header), ``authorized`` (its signature was
        accepted), ``faults`` (the labels of the faults that struck it), ``arrived``
        (seconds after the simulator started, by the machine's monotonic clock, whatever
        ``now`` says: the gaps between a call's attempts show the waits it honoured),
        ``accept`` and ``content_type`` (its headers: Atlas's versioned media type names the
        version asked for) and ``auth`` (the scheme of its ``Authorization``: ``"Digest"``,
        ``"Bearer"``, ``"Basic"``, or None).

        >>> _ = sim.client().groups.list()
        >>> [(r["method"], r["path"], r["status"]) for r in sim.requests()]
        [('GET', '/api/public/v1.0/groups', 401), ('GET', '/api/public/v1.0/groups', 200)]
        """
        return self._sim.requests()

    def clear_requests(self) -> None:
        """Empties the request log.

        >>> sim.clear_requests(); sim.requests()
        []
        """
        self._sim.clear_requests()

    def world(self) -> dict[str, list[dict[str, Any]]]:
        """A snapshot of the world as the API would show it now, for picking identifiers and
        checking what a write did: ``projects`` (``id``, ``name``), ``hosts`` (``id``,
        ``group_id``, ``hostname``, ``type_name``, ``partitions``), ``alert_configs``
        (``id``, ``group_id``, ``event_type_name``), ``alerts`` (``id``, ``group_id``,
        ``alert_config_id``, ``status``, ``acknowledged_until``, ``acknowledgement_comment``,
        ``acknowledging_username``), ``project_alerts`` (the same fields, of every alert
        ``/groups/{g}/alerts`` lists, project by project, the seeded history included: see
        :meth:`alert_truth`), ``events`` (``id``, ``group_id``, ``event_type_name``)
        and ``access_list`` (``id``, ``cidr_block``, ``description``). Expired
        acknowledgements are cleared and deleted entries are gone.

        >>> alerts = sim.world()["alerts"]
        >>> open_ids = [a["id"] for a in alerts if a["status"] == "OPEN"]
        """
        return self._sim.world()

    def alert_truth(self) -> dict[str, Any]:
        """What the seeded alert history holds (project alerts of the 14 days before the
        anchor, which ``/globalAlerts`` does not list), for the analyses that should find it:
        ``flapping`` (``group_id``, ``alert_config_id``, ``metric_name``, ``host_id``,
        ``hostname_and_port``, ``episodes``: how many times it opened in a row, each within
        ``longest_gap_minutes`` of the previous close), ``noisy_host`` (``group_id``,
        ``host_id``, ``hostname_and_port``, ``alerts`` seeded on it, ``alert_config_ids``),
        ``disk_alerts`` and ``replica_set_alerts`` (one per project: ``group_id``,
        ``alert_id``, ``alert_config_id``, ``host_id``, ``partition_name``,
        ``replica_set_name``, ``threshold``), ``acknowledged`` (``alert_id``, ``at``: when
        each history alert was acknowledged, as its ``ALERT_ACKNOWLEDGED_AUDIT`` event says),
        and ``metric_alerts``: every metric alert about a host, global (``global``) or of the
        history, with the breach its series show (``group_id``, ``alert_id``, ``host_id``,
        ``process_id``, ``metric_name``, ``partition_name`` for a disk's, ``threshold``,
        ``current_value``: the series' value at the minute it was raised, ``start`` and
        ``end``: ``None`` while it is open).

        >>> truth = sim.alert_truth()  # seed 0
        >>> truth["flapping"]["metric_name"], truth["flapping"]["episodes"]
        ('CONNECTIONS', 16)
        >>> truth["noisy_host"]["hostname_and_port"]
        'sh0-0-0.analytics.example.net:27018'
        """
        return self._sim.alert_truth()

    def partition_truth(self) -> list[dict[str, Any]]:
        """The seeded growth of every disk partition: dicts with ``group_id``, ``host_id``,
        ``process_id``, ``partition_name``, ``capacity_bytes``, ``growth_bytes_per_day``,
        ``used_bytes_at_anchor``, ``noise_bytes``, ``growth`` (``fast``, ``slow``, ``flat`` or
        ``noisy``) and ``anchor`` (the instant the seeded times are relative to). This is the
        truth a capacity forecast against the simulator should find.

        >>> fast = [p for p in sim.partition_truth() if p["growth"] == "fast"]
        """
        return self._sim.partition_truth()

    def database_truth(self) -> list[dict[str, Any]]:
        """The seeded size and growth of every database of every mongod: dicts with
        ``group_id``, ``host_id``, ``process_id``, ``database_name``, ``partition_name`` (the
        data partition its files live on), ``size_bytes_at_anchor`` (storage + index),
        ``growth_bytes_per_day``, ``share_of_disk_growth``, ``drives_growth`` (True for the
        one database per growing disk that drives most of its growth) and ``anchor``. On each
        host the databases add up to the data partition's used-space trend minus a constant
        overhead; the served disk series adds its noise (``noise_bytes``) on top.

        >>> truth = sim.database_truth()  # seed 0
        >>> [d["database_name"] for d in truth if d["drives_growth"]][:4]
        ['inventory', 'catalog', 'inventory', 'config']
        """
        return self._sim.database_truth()

    def headroom_truth(self) -> list[dict[str, Any]]:
        """The capacity findings seeded into the world, each what
        :func:`opsapi.capacity.headroom` must name: dicts with ``resource`` (``oplog_window``,
        ``cpu``, ``connections``, ``cache``, ``shard_growth``), ``scope_kind`` and ``scope``
        (the scope that owns it: the replica set, the host as ``hostname:port``, the cluster
        id), ``group_id``, ``cluster_id``, ``replica_set_name``, ``shard_name`` (the shard that
        grows faster), ``members`` and ``host_ids`` (the members that set the value),
        ``measurements`` (the series that show it), ``level_at_anchor`` and ``per_day`` (the
        seeded trend: hours, percent, connections; for ``shard_growth`` the fast shard's
        growth over the others' and its bytes per day), ``threshold`` (24 h, 90 %, the 20 %
        dirty trigger), ``crosses_at`` (when the oplog window falls below 24 h) and
        ``anchor``. The default world (``Simulator(seed=0)``) holds all five.

        >>> [t["resource"] for t in sim.headroom_truth()]  # seed 0
        ['shard_growth', 'oplog_window', 'cpu', 'connections', 'cache']
        """
        return self._sim.headroom_truth()

    def cause_truth(self) -> dict[str, Any]:
        """The causes seeded into the world, each what an alert's context
        (``client.alerts.context``) or the capacity report must name beside what happened: a
        dict of lists, events as this simulator's flavour names them.

        - ``elections``: the ``PRIMARY_ELECTED`` before each replication-lag alert (3 to 20
          minutes before it was raised), and the one that ended each no-primary alert (at its
          resolution; ``ends`` is true): ``group_id``, ``alert_id``, ``ends``,
          ``replica_set_name``, ``primary`` (``hostname:port``), ``event_id``,
          ``event_type_name``, ``at``;
        - ``restarts``: every host's last restart (``HOST_RESTARTED`` on Ops Manager and Cloud
          Manager; Atlas's ``CLUSTER_INSTANCE_RESTARTED`` of its cluster, for a host of one):
          ``group_id``, ``host_id``, ``process_id``, ``cluster_id``, ``event_id``,
          ``event_type_name``, ``at``;
        - ``scaling`` (Atlas alone): the compute auto-scaling of each cluster that has it on
          (``COMPUTE_AUTO_SCALE_INITIATED_BASE``), in the window of the newest connections
          alert on one of its members (``alert_id``), and the disk auto-scaling (its disk
          resized: ``DISK_AUTO_SCALE_INITIATED``) of each that has that on, in the window of
          the newest disk-space alert: ``group_id``, ``cluster_id``, ``cluster_name``,
          ``event_id``, ``event_type_name``, ``at``, ``alert_id``;
        - ``drivers``: the slow queries behind each CPU or connections capacity finding
          (:meth:`headroom_truth`): its host's heaviest collection scan (else its heaviest
          pattern) runs slowly in proportion to the finding's own series (its climb and its
          daily cycle) over the whole history, most of the host's slow-query time in any
          window: ``group_id``, ``host_id``, ``resource``, ``namespace``, ``fields`` (what
          its filter names, in order);
        - ``slow``: the slow queries behind every CPU or connections alert on a host with a
          workload: its heaviest collection scan (else its heaviest query pattern) runs ten
          times as often and three times as slowly from an hour before the alert to its end,
          as the Performance Advisor then shows: ``group_id``, ``alert_id``, ``host_id``,
          ``namespace``, ``index`` (the index it suggests, ``{status: 1, createdAt: 1}``;
          None when an index serves the pattern), ``from``, ``to``.

        >>> truth = sim.cause_truth()  # seed 0
        >>> sorted(truth)
        ['drivers', 'elections', 'restarts', 'scaling', 'slow']
        """
        return self._sim.cause_truth()

    def cluster_truth(self) -> list[dict[str, Any]]:
        """The seeded clusters (replica sets and sharded clusters), in the world's order:
        dicts with ``group_id``, ``id`` (the id its hosts name), ``name``, ``type``
        (``replica_set`` or ``sharded``), ``replica_set_name``, ``shards`` and
        ``config_servers`` (``id`` and ``replica_set_name`` of each replica set within a
        sharded cluster, which Ops Manager lists as clusters), ``members`` (every process's
        ``hostname:port``, mongos and config servers included) and ``host_ids``; what Atlas
        shows of it: ``aliases`` (each process's ``userAlias``), ``srv_host`` (its SRV name),
        ``instance_size`` (its processes' memory and cores are the tier's), ``disk_size_gb``,
        ``compute_auto_scaling`` (``(min, max)`` tiers, or None), ``disk_auto_scaling``; and
        ``oversized``: seeded clearly oversized for its tier (its disks a quarter full and
        flat, no finding). One cluster has compute auto-scaling (the first without a CPU or
        cache finding), another disk auto-scaling (the one whose data disk reaches 90 %
        soonest); a world with a quiet replica set has one oversized (not the default one).

        >>> [(c["name"], c["instance_size"]) for c in sim.cluster_truth()]  # seed 0
        [('orders', 'M60'), ('sessions', 'M40'), ('profiles', 'M60')]
        """
        return self._sim.cluster_truth()

    @property
    def rate_limit(self) -> Optional[float]:
        """Requests per second per project past which requests are answered 429, or None."""
        return self._sim.rate_limit

    def set_rate_limit(self, rate_limit: Optional[float]) -> None:
        """Limits requests per project to ``rate_limit`` per second (None: no limit): past it
        a request is answered 429 ``RATE_LIMITED`` with ``Retry-After``, as Ops Manager limits
        each project. Each project's bucket holds one second's worth of requests.

        >>> sim.set_rate_limit(20)
        >>> client = sim.client()
        >>> frame = client.measurements.fleet(targets, granularity="PT1M", period="PT1H")
        """
        self._sim.set_rate_limit(rate_limit)

    def set_faults(self, **faults: Any) -> None:
        """Standing faults: ``latency`` (seconds), ``rate_429``, ``rate_500``, ``rate_503``,
        ``rate_reset``, ``rate_truncate`` (probabilities), ``retry_after_secs``. Call with no
        argument to clear them.

        >>> sim.set_faults(rate_503=0.05, retry_after_secs=0)
        >>> sim.set_faults()
        """
        self._sim.set_faults(**faults)

    def inject(
        self,
        fault: Union[int, str],
        count: int = 1,
        *,
        retry_after: Optional[int] = None,
        total_count: Optional[int] = None,
        applied: bool = False,
        html: bool = False,
        stale: bool = False,
        location: Optional[str] = None,
        seconds: Optional[float] = None,
        size: Optional[int] = None,
        method: Optional[str] = None,
        path: Optional[str] = None,
        page: Optional[int] = None,
        nth: int = 1,
    ) -> None:
        """Queues ``count`` one-shot faults: each strikes the next request it applies to, and
        only that one, so a test knows exactly which requests they hit (queue many for a
        fault on every request, e.g. endless 401s).

        Aimed with ``method``, ``path`` (as sent, with or without ``/api/public/v1.0``) and
        ``page`` (the ``pageNum``; 1 without one), a fault strikes only requests that match
        every one given, so that no stray request (a page of an earlier listing still in
        flight) can use it up; ``nth=2`` lets the first match pass and strikes the second,
        and further copies strike the matches after it. A fault counts only the requests it
        applies to (see below: a status fault counts authorized requests, not a fresh client's
        unsigned first one); :meth:`hold` counts every arrival.

        An HTTP status (int):

        - ``inject(503, retry_after=0)``: the API's JSON error instead of handling an
          authorized request (with a ``Retry-After`` header when given);
        - ``inject(502, applied=True)``: the request is handled first (the PATCH acknowledges,
          the DELETE deletes), then answered 502, as a gateway that lost the answer;
        - ``inject(200, html=True)`` / ``inject(502, html=True)``: a proxy's HTML page
          (``text/html``) instead of the API (``applied=True``: after handling it);
        - ``inject(301, location="http://other:8080/x")``: a redirect (301, 302, 303, 307,
          308) to ``location``.

        A name (str):

        - ``"reset"``: the connection closed without an answer before the request is handled
          (``applied=True``: after);
        - ``"truncate"``: half the body with the full ``Content-Length``, then closed;
        - ``"garbled_json"``: the JSON with a syntax error part-way; ``"invalid_utf8"``:
          bytes that are not UTF-8 inside a string value;
        - ``"stall"`` (``seconds=``): the request handled, the answer's headers held back;
          ``"stall_body"``: the headers sent, the body held back; ``"drip"``: the body a byte
          every ``seconds``;
        - ``"oversize"`` (``size=`` bytes, announced in ``Content-Length``) and
          ``"endless_body"`` (chunked, without end) instead of the answer's body;
        - ``"unauthorized"``: 401 without a challenge; ``"challenge"``: 401 with a fresh
          Digest challenge (``stale=True`` for ``stale=true``) whatever the signature;
          ``"stale_nonce"``: the next signed request refused with ``stale=true``;
        - ``"repeat_first_page"``, ``"wrong_total_count"`` (``total_count=``): listings.

        Redirects, HTML pages, resets and 401s strike any request, signed or not (they come
        from in front of the API); the others strike authorized requests, and body faults
        only answers that have a body (not a DELETE's 204). :meth:`requests` names the faults
        that struck each request; :meth:`injected` lists those still queued.

        >>> sim.inject(502, applied=True)
        >>> sim.client().global_alerts.acknowledge(alert_id, duration="PT1H")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        opsapi.exceptions.ServerError: HTTP 502 ...
        """
        self._sim.inject(
            fault,
            count,
            retry_after=retry_after,
            total_count=total_count,
            applied=applied,
            html=html,
            stale=stale,
            location=location,
            seconds=seconds,
            size=size,
            method=method,
            path=path,
            page=page,
            nth=nth,
        )

    def injected(self) -> list[str]:
        """The one-shot faults still queued, oldest first, by the label the request log
        uses.

        >>> sim.inject(503, 2); sim.injected()
        ['status 503', 'status 503']
        """
        return self._sim.injected()

    def clear_injected(self) -> None:
        """Drops every queued one-shot fault.

        >>> sim.clear_injected(); sim.injected()
        []
        """
        self._sim.clear_injected()

    def add_host(self, group_id: str) -> Optional[str]:
        """Adds a standalone host to project ``group_id`` and returns its id (None: no such
        project): it is listed, and answers its partitions, databases and measurements, from
        now on (the partitions and databases of the project's first mongod, data of its own).
        With :meth:`remove_host`, the world gains and loses hosts between two syncs of a
        measurement store, as a fleet does.

        >>> with Simulator(now="2026-03-02T10:00:00Z") as sim:
        ...     g = sim.group_ids[0]
        ...     host_id = sim.add_host(g)
        ...     len(sim.client().hosts.list(g))
        6
        """
        return self._sim.add_host(group_id)

    def remove_host(self, host_id: str) -> bool:
        """Removes a host: gone from its project's listing, its requests answer 404
        ``HOST_NOT_FOUND`` from now on. Returns whether there was such a host.

        >>> with Simulator(now="2026-03-02T10:00:00Z") as sim:
        ...     h = sim.world()["hosts"][0]
        ...     sim.remove_host(h["id"]), len(sim.client().hosts.list(h["group_id"]))
        (True, 4)
        """
        return self._sim.remove_host(host_id)

    @property
    def connections(self) -> int:
        """TCP connections accepted so far (a TLS handshake that fails counts, and leaves no
        request in the log)."""
        return self._sim.connections

    def close(self) -> None:
        """Stops the server. Idempotent (``with Simulator() as sim:`` calls it).

        >>> sim.close(); sim.closed
        True
        """
        self._sim.close()

    @property
    def closed(self) -> bool:
        return self._sim.closed

    def __enter__(self) -> Simulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return repr(self._sim)


class Hold:
    """A request kept waiting by :meth:`Simulator.hold`; a context manager that releases it
    on exit.

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with Simulator(now="2026-03-02T10:00:00Z") as sim, ThreadPoolExecutor() as pool:
    ...     client = sim.client()
    ...     handshake_done = client.groups.list()  # a fresh client's calls wait for its first
    ...     with sim.hold(path="/groups") as held:
    ...         call = pool.submit(client.groups.list)
    ...         held.wait_arrived(timeout=30)
    ...         len(client.hosts.list(sim.group_ids[0]))  # answered while /groups waits
    ...     len(call.result())
    True
    5
    3
    """

    def __init__(self, hold: _Hold) -> None:
        self._hold = hold

    @property
    def arrived(self) -> bool:
        """Whether the held request has arrived."""
        return self._hold.arrived

    def wait_arrived(self, timeout: float = 30.0) -> bool:
        """Waits until the held request arrives, at most ``timeout`` seconds; whether it did.

        >>> held = sim.hold(path="/groups")
        >>> held.wait_arrived(timeout=0.1)  # nothing was sent
        False
        """
        return self._hold.wait_arrived(timeout)

    def release(self) -> None:
        """Lets the held request go on (idempotent; leaving the ``with`` block does it).

        >>> held = sim.hold(path="/groups")
        >>> held.release()
        """
        self._hold.release()

    def __enter__(self) -> Hold:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class SeasonalCases(NamedTuple):
    """What :func:`seasonal_cases` returns: the long ``frame``, the ``hosts`` (a host list
    frame, each case a standalone ``mongod``) and one row of ``truth`` per case."""

    frame: pl.DataFrame
    hosts: pl.DataFrame
    truth: pl.DataFrame


def seasonal_cases(
    n: int = 200,
    *,
    seed: int = 0,
    now: Union[datetime, str],
    days: int = 63,
    granularity: str = "PT1H",
    limit: float = 5000.0,
) -> SeasonalCases:
    """The simulator's seasonal cases (issue 33 §2): ``n`` hosts whose ``CONNECTIONS`` have
    a known trend, a daily cycle (a business-hours plateau, 09:00 to 18:00 UTC), a weekly one
    (quieter weekends; in half the cases a busier Monday), a level of each day's own and jitter
    on every point, over the ``days`` before ``now`` at ``granularity`` (``PT1H`` by default:
    63 days is what Atlas keeps of it). Built in-process from the simulator's generator (no
    server), hundreds of cases in milliseconds; same seed, same series.

    ``truth`` has per case: ``host_id``, the parameters (``level``, ``per_day``, ``daily``,
    ``weekend``, ``monday``, ``day_noise``, ``point_noise``, ``limit``), ``peak_at_anchor``
    (the trend of the peaks now), ``crosses_at`` (when that trend reaches ``limit``: what a
    days-to-limit forecasts), ``crosses_days`` (the same in days after ``now``),
    ``first_breach_at`` (when the series without noise first reaches it: the next peak hour
    after ``crosses_at``), ``first_breach_days`` and ``anchor`` (``now``).

    >>> cases = seasonal_cases(3, now="2026-03-02T10:00:00Z", days=28)
    >>> cases.frame.height, cases.hosts.height
    (2019, 3)
    >>> cases.truth.select("crosses_days").to_series().round(1).to_list()
    [13.3, 53.4, 33.3]
    """
    from ._duration import parse_duration

    if isinstance(now, str):
        now = datetime.fromisoformat(now.replace("Z", "+00:00"))
    step = int(parse_duration(granularity).total_seconds())
    frame, rows = _seasonal_cases(n, seed=seed, now=now, days=days, step_seconds=step, limit=limit)
    days = [
        ((pl.col(f"{c}_at") - pl.col("anchor")).dt.total_milliseconds() / 86_400_000).alias(
            f"{c}_days"
        )
        for c in ("crosses", "first_breach")
    ]
    truth = pl.DataFrame(rows).with_columns(days)
    hosts = _hosts_of(truth, "STANDALONE", pl.lit(None, dtype=pl.String))
    return SeasonalCases(frame, hosts, truth)


def _hosts_of(truth: pl.DataFrame, type_name: str, replica_set_name: pl.Expr) -> pl.DataFrame:
    """A host list frame of the cases of ``truth`` (on port 27017, in no shard or cluster)."""
    return truth.select(
        "group_id",
        "host_id",
        "hostname",
        port=pl.lit(27017),
        type_name=pl.lit(type_name),
        replica_set_name=replica_set_name,
        shard_name=pl.lit(None, dtype=pl.String),
        cluster_id=pl.lit(None, dtype=pl.String),
    )


class ForecastCases(NamedTuple):
    """What :func:`forecast_cases` gives: the long ``host_frame`` and ``disk_frame`` (one
    of them empty, by the family's resource), ``hosts`` (a host list frame) and ``truth``."""

    host_frame: pl.DataFrame
    disk_frame: pl.DataFrame
    hosts: pl.DataFrame
    truth: pl.DataFrame


def forecast_cases(
    family: str,
    n: int = 200,
    *,
    seed: int = 0,
    now: Union[datetime, str],
    days: int = 60,
    granularity: str = "PT1H",
) -> ForecastCases:
    """The simulator's series shaped like real ones (issue 37): ``n`` hosts of ``family``
    (``disk_steady``, ``disk_noisy``, ``disk_sawtooth``, ``disk_bend``, ``disk_step``,
    ``disk_resize``, ``connections_weekly``, ``connections_storm``,
    ``connections_pool_step``, ``oplog_window``, ``cache``, ``cpu``, ``tickets``) over the
    ``days`` before ``now``, each with its truth: ``first_breach_at`` (the first hour the
    series itself reaches its limit; ``first_breach_days`` after ``now``), ``limit``,
    ``change`` and ``changed_at`` (a bend, a step, a resize), ``capacity_bytes``. Built
    in-process; same seed, same series.

    >>> cases = forecast_cases("disk_step", 2, now="2026-03-02T10:00:00Z", days=28)
    >>> cases.truth["change"].to_list(), cases.host_frame.height
    (['level_shift', 'level_shift'], 0)
    """
    from ._duration import parse_duration

    if isinstance(now, str):
        now = datetime.fromisoformat(now.replace("Z", "+00:00"))
    step = int(parse_duration(granularity).total_seconds())
    host, disk, rows = _forecast_cases(family, n, seed=seed, now=now, days=days, step_seconds=step)
    truth = pl.DataFrame(rows, infer_schema_length=None).with_columns(
        first_breach_days=(pl.col("first_breach_at") - pl.col("anchor")).dt.total_milliseconds()
        / 86_400_000
    )
    # Each host the primary of a replica set of its own (named after it): the oplog window
    # is a member's.
    hosts = _hosts_of(truth, "REPLICA_PRIMARY", pl.col("hostname").str.extract(r"^([^.]+)"))
    return ForecastCases(host, disk, hosts, truth)


@atexit.register
def _close_all() -> None:
    for sim in list(_open):
        sim.close()
