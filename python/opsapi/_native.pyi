# Stub of the native module (src/python). Checked by `python -m mypy.stubtest opsapi._native`.
# Generated into _generated.pyi: the models' fields (a base _<Model>Fields each class
# inherits), the resources written from argument kinds, and the clients' handles; what the
# sync and the async class of another resource share is written once, in _twins.pyi.
from collections.abc import Awaitable, Callable, Iterator, Sequence
from datetime import datetime, timedelta
from os import PathLike
from typing import (
    Any,
    ClassVar,
    Literal,
    NoReturn,
    Optional,
    TypedDict,
    TypeVar,
    Union,
    final,
    overload,
    type_check_only,
)

import polars as pl

from opsapi._generated import AccessList as AccessList
from opsapi._generated import AlertConfigs as AlertConfigs
from opsapi._generated import AsyncAccessList as AsyncAccessList
from opsapi._generated import AsyncAlertConfigs as AsyncAlertConfigs
from opsapi._generated import AsyncClusters as AsyncClusters
from opsapi._generated import AsyncEvents as AsyncEvents
from opsapi._generated import AsyncGroups as AsyncGroups
from opsapi._generated import AsyncHosts as AsyncHosts
from opsapi._generated import AsyncPerformanceAdvisor as AsyncPerformanceAdvisor
from opsapi._generated import Clusters as Clusters
from opsapi._generated import Events as Events
from opsapi._generated import Groups as Groups
from opsapi._generated import Hosts as Hosts
from opsapi._generated import PerformanceAdvisor as PerformanceAdvisor
from opsapi._generated import (
    _AccessListEntryFields,
    _AlertConfigFields,
    _AlertFields,
    _AsyncResources,
    _AutoScalingFields,
    _ClusterFields,
    _CurrentValueFields,
    _EventDiffFields,
    _EventDiffParamFields,
    _EventFields,
    _GroupFields,
    _HostFields,
    _LinkFields,
    _NamespaceFields,
    _QueryShapeFields,
    _Resources,
    _SlowQueryFields,
    _SlowQueryLogsFields,
    _SuggestedIndexesFields,
    _SuggestedIndexFields,
    _SystemInfoFields,
)
from opsapi._native_forecast import _Forecasts as _Forecasts
from opsapi._native_sim import _SimulatorMethods
from opsapi._twins import _Alerts, _Client, _GlobalAlerts, _MeasurementsApi
from opsapi.exceptions import OpsApiError

__version__: str
# The classes `opsapi` exports (src/python/mod.rs's one list).
__all__ = [
    "Client",
    "AsyncClient",
    "Alert",
    "AlertList",
    "CurrentValue",
    "AlertContext",
    "AlertConfig",
    "AlertIterator",
    "AsyncAlertIterator",
    "Host",
    "HostList",
    "SystemInfo",
    "Cluster",
    "ClusterList",
    "AutoScaling",
    "Measurements",
    "Series",
    "Store",
    "StoreCheck",
    "SyncReport",
    "Event",
    "EventList",
    "EventDiff",
    "EventDiffParam",
    "Group",
    "AccessListEntry",
    "Link",
    "Namespace",
    "SlowQueryLogs",
    "SlowQuery",
    "SuggestedIndexes",
    "SuggestedIndex",
    "QueryShape",
]
# The clients' resources, (getter, sync class, async class), in their order.
RESOURCES: tuple[tuple[str, str, str], ...]
# The long frame's key columns, in order (Categorical): crate::frame::LONG_KEY_COLUMNS.
LONG_KEY_COLUMNS: tuple[str, ...]
# The host measurements Atlas names differently, Ops Manager's name (which frames carry) ->
# Atlas's: crate::flavour::ATLAS_MEASUREMENT_NAMES.
ATLAS_MEASUREMENT_NAMES: dict[str, str]
# The measurement names each flavour's server takes, flavour -> "host" | "disk" | "database" ->
# names (Atlas's from its OpenAPI specification, Ops Manager's and Cloud Manager's from Ops
# Manager's catalog), and how many one request may carry (None: no limit):
# crate::flavour::measurements.
MEASUREMENT_NAMES: dict[str, dict[str, list[str]]]
MAX_MEASUREMENTS: dict[str, Optional[int]]
# The flavour table's operations ("hosts.list", ...) and the flavours that have each, in the
# table's order: crate::Operation::ALL.
OPERATIONS: dict[str, tuple[_Flavour, ...]]
# The version Atlas is asked each operation it has in (its versioned media type's).
ATLAS_VERSIONS: dict[str, str]

