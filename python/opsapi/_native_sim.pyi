# The methods of the native module's simulator (src/python/sim.rs), on a stub-only base that
# _native.pyi's `_Simulator` inherits: `python -m mypy.stubtest opsapi._native` checks each as
# that class's own, as it does _twins.pyi's. No such module exists at runtime. (Apart so that
# _native.pyi stays under 800 lines; opsapi.testing.Simulator is the public face.)
from datetime import datetime
from typing import Any, Optional, Union, type_check_only

from typing_extensions import Self

from opsapi._native import _Flavour, _Hold

@type_check_only
class _SimulatorMethods:
    def __new__(
        cls,
        *,
        seed: int = 0,
        projects: int = 3,
        hosts_per_project: int = 5,
        global_alerts: Optional[int] = None,
        nonce_lifetime: Optional[float] = None,
        port: int = 0,
        bind: Optional[str] = None,
        worker_threads: int = 1,
        log_requests: bool = True,
        tls: Union[bool, str, None] = None,
        rate_limit: Optional[float] = None,
        cache_bytes: Optional[int] = None,
        now: Union[datetime, str, None] = None,
        retention: Union[bool, dict[str, Optional[float]], None] = None,
        flavour: Optional[_Flavour] = None,
        token_buckets: Union[bool, dict[str, tuple[int, float]], None] = None,
        token_lifetime: Optional[float] = None,
    ) -> Self: ...
    @property
    def flavour(self) -> _Flavour: ...
    @property
    def api_url(self) -> str: ...
    @property
    def client_id(self) -> str: ...
    @property
    def client_secret(self) -> str: ...
    @property
    def base_url(self) -> str: ...
    @property
    def public_key(self) -> str: ...
    @property
    def private_key(self) -> str: ...
    @property
    def read_only_public_key(self) -> str: ...
    @property
    def read_only_private_key(self) -> str: ...
    @property
    def ca_file(self) -> Optional[str]: ...
    @property
    def group_ids(self) -> list[str]: ...
    @property
    def closed(self) -> bool: ...
    def requests(self) -> list[dict[str, Any]]: ...
    def partition_truth(self) -> list[dict[str, Any]]: ...
    def database_truth(self) -> list[dict[str, Any]]: ...
    def headroom_truth(self) -> list[dict[str, Any]]: ...
    def cluster_truth(self) -> list[dict[str, Any]]: ...
    def alert_truth(self) -> dict[str, Any]: ...
    def world(self) -> dict[str, list[dict[str, Any]]]: ...
    def clear_requests(self) -> None: ...
    def add_host(self, group_id: str) -> Optional[str]: ...
    def remove_host(self, host_id: str) -> bool: ...
    @property
    def rate_limit(self) -> Optional[float]: ...
    def set_rate_limit(self, rate_limit: Optional[float]) -> None: ...
    def set_faults(
        self,
        *,
        latency: float = 0.0,
        rate_429: float = 0.0,
        rate_500: float = 0.0,
        rate_503: float = 0.0,
        rate_reset: float = 0.0,
        rate_truncate: float = 0.0,
        retry_after_secs: int = 1,
    ) -> None: ...
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
    ) -> None: ...
    def hold(
        self,
        *,
        method: Optional[str] = None,
        path: Optional[str] = None,
        page: Optional[int] = None,
        nth: int = 1,
    ) -> _Hold: ...
    @property
    def now(self) -> datetime: ...
    def advance(self, seconds: float) -> None: ...
    def set_date_skew(self, seconds: float) -> None: ...
    def injected(self) -> list[str]: ...
    def clear_injected(self) -> None: ...
    @property
    def connections(self) -> int: ...
    def close(self) -> None: ...
