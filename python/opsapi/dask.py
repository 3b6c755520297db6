"""Fleet pulls sharded across a Dask cluster: each worker writes its own hive partitions.

``fleet_to_parquet`` splits the targets into shards, one Dask task each. Every worker holds
one opsapi client for the whole pull, built by a worker plugin from ``client_options``, and
each task calls ``client.measurements.fleet_to_parquet`` on its shard. The result is the
same folder, file for file and row for row, as one process's
``client.measurements.fleet_to_parquet(targets, path, ...)``: read it with
``dask.dataframe.read_parquet``, DuckDB or ``polars.scan_parquet``.

Credentials, the way Dask recommends for secrets: they never enter the task graph. Either
the workers find them themselves (``client_options={"profile": "prod"}``, or
``{"from_env": True}`` for ``OPSAPI_*`` set on the workers), or the private key (an Atlas
service account's client secret) travels once, inside the worker plugin, which shows it as
``***`` in every repr.

An Atlas service account's workers share its access token through the token cache of their
machine (``token_cache`` in ``opsapi.Client.atlas``): the workers of a ``LocalCluster`` buy
one token between them, and a cluster of several machines one per machine, from a token
endpoint that allows about ten a minute. The workers' cache is their user's cache folder,
or the folder given as ``client_options["token_cache"]``.

``path`` must be a folder every worker can write (a shared file system, or the local disk
of a ``LocalCluster``).

Example::

    from distributed import Client as DaskClient, LocalCluster
    import opsapi.dask

    with LocalCluster(n_workers=4) as cluster, DaskClient(cluster) as dc:
        opsapi.dask.fleet_to_parquet(
            targets, "out/disks",
            client_options={"profile": "prod"},
            dask_client=dc, granularity="PT1H", period="P14D",
        )
    # dask.dataframe.read_parquet("out/disks"), duckdb, polars.scan_parquet(...)

Needs ``dask`` and ``distributed`` (``pip install opsapi[dask]``).
"""

from __future__ import annotations

import math
import os
import uuid
from collections.abc import Sequence
from typing import Any, Optional, Union

from .exceptions import InvalidArgumentError

__all__ = ["fleet_to_parquet"]

_CLIENT_ARGS = ("base_url", "public_key", "private_key")
# An Atlas service account: Client.atlas(client_id=..., client_secret=..., base_url=...).
_ACCOUNT_ARGS = ("client_id", "client_secret")
# The arguments shown as *** wherever the options are shown.
_SECRETS = ("private_key", "client_secret")