@type_check_only
class _Row(TypedDict):
    method: str  # "GET", "PATCH", "DELETE"
    path: str  # Ops Manager's template: "/groups/{group_id}/hosts/{host_id}"
    atlas_path: str  # Atlas's: "/groups/{group_id}/processes/{host_id}"
    params: list[str]  # the placeholders, in order
    query: list[str]  # the query parameters it may carry, in the server's words
    answer: Literal["one", "page", "nothing"]
    endpoint_set: str  # Atlas's token bucket
    atlas_versions: list[tuple[str, Optional[str]]]  # (version, sunset), the one asked first
    flavours: tuple[_Flavour, ...]

# Each operation's row of the flavour table (crate::flavour::Row), in the table's order.
OPERATION_TABLE: dict[str, _Row]
# Atlas's tiers, smallest first: name -> (vCPUs, memory GiB) of a node: crate::ATLAS_TIERS.
ATLAS_TIERS: dict[str, tuple[int, float]]

_Timestamp = Union[datetime, str]
_Duration = Union[str, timedelta]
_Progress = Union[bool, Callable[[int, int, str, bool], object], None]
_Flavour = Literal["ops-manager", "cloud-manager", "atlas"]
# With keep_going=True, fleet returns (frame, failures): failures has the columns
# group_id, host_id, partition_name, database_name, status, error_code, error.
_FleetResult = Union[pl.DataFrame, tuple[pl.DataFrame, pl.DataFrame]]

def _shutdown() -> None: ...
def parse_duration(text: _Duration) -> timedelta: ...
def _sim_main(args: list[str]) -> int: ...
def _sim_help() -> str: ...
def _seasonal_cases(
    n: int, *, seed: int, now: datetime, days: int, step_seconds: int, limit: float
) -> tuple[pl.DataFrame, list[dict[str, Any]]]: ...
def _forecast_cases(
    family: str, n: int, *, seed: int, now: datetime, days: int, step_seconds: int
) -> tuple[pl.DataFrame, pl.DataFrame, list[dict[str, Any]]]: ...
def _check_targets(targets: Any, kind: Optional[str] = None) -> None: ...

# ---- What every model and every list of them has ---------------------------------------------
# (Stub-only bases: tests/python/test_stub.py checks that each class has every name of its base.)

_ItemT = TypeVar("_ItemT")

@type_check_only
class _Model:
    _fields: ClassVar[tuple[str, ...]]  # its fields, in order (crate::models::<model>_fields!)
    def to_dict(self) -> dict[str, Any]: ...
    def _repr_html_(self) -> str: ...

@type_check_only
class _ModelList(Sequence[_ItemT]):
    """Every item of every page, and the frame of them (`to_polars`, Arrow)."""

    @property
    def total_count(self) -> int: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int, /) -> _ItemT: ...
    @overload
    def __getitem__(self, index: slice, /) -> list[_ItemT]: ...
    def __iter__(self) -> Iterator[_ItemT]: ...
    def to_polars(self) -> pl.DataFrame: ...
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def _repr_html_(self) -> str: ...

# ---- Links and nested objects ----------------------------------------------------------------

@final
class Link(_Model, _LinkFields): ...

# ---- Global alerts and alert configurations (src/python/api/{global_alerts,alert_configs}.rs)

@final
class CurrentValue(_Model, _CurrentValueFields): ...

@final
class Alert(_Model, _AlertFields): ...

@final
class AlertList(_ModelList[Alert]): ...

@final
class AlertIterator:
    """Global alerts of the sync client, page by page: iterate with `for`."""

    def __iter__(self) -> AlertIterator: ...
    def __next__(self) -> Alert: ...

@final
class AsyncAlertIterator:
    """Global alerts of the async client, page by page: iterate with `async for` (a plain
    `for` raises TypeError)."""

    def __iter__(self) -> NoReturn: ...
    def __aiter__(self) -> AsyncAlertIterator: ...
    def __anext__(self) -> Awaitable[Alert]: ...

@final
class GlobalAlerts(
    _GlobalAlerts[AlertList, AlertIterator, Alert, list[Union[Alert, OpsApiError]]]
): ...

