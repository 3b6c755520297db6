"""Testing aid: the built-in API simulator, in-process on a free loopback port.

>>> with Simulator(seed=0) as sim:  # doctest: +SKIP
...     client = sim.client()
...     client.hosts.list(sim.group_ids[0])
"""

from __future__ import annotations

import atexit
import weakref
from typing import Any, Optional, Union

from ._native import AsyncClient, Client, _Simulator

__all__ = ["Simulator"]

_open: weakref.WeakSet[Simulator] = weakref.WeakSet()


class Simulator:
    """The API simulator. Same seed, same data.

    Keyword arguments: ``global_alerts`` (count), ``nonce_lifetime`` (seconds), ``port``
    (0 = a free one), ``bind``, ``worker_threads``, ``log_requests``, ``faults`` (a dict of
    :meth:`set_faults` arguments), and ``tls``: serve HTTPS with a certificate generated at
    start, signed by an internal CA (``True`` or ``"ca"``) or self-signed as
    ``openssl req -x509`` makes it (``"self-signed"``); :attr:`ca_file` is then the PEM file a
    client trusts it with, and :meth:`client` passes it.

    >>> with Simulator(tls="self-signed") as sim:  # doctest: +SKIP
    ...     sim.client().groups.list()
    """

    def __init__(
        self,
        seed: int = 0,
        projects: int = 2,
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
        """An :class:`opsapi.Client` with the Global Owner key (and :attr:`ca_file`, unless
        given)."""
        return Client(self.base_url, self.public_key, self.private_key, **self._tls(kwargs))

    def async_client(self, **kwargs: Any) -> AsyncClient:
        """An :class:`opsapi.AsyncClient` with the Global Owner key (and :attr:`ca_file`,
        unless given)."""
        return AsyncClient(self.base_url, self.public_key, self.private_key, **self._tls(kwargs))

    def _tls(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        ca_file = self.ca_file
        if ca_file is not None:
            kwargs.setdefault("ca_file", ca_file)
        return kwargs

    def requests(self) -> list[dict[str, Any]]:
        """The request log, oldest first: dicts with ``method``, ``path``, ``query`` (the raw
        query string or None), ``body`` (bytes), ``status`` and ``authorized``."""
        return self._sim.requests()

    def clear_requests(self) -> None:
        self._sim.clear_requests()

    def partition_truth(self) -> list[dict[str, Any]]:
        """The seeded growth of every disk partition: dicts with ``group_id``, ``host_id``,
        ``process_id``, ``partition_name``, ``capacity_bytes``, ``growth_bytes_per_day``,
        ``used_bytes_at_anchor``, ``noise_bytes``, ``growth`` (``fast``, ``slow``, ``flat`` or
        ``noisy``) and ``anchor`` (the instant the seeded times are relative to). This is the
        truth a capacity forecast against the simulator should find."""
        return self._sim.partition_truth()

    def set_faults(self, **faults: Any) -> None:
        """Standing faults: ``latency`` (seconds), ``rate_429``, ``rate_500``, ``rate_503``,
        ``rate_reset``, ``rate_truncate`` (probabilities), ``retry_after_secs``. Call with no
        argument to clear them."""
        self._sim.set_faults(**faults)

    def inject(
        self,
        fault: Union[int, str],
        count: int = 1,
        *,
        retry_after: Optional[int] = None,
        total_count: Optional[int] = None,
    ) -> None:
        """One-shot faults for the next ``count`` requests: an HTTP status such as ``503``, or
        ``"reset"``, ``"truncate"``, ``"repeat_first_page"``, ``"wrong_total_count"``,
        ``"stale_nonce"``."""
        self._sim.inject(fault, count, retry_after=retry_after, total_count=total_count)

    def close(self) -> None:
        """Stops the server. Idempotent."""
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


@atexit.register
def _close_all() -> None:
    for sim in list(_open):
        sim.close()