class _Secret:
    """A string that shows as ``***`` in a repr (task reprs, logs, dashboards)."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "'***'"

    __str__ = __repr__


def _worker_plugin_base() -> type:
    try:
        from distributed.diagnostics.plugin import WorkerPlugin
    except ImportError as e:
        raise ImportError(
            "opsapi.dask needs dask and distributed: pip install 'opsapi[dask]'"
        ) from e
    return WorkerPlugin


def _plugin_class() -> type:
    base = _worker_plugin_base()

    class OpsapiClientPlugin(base):  # type: ignore[misc,valid-type]
        """Builds one opsapi client per worker from ``options``; tasks find it by name."""

        def __init__(self, options: dict[str, Any]) -> None:
            self.options = options
            self.client: Any = None

        def setup(self, worker: Any) -> None:
            self.client = _build_client(self.options)

        def teardown(self, worker: Any) -> None:
            self.client = None

        def __repr__(self) -> str:
            shown = {k: v for k, v in self.options.items() if k not in _SECRETS}
            return f"OpsapiClientPlugin({shown!r})"

    return OpsapiClientPlugin


def _build_client(options: dict[str, Any]) -> Any:
    import opsapi

    opts = dict(options)
    if "profile" in opts:
        return opsapi.Client.from_profile(opts.pop("profile"), **opts)
    if opts.pop("from_env", False):
        return opsapi.Client.from_env(**opts)
    for name in _SECRETS:
        if isinstance(opts.get(name), _Secret):
            opts[name] = opts[name].value
    if "client_id" in opts:
        return opsapi.Client.atlas(**opts)
    return opsapi.Client(**opts)


def _checked_options(client_options: Any) -> dict[str, Any]:
    """Client options as the workers get them, checked here, before anything is submitted."""
    import opsapi

    if not isinstance(client_options, dict):
        raise InvalidArgumentError(
            "client_options: must be a dict of opsapi.Client arguments (or of "
            "opsapi.Client.atlas's, with client_id and client_secret), {'profile': name} "
            "or {'from_env': True}"
        )
    opts = dict(client_options)
    if "profile" in opts or opts.get("from_env"):
        # Read on the workers, from their own config files or environment.
        if "profile" in opts and not isinstance(opts["profile"], str):
            raise InvalidArgumentError("client_options: 'profile' must be a str")
        if any(k in opts for k in _CLIENT_ARGS + _ACCOUNT_ARGS):
            raise InvalidArgumentError(
                "client_options: give either the connection (base_url, public_key, "
                "private_key; or client_id, client_secret) or 'profile' / 'from_env', not both"
            )
        return opts
    if any(k in opts for k in _ACCOUNT_ARGS):
        # Every argument checked by the same rules the workers apply.
        opsapi.Client.atlas(**opts)
    else:
        missing = [k for k in _CLIENT_ARGS if k not in opts]
        if missing:
            raise InvalidArgumentError(f"client_options: missing {', '.join(missing)}")
        opsapi.Client(**opts)
    for name in _SECRETS:
        if name in opts:
            opts[name] = _Secret(opts[name])
    return opts


def _check_targets(targets: Any, kind: Optional[str]) -> list[tuple[str, ...]]:
    """The targets as tuples, checked by the native rules of ``fleet`` (with ``kind``)."""
    from opsapi import _native

    if isinstance(targets, (str, bytes)):
        raise InvalidArgumentError("targets: must be a list of tuples, not a string")
    out = [tuple(t) if isinstance(t, list) else t for t in targets]
    _native._check_targets(out, kind)
    return out


def _pull_shard(
    plugin_name: str, targets: list[tuple[str, ...]], path: str, window: dict[str, Any]
) -> Any:
    from distributed import get_worker

    client = get_worker().plugins[plugin_name].client
    # progress=False: the workers' stderr is no place for a bar.
    return client.measurements.fleet_to_parquet(targets, path, progress=False, **window)


def fleet_to_parquet(
    targets: Sequence[tuple[str, ...]],
    path: Union[str, os.PathLike[str]],
    *,
    client_options: dict[str, Any],
    dask_client: Any = None,
    granularity: Any,
    period: Any = None,
    start: Any = None,
    end: Any = None,
    metrics: Optional[Sequence[str]] = None,
    kind: Optional[str] = None,
    keep_going: bool = False,
    shards: Optional[int] = None,
) -> Any:
    """Pulls ``targets`` on the workers of ``dask_client`` into hive-partitioned Parquet.

    Args:
        targets: ``(group_id, host_id)`` pairs (host measurements), ``(group_id, host_id,
            partition_name)`` triples (disk measurements) or ``(group_id, host_id,
            database_name)`` triples with ``kind="database"``, as for ``fleet``.
        path: the output folder; every worker must be able to write it.
        client_options: ``opsapi.Client`` arguments (``base_url``, ``public_key``,
            ``private_key``, ``timeout``, ``max_concurrency``, ...); ``opsapi.Client.atlas``
            arguments for an Atlas service account (``client_id``, ``client_secret``,
            ``base_url``, ``token_cache``, ...); or ``{"profile": name}`` / ``{"from_env":
            True}`` to build the client on each worker from its own profile or ``OPSAPI_*``
            variables (then no key leaves this process).
        dask_client: a ``distributed.Client``; default: the current one.
        granularity, period, start, end, metrics: the window, as for ``fleet``.
        kind: ``None`` (from the tuples), ``"host"``, ``"disk"`` or ``"database"``.
        keep_going: pull every target even when some fail, and return the failures.
        shards: number of tasks (default: four per worker, at most one per target).

    Returns:
        None; with ``keep_going=True`` the failures (``group_id, host_id, partition_name,
        status, error_code, error``), an empty frame when every target succeeded.

    Every argument is checked before any task is submitted; a failed target fails the call
    with the worker's exception (``opsapi.NotFoundError``, ...) unless ``keep_going``.

    Example::

        >>> fleet_to_parquet(targets, "out/hosts", client_options={"profile": "prod"},
        ...                  dask_client=dc, granularity="PT1M", period="P1D")  # doctest: +SKIP
    """
    import opsapi

    plugin_class = _plugin_class()
    from distributed import default_client

    target_list = _check_targets(targets, kind)
    opts = _checked_options(client_options)
    if isinstance(path, (str, os.PathLike)):
        root = os.fspath(path)
    else:
        raise InvalidArgumentError("path: must be a str or os.PathLike naming a folder")
    if not root:
        raise InvalidArgumentError("path: must not be empty")
    root = os.path.abspath(root)
    if shards is not None and (isinstance(shards, bool) or not isinstance(shards, int)):
        raise InvalidArgumentError("shards: must be a positive int")
    if shards is not None and shards < 1:
        raise InvalidArgumentError("shards: must be a positive int")
    window = {
        "granularity": granularity,
        "period": period,
        "start": start,
        "end": end,
        "metrics": None if metrics is None else list(metrics),
        "keep_going": bool(keep_going),
        "kind": kind,
    }
    # The window's rules are the native ones: an empty pull checks them and sends nothing
    # (with keep_going, it returns the empty failures frame with the native dtypes).
    no_failures = opsapi.Client("http://127.0.0.1:9", "-", "-").measurements.fleet_to_parquet(
        [], root, progress=False, **window
    )
    if not target_list:
        return no_failures

    dc = dask_client if dask_client is not None else default_client()
    workers = max(1, len(dc.scheduler_info().get("workers", {})))
    n = min(len(target_list), shards or 4 * workers)
    size = math.ceil(len(target_list) / n)
    chunks = [target_list[i : i + size] for i in range(0, len(target_list), size)]

    name = f"opsapi-client-{uuid.uuid4().hex}"
    dc.register_plugin(plugin_class(opts), name=name)
    try:
        futures = [
            dc.submit(_pull_shard, name, chunk, root, window, key=f"{name}-shard-{i}", pure=False)
            for i, chunk in enumerate(chunks)
        ]
        try:
            results = dc.gather(futures)
        finally:
            dc.cancel(futures)
    finally:
        # The scheduler keeps registered plugins for workers that join later: the key goes
        # with the pull.
        dc.unregister_worker_plugin(name)
    if not keep_going:
        return None
    import polars as pl

    return pl.concat([no_failures, *(r for r in results if r is not None)])