@final
class AsyncGlobalAlerts(
    _GlobalAlerts[
        Awaitable[AlertList],
        AsyncAlertIterator,
        Awaitable[Alert],
        Awaitable[list[Union[Alert, OpsApiError]]],
    ]
): ...

@final
class AlertConfig(_Model, _AlertConfigFields): ...

# ---- Project alerts and an alert in its context (src/python/api/alerts.rs) ------------------

@final
class AlertContext:
    """An alert in its context: its metric around it, the threshold, its hosts; the
    deployment's events, the slow queries and suggested indexes of the window, a reading and
    what is missing."""

    @property
    def alert(self) -> Alert: ...
    @property
    def frame(self) -> pl.DataFrame: ...
    @property
    def threshold(self) -> Optional[float]: ...
    @property
    def threshold_units(self) -> Optional[str]: ...
    @property
    def kind(self) -> Optional[str]: ...
    @property
    def measurement(self) -> Optional[str]: ...
    @property
    def start(self) -> datetime: ...
    @property
    def end(self) -> datetime: ...
    @property
    def granularity(self) -> str: ...
    @property
    def host(self) -> Optional[Host]: ...
    @property
    def hosts(self) -> list[Host]: ...
    @property
    def events(self) -> pl.DataFrame: ...
    @property
    def slow_queries(self) -> pl.DataFrame: ...
    @property
    def suggested_indexes(self) -> pl.DataFrame: ...
    @property
    def reading(self) -> str: ...
    @property
    def missing(self) -> dict[str, str]: ...
    @property
    def measurements(self) -> list[Measurements]: ...
    @property
    def note(self) -> Optional[str]: ...
    def chart(self, **kwargs: Any) -> Any: ...

_Pair = tuple[str, str]

@final
class Alerts(
    _Alerts[AlertList, AlertIterator, Alert, list[Union[Alert, OpsApiError]], AlertContext]
): ...

@final
class AsyncAlerts(
    _Alerts[
        Awaitable[AlertList],
        AsyncAlertIterator,
        Awaitable[Alert],
        Awaitable[list[Union[Alert, OpsApiError]]],
        Awaitable[AlertContext],
    ]
): ...

# ---- Hosts (src/python/api/hosts.rs) ---------------------------------------------------------

@final
class SystemInfo(_Model, _SystemInfoFields): ...

@final
class Host(_Model, _HostFields): ...

@final
class HostList(_ModelList[Host]): ...

# ---- Clusters (src/python/api/clusters.rs) ---------------------------------------------------

@final
class AutoScaling(_Model, _AutoScalingFields): ...

@final
class Cluster(_Model, _ClusterFields):
    def serves(
        self, name: str, *, cluster_id: Optional[str] = None, replica_set_name: Optional[str] = None
    ) -> bool: ...

@final
class ClusterList(_ModelList[Cluster]): ...

# ---- Measurements and fleet pulls (src/python/api/measurements.rs) ---------------------------

@final
class Series:
    @property
    def name(self) -> str: ...
    @property
    def units(self) -> Optional[str]: ...
    @property
    def timestamps(self) -> list[datetime]: ...
    @property
    def values(self) -> list[Optional[float]]: ...
    def __len__(self) -> int: ...

@final
class Measurements:
    @property
    def group_id(self) -> Optional[str]: ...
    @property
    def host_id(self) -> Optional[str]: ...
    @property
    def process_id(self) -> Optional[str]: ...
    @property
    def partition_name(self) -> Optional[str]: ...
    @property
    def database_name(self) -> Optional[str]: ...
    @property
    def granularity(self) -> Optional[str]: ...
    @property
    def start(self) -> Optional[datetime]: ...
    @property
    def end(self) -> Optional[datetime]: ...
    @property
    def links(self) -> list[Link]: ...
    @property
    def series(self) -> list[Series]: ...
    def to_polars(self, shape: str = "long") -> pl.DataFrame: ...
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def to_dict(self) -> dict[str, Any]: ...
    def _repr_html_(self) -> str: ...

@final
class MeasurementsApi(
    _MeasurementsApi[Measurements, _FleetResult, Optional[pl.DataFrame], SyncReport]
): ...

@final
class AsyncMeasurementsApi(
    _MeasurementsApi[
        Awaitable[Measurements],
        Awaitable[_FleetResult],
        Awaitable[Optional[pl.DataFrame]],
        Awaitable[SyncReport],
    ]
): ...

