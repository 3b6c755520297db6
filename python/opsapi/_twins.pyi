# The methods the sync and the async class of each resource share (`Hosts` and `AsyncHosts`,
# ..., `Client` and `AsyncClient`), written once, as src/python/api/mod.rs's `twins!` writes
# their two bindings from one signature. Each base is generic in what its methods return: the
# value in the sync class (`Host`), an awaitable of it in the async one (`Awaitable[Host]`).
# Stub-only: no such module exists at runtime (`@type_check_only`). `python -m mypy.stubtest
# opsapi._native` checks every method of a base against both classes that inherit it, and
# tests/python/test_stub.py that both classes have every name of their base.
from collections.abc import Iterable, Sequence
from datetime import datetime
from os import PathLike
from typing import Generic, Optional, TypeVar, Union, type_check_only

from typing_extensions import Self

from opsapi._native import (
    Alert,
    Store,
    _Duration,
    _Flavour,
    _Pair,
    _Progress,
    _Timestamp,
)

# ---- Alerts (src/python/api/{global_alerts,alerts,alert_configs}.rs) -------------------------

_AlertsT = TypeVar("_AlertsT")  # AlertList
_IterT = TypeVar("_IterT")  # AlertIterator (sync) or AsyncAlertIterator
_AlertT = TypeVar("_AlertT")  # Alert
_ManyT = TypeVar("_ManyT")  # list[Union[Alert, OpsApiError]]

@type_check_only
class _GlobalAlerts(Generic[_AlertsT, _IterT, _AlertT, _ManyT]):
    def list(
        self,
        *,
        status: Optional[str] = None,
        created_on_or_after: Optional[_Timestamp] = None,
        created_on_or_before: Optional[_Timestamp] = None,
    ) -> _AlertsT: ...
    def iter(
        self,
        *,
        status: Optional[str] = None,
        created_on_or_after: Optional[_Timestamp] = None,
        created_on_or_before: Optional[_Timestamp] = None,
    ) -> _IterT: ...
    def get(self, alert_id: str) -> _AlertT: ...
    def acknowledge(
        self,
        alert_id: str,
        *,
        until: Optional[_Timestamp] = None,
        duration: Optional[_Duration] = None,
        forever: Optional[bool] = None,
        comment: Optional[str] = None,
    ) -> _AlertT: ...
    def unacknowledge(self, alert_id: str) -> _AlertT: ...
    def acknowledge_many(
        self,
        alert_ids: Iterable[str],
        *,
        until: Optional[_Timestamp] = None,
        duration: Optional[_Duration] = None,
        forever: Optional[bool] = None,
        comment: Optional[str] = None,
    ) -> _ManyT: ...
    def unacknowledge_many(self, alert_ids: Iterable[str]) -> _ManyT: ...

_ContextT = TypeVar("_ContextT")  # AlertContext

@type_check_only
class _Alerts(Generic[_AlertsT, _IterT, _AlertT, _ManyT, _ContextT]):
    def list(self, group_id: str, *, status: Optional[str] = None) -> _AlertsT: ...
    def iter(self, group_id: str, *, status: Optional[str] = None) -> _IterT: ...
    def get(self, group_id: str, alert_id: str) -> _AlertT: ...
    def acknowledge(
        self,
        group_id: str,
        alert_id: str,
        *,
        until: Optional[_Timestamp] = None,
        duration: Optional[_Duration] = None,
        forever: Optional[bool] = None,
        comment: Optional[str] = None,
    ) -> _AlertT: ...
    def unacknowledge(self, group_id: str, alert_id: str) -> _AlertT: ...
    def acknowledge_many(
        self,
        pairs: Iterable[_Pair],
        *,
        until: Optional[_Timestamp] = None,
        duration: Optional[_Duration] = None,
        forever: Optional[bool] = None,
        comment: Optional[str] = None,
    ) -> _ManyT: ...
    def unacknowledge_many(self, pairs: Iterable[_Pair]) -> _ManyT: ...
    def list_all(
        self, *, status: Optional[str] = None, groups: Optional[Iterable[str]] = None
    ) -> _AlertsT: ...
    def context(
        self,
        alert: Alert,
        *,
        before: Optional[_Duration] = None,
        after: Optional[_Duration] = None,
        granularity: Optional[_Duration] = None,
    ) -> _ContextT: ...

# ---- Measurements (src/python/api/{measurements,store}.rs) -------------------------------------

_MeasurementsT = TypeVar("_MeasurementsT")  # Measurements
_FleetT = TypeVar("_FleetT")  # _FleetResult
_ParquetT = TypeVar("_ParquetT")  # Optional[pl.DataFrame]
_SyncT = TypeVar("_SyncT")  # SyncReport

