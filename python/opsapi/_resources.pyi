# The resource classes whose methods src/python/api/<resource>.rs writes with twins! from
# argument kinds: generated from those entries by .ci/resource_stubs.py (do not edit; run
# `.venv/bin/python .ci/resource_stubs.py --write`). _native.pyi re-exports them; stubtest
# checks them against the module.
from collections.abc import Awaitable, Iterable
from typing import Optional, Union, final

from opsapi._native import (
    AccessListEntry,
    AlertConfig,
    AlertList,
    Cluster,
    ClusterList,
    Event,
    EventList,
    Group,
    Host,
    HostList,
    _Timestamp,
)

@final
class AccessList:
    def delete(self, entry_id: str) -> None: ...
    def list(self) -> list[AccessListEntry]: ...

@final
class AsyncAccessList:
    def delete(self, entry_id: str) -> Awaitable[None]: ...
    def list(self) -> Awaitable[list[AccessListEntry]]: ...

@final
class AlertConfigs:
    def list(self, group_id: str) -> list[AlertConfig]: ...
    def open_alerts(self, group_id: str, alert_config_id: str) -> AlertList: ...

@final
class AsyncAlertConfigs:
    def list(self, group_id: str) -> Awaitable[list[AlertConfig]]: ...
    def open_alerts(self, group_id: str, alert_config_id: str) -> Awaitable[AlertList]: ...

@final
class Clusters:
    def get(self, group_id: str, cluster: str) -> Cluster: ...
    def list(self, group_id: str) -> ClusterList: ...
    def list_all(self, *, groups: Optional[Iterable[str]] = None) -> ClusterList: ...

@final
class AsyncClusters:
    def get(self, group_id: str, cluster: str) -> Awaitable[Cluster]: ...
    def list(self, group_id: str) -> Awaitable[ClusterList]: ...
    def list_all(self, *, groups: Optional[Iterable[str]] = None) -> Awaitable[ClusterList]: ...

@final
class Events:
    def get(self, group_id: str, event_id: str, *, include_raw: Optional[bool] = None) -> Event: ...
    def list(
        self,
        group_id: str,
        *,
        event_type: Optional[Union[str, Iterable[str]]] = None,
        min_date: Optional[_Timestamp] = None,
        max_date: Optional[_Timestamp] = None,
    ) -> EventList: ...

@final
class AsyncEvents:
    def get(
        self,
        group_id: str,
        event_id: str,
        *,
        include_raw: Optional[bool] = None,
    ) -> Awaitable[Event]: ...
    def list(
        self,
        group_id: str,
        *,
        event_type: Optional[Union[str, Iterable[str]]] = None,
        min_date: Optional[_Timestamp] = None,
        max_date: Optional[_Timestamp] = None,
    ) -> Awaitable[EventList]: ...

@final
class Groups:
    def get(self, group_id: str) -> Group: ...
    def list(self) -> list[Group]: ...

@final
class AsyncGroups:
    def get(self, group_id: str) -> Awaitable[Group]: ...
    def list(self) -> Awaitable[list[Group]]: ...

@final
class Hosts:
    def databases(self, group_id: str, host_id: str) -> list[str]: ...
    def get(self, group_id: str, host_id: str) -> Host: ...
    def list(self, group_id: str) -> HostList: ...
    def partitions(self, group_id: str, host_id: str) -> list[str]: ...

@final
class AsyncHosts:
    def databases(self, group_id: str, host_id: str) -> Awaitable[list[str]]: ...
    def get(self, group_id: str, host_id: str) -> Awaitable[Host]: ...
    def list(self, group_id: str) -> Awaitable[HostList]: ...
    def partitions(self, group_id: str, host_id: str) -> Awaitable[list[str]]: ...