# ---- The measurement store (src/python/api/store.rs; scan: opsapi/_store.py) -----------------

@final
class Store:
    def __new__(cls, path: Union[str, PathLike[str]]) -> Store: ...
    @property
    def path(self) -> str: ...
    def __fspath__(self) -> str: ...
    def targets(self) -> pl.DataFrame: ...
    def files(self, *, kind: str, granularity: _Duration) -> list[str]: ...
    def check(self) -> StoreCheck: ...
    def vacuum(self) -> int: ...
    def _scan_files(self, *, kind: str, granularity: _Duration) -> dict[str, list[str]]: ...
    def _scan_history(
        self, *, kind: str, granularities: Sequence[_Duration]
    ) -> dict[str, list[Any]]: ...
    # Defined in Python (opsapi._store.scan), set on this class by `import opsapi`.
    def scan(
        self, *, kind: str, granularity: Union[_Duration, Sequence[_Duration]]
    ) -> pl.LazyFrame: ...

@final
class StoreCheck:
    @property
    def ok(self) -> bool: ...
    @property
    def files(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def problems(self) -> pl.DataFrame: ...  # path, problem
    def __bool__(self) -> bool: ...

@final
class SyncReport:
    # Targets are ("host", g, h), ("disk", g, h, partition), ("database", g, h, database);
    # a failed discovery listing is ("listing", path).
    @property
    def new(self) -> list[tuple[str, ...]]: ...
    @property
    def updated(self) -> list[tuple[str, ...]]: ...
    @property
    def unchanged(self) -> list[tuple[str, ...]]: ...
    @property
    def no_longer_seen(self) -> list[tuple[str, ...]]: ...
    @property
    def failed(self) -> dict[tuple[str, ...], OpsApiError]: ...
    @property
    def gaps(self) -> list[dict[str, Any]]: ...  # target, granularity, first, last, points
    @property
    def warnings(self) -> list[str]: ...
    @property
    def requests(self) -> int: ...
    @property
    def data_requests(self) -> int: ...
    @property
    def points_added(self) -> int: ...
    @property
    def bytes_written(self) -> int: ...
    @property
    def files_removed(self) -> int: ...
    @property
    def seconds(self) -> float: ...
    def to_dict(self) -> dict[str, Any]: ...

# ---- Project events (src/python/api/events.rs) -----------------------------------------------

@final
class EventDiffParam(_Model, _EventDiffParamFields): ...

@final
class EventDiff(_Model, _EventDiffFields): ...

@final
class Event(_Model, _EventFields): ...

@final
class EventList(_ModelList[Event]):
    def timeline(self) -> pl.DataFrame: ...

# ---- Projects (src/python/api/groups.rs) -----------------------------------------------------

@final
class Group(_Model, _GroupFields): ...

# ---- The global access list (src/python/api/access_list.rs) ----------------------------------

@final
class AccessListEntry(_Model, _AccessListEntryFields): ...

# ---- The Performance Advisor (src/python/api/performance_advisor.rs) ------------------------

@final
class Namespace(_Model, _NamespaceFields): ...

@final
class SlowQuery(_Model, _SlowQueryFields): ...

@final
class SlowQueryLogs(_Model, _SlowQueryLogsFields):
    def to_polars(self) -> pl.DataFrame: ...
    def summary(self) -> pl.DataFrame: ...
    def __len__(self) -> int: ...

@final
class QueryShape(_Model, _QueryShapeFields): ...

@final
class SuggestedIndex(_Model, _SuggestedIndexFields): ...

@final
class SuggestedIndexes(_Model, _SuggestedIndexesFields): ...

# ---- Clients (src/python/api/client.rs) ------------------------------------------------------

# Their handles are generated on the stub-only bases _Resources and _AsyncResources
# (_generated.pyi), from the list of resources.

@final
class Client(_Client, _Resources): ...

@final
class AsyncClient(_Client, _AsyncResources): ...

# ---- The simulator (src/python/sim.rs) -------------------------------------------------------
# Its methods are written on a stub-only base in _native_sim.pyi (as _twins.pyi's), which
# stubtest checks as this class's own.

@final
class _Hold:
    @property
    def arrived(self) -> bool: ...
    def wait_arrived(self, timeout: float) -> bool: ...
    def release(self) -> None: ...

@final
class _Simulator(_SimulatorMethods): ...