@type_check_only
class _MeasurementsApi(Generic[_MeasurementsT, _FleetT, _ParquetT, _SyncT]):
    def host(
        self,
        group_id: str,
        host_id: str,
        *,
        granularity: _Duration,
        period: Optional[_Duration] = None,
        start: Optional[_Timestamp] = None,
        end: Optional[_Timestamp] = None,
        metrics: Optional[list[str]] = None,
    ) -> _MeasurementsT: ...
    def disk(
        self,
        group_id: str,
        host_id: str,
        partition_name: str,
        *,
        granularity: _Duration,
        period: Optional[_Duration] = None,
        start: Optional[_Timestamp] = None,
        end: Optional[_Timestamp] = None,
        metrics: Optional[list[str]] = None,
    ) -> _MeasurementsT: ...
    def database(
        self,
        group_id: str,
        host_id: str,
        database_name: str,
        *,
        granularity: _Duration,
        period: Optional[_Duration] = None,
        start: Optional[_Timestamp] = None,
        end: Optional[_Timestamp] = None,
        metrics: Optional[list[str]] = None,
    ) -> _MeasurementsT: ...
    def fleet(
        self,
        targets: list[tuple[str, ...]],
        *,
        granularity: _Duration,
        period: Optional[_Duration] = None,
        start: Optional[_Timestamp] = None,
        end: Optional[_Timestamp] = None,
        metrics: Optional[list[str]] = None,
        shape: Optional[str] = None,  # "long"
        keep_going: Optional[bool] = None,
        progress: _Progress = None,
        kind: Optional[str] = None,  # "host", "disk" or "database"; None: from the tuples
    ) -> _FleetT: ...
    def fleet_to_parquet(
        self,
        targets: list[tuple[str, ...]],
        path: Union[str, PathLike[str]],
        *,
        granularity: _Duration,
        period: Optional[_Duration] = None,
        start: Optional[_Timestamp] = None,
        end: Optional[_Timestamp] = None,
        metrics: Optional[list[str]] = None,
        keep_going: Optional[bool] = None,
        progress: _Progress = None,
        kind: Optional[str] = None,  # "host", "disk" or "database"; None: from the tuples
    ) -> _ParquetT: ...
    def sync(
        self,
        store: Union[Store, str, PathLike[str]],
        *,
        targets: Union[str, list[tuple[str, ...]], None] = None,  # "all" (None) or fleet's tuples
        kind: Union[str, Sequence[str], None] = None,  # None: ("host", "disk", "database")
        granularity: _Duration,
        window: _Duration,
        metrics: Union[list[str], dict[str, list[str]], None] = None,
        wait: Optional[bool] = None,  # True
        progress: _Progress = None,
        rediscover: Optional[_Duration] = None,  # a day
        projects: Optional[list[str]] = None,  # None: every project the key can see
        keep: Optional[dict[str, Optional[_Duration]]] = None,  # {"PT1H": "P395D", "P1D": None}
    ) -> _SyncT: ...

# ---- Clients (src/python/api/client.rs): their handles are each class's own ----------------

@type_check_only
class _Client:
    def __new__(
        cls,
        base_url: str,
        public_key: str,
        private_key: str,
        *,
        timeout: Optional[float] = None,  # 30.0
        max_retries: Optional[int] = None,  # 3
        max_concurrency: Optional[int] = None,  # 8
        verify: Optional[bool] = None,  # True
        ca_file: Union[str, PathLike[str], None] = None,
        user_agent: Optional[str] = None,
        max_response_bytes: Optional[int] = None,  # 256 MiB
        rate_limit: Union[float, dict[str, float], None] = None,  # per second per project
        flavour: Optional[_Flavour] = None,  # from the base URL
    ) -> Self: ...
    @classmethod
    def atlas(
        cls,
        *,
        public_key: Optional[str] = None,
        private_key: Optional[str] = None,
        client_id: Optional[str] = None,
        client_secret: Optional[str] = None,
        base_url: Optional[str] = None,  # https://cloud.mongodb.com
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        max_concurrency: Optional[int] = None,
        verify: Optional[bool] = None,
        ca_file: Union[str, PathLike[str], None] = None,
        user_agent: Optional[str] = None,
        max_response_bytes: Optional[int] = None,
        rate_limit: Union[float, dict[str, float], None] = None,
        token_cache: Union[bool, str, PathLike[str], None] = None,  # True: the user's cache folder
    ) -> Self: ...
    @classmethod
    def from_env(
        cls,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        max_concurrency: Optional[int] = None,
        verify: Optional[bool] = None,
        user_agent: Optional[str] = None,
        max_response_bytes: Optional[int] = None,
        ca_file: Union[str, PathLike[str], None] = None,
        rate_limit: Union[float, dict[str, float], None] = None,
        token_cache: Union[bool, str, PathLike[str], None] = None,
    ) -> Self: ...
    # Defined in Python (opsapi.config.from_profile), set on this class by `import opsapi`.
    @classmethod
    def from_profile(
        cls,
        name: Optional[str] = None,
        *,
        path: Union[str, PathLike[str], None] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        max_concurrency: Optional[int] = None,
        verify: Optional[bool] = None,
        ca_file: Union[str, PathLike[str], None] = None,
        user_agent: Optional[str] = None,
        max_response_bytes: Optional[int] = None,
        rate_limit: Optional[float] = None,
    ) -> Self: ...
    @property
    def base_url(self) -> str: ...
    @property
    def flavour(self) -> _Flavour: ...
    @property
    def server_version(self) -> Optional[str]: ...
    @property
    def server_time(self) -> datetime: ...
