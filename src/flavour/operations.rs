//! The one table of operations: a row per operation, which every layer reads. A row says what
//! the operation is called (`"hosts.get"`), its method and path template (Ops Manager's, and
//! Atlas's where it differs), the query parameters it may carry, what it answers (one object,
//! a page of a list, nothing), its Atlas versions (none: Atlas lacks it), whether it is a
//! global resource of Ops Manager's administrators, and its Atlas endpoint set.
//!
//! The request builders fill its path ([`Operation::request`], in `request.rs`), the client gives a request
//! its flavour's path and media type from it ([`crate::Request::for_flavour`]), the simulator
//! routes by it, the tests' tables and the README's operation table are written from it or
//! checked against it, and Python reads it as `opsapi._native.OPERATION_TABLE`.
//!
//! Why a declarative macro (and not a build script or generated code): a row is written in
//! Rust, next to the code that reads it, so that a mistyped endpoint set or answer kind is a
//! compiler error at that row, rust-analyzer jumps from a variant to its row, and the checks of
//! the templates (`check_rows`, below) run at compile time, with nothing to regenerate.
//!
//! ```
//! use opsapi::{Answer, Flavour, Method, Operation};
//! let row = Operation::HostsGet.row();
//! assert_eq!((row.name, &row.method, row.answer), ("hosts.get", &Method::GET, Answer::One));
//! assert_eq!(row.path(Flavour::OpsManager), "/groups/{group_id}/hosts/{host_id}");
//! assert_eq!(row.path(Flavour::Atlas), "/groups/{group_id}/processes/{host_id}");
//! let req = Operation::HostsGet.request(&["g1", "db-0:27017"]).unwrap();
//! assert_eq!(req.path, "/groups/g1/hosts/db-0%3A27017");
//! ```

use reqwest::Method;

use super::{EndpointSet, Flavour};

mod rules;

/// What an operation answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Answer {
    /// One object.
    One,
    /// A list, page by page (`results`, `totalCount`, `links`; `pageNum` and `itemsPerPage`
    /// in the query).
    Page,
    /// Nothing: `204 No Content`.
    Nothing,
}

impl Answer {
    /// `"one"`, `"page"` or `"nothing"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::One => "one",
            Self::Page => "page",
            Self::Nothing => "nothing",
        }
    }
}

/// Who may ask an operation, by where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Scope {
    /// A global resource of Ops Manager's administrators (global alerts, the global API
    /// access list): Ops Manager's alone, refused to a project's key.
    Global,
    /// The projects a key can see (`/groups`).
    Projects,
    /// Below one project (`/groups/{group_id}/...`): the key must be a member of it.
    Project,
}

/// One version of an operation's Atlas resource: its date (`2023-01-01`), the versioned
/// media type that asks for it and its sunset date (`YYYY-MM-DD`), if it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct AtlasVersion {
    /// `2023-01-01`
    pub date: &'static str,
    /// `application/vnd.atlas.2023-01-01+json`
    pub media_type: &'static str,
    /// The day the version stops being served, if it has one.
    pub sunset: Option<&'static str>,
}

/// One row of the table ([`Operation::row`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Row {
    /// The operation.
    pub operation: Operation,
    /// As Python calls it: `"hosts.list"`, `"global_alerts.acknowledge"`.
    pub name: &'static str,
    /// The HTTP method.
    pub method: Method,
    /// The path template under Ops Manager's API (`/api/public/v1.0`), each placeholder
    /// named as the request builder's argument: `/groups/{group_id}/hosts/{host_id}`.
    pub ops_manager_path: &'static str,
    /// The path template under Atlas's API (`/api/atlas/v2`), with the same placeholders in
    /// the same order: hosts are `processes` (a host is named `hostname:port` there), a
    /// cluster is named by its name.
    pub atlas_path: &'static str,
    /// The query parameters the operation may carry (besides `pageNum` and `itemsPerPage` of
    /// a page, and `pretty` and `envelope`), in the server's words.
    pub query: &'static [&'static str],
    /// What it answers.
    pub answer: Answer,
    /// Whether it is a global resource of Ops Manager's administrators (not on Cloud Manager
    /// or Atlas).
    pub global: bool,
    /// Its Atlas endpoint set (the token bucket it draws from).
    pub endpoint_set: EndpointSet,
    /// The versions of its Atlas resource, the one the client asks for first; empty where
    /// Atlas does not have it.
    pub atlas_versions: &'static [AtlasVersion],
    /// Its `operationId` in Atlas's specification (`getGroupProcess`), where Atlas has it:
    /// the spec extract (`tests/fixtures/atlas-openapi/extract.py`) takes the operations it
    /// keeps from the table by these.
    pub atlas_operation_id: Option<&'static str>,
}

impl Row {
    /// The path template on `flavour`.
    pub fn path(&self, flavour: Flavour) -> &'static str {
        match flavour {
            Flavour::Atlas => self.atlas_path,
            Flavour::OpsManager | Flavour::CloudManager => self.ops_manager_path,
        }
    }

    /// The names of the path's placeholders, in order: the request builder's arguments.
    ///
    /// ```
    /// let row = opsapi::Operation::MeasurementsDisk.row();
    /// assert_eq!(row.params().collect::<Vec<_>>(), ["group_id", "host_id", "partition_name"]);
    /// ```
    pub fn params(&self) -> impl Iterator<Item = &'static str> {
        segments(self.ops_manager_path).filter_map(Segment::param)
    }

    /// Who may ask it.
    pub fn scope(&self) -> Scope {
        if self.global {
            Scope::Global
        } else if self.ops_manager_path.starts_with("/groups/{group_id}") {
            Scope::Project
        } else {
            Scope::Projects
        }
    }

    /// Whether `flavour` has it.
    pub fn on(&self, flavour: Flavour) -> bool {
        match flavour {
            Flavour::OpsManager => true,
            Flavour::CloudManager => !self.global,
            Flavour::Atlas => !self.atlas_versions.is_empty(),
        }
    }
}

/// A segment of a path template: a literal or a placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Segment {
    Literal(&'static str),
    Param(&'static str),
}

impl Segment {
    fn param(self) -> Option<&'static str> {
        match self {
            Self::Param(p) => Some(p),
            Self::Literal(_) => None,
        }
    }
}

/// The segments of a template (`/groups/{group_id}` -> `groups`, `{group_id}`).
pub(crate) fn segments(template: &'static str) -> impl Iterator<Item = Segment> {
    template.split('/').skip(1).map(|s| {
        match s.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(p) => Segment::Param(p),
            None => Segment::Literal(s),
        }
    })
}

/// The table: the `Operation` enum, `Operation::ALL` and the rows, from one list. Each entry:
/// its doc, the variant, the name, `METHOD "Ops Manager's path" -> Answer`, then, each where
/// it applies: `atlas "path"` (where Atlas's differs), `query [...]`, `set Name` (else
/// `Other`), `scope Global` (an administrators' resource of Ops Manager alone) and its Atlas
/// versions, `versions ["date", "date" until "sunset"]` (none: Atlas lacks it), with the
/// operation's `operation_id` in Atlas's specification.
macro_rules! operations {
    (
        $(
            $(#[doc = $doc:literal])*
            $variant:ident $name:literal {
                $method:ident $path:literal -> $answer:ident
                $(, atlas $atlas_path:literal)?
                $(, query [$($query:literal),* $(,)?])?
                $(, set $set:ident)?
                $(, scope $scope:ident)?
                $(, versions [$($version:literal $(until $sunset:literal)?),+ $(,)?])?
                $(, operation_id $operation_id:literal)?
                $(,)?
            }
        )*
    ) => {
        /// One operation of the API, whatever the flavour: what a request is, so that the
        /// client can give it its flavour's path and media type
        /// ([`crate::Request::for_flavour`]). Its row ([`Operation::row`]) says the rest.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Operation {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl Operation {
            /// Every operation, in the table's order.
            pub const ALL: [Operation; [$(stringify!($variant)),*].len()] =
                [$(Self::$variant),*];
        }

        /// The rows, in the order of [`Operation::ALL`].
        static ROWS: [Row; [$(stringify!($variant)),*].len()] = [$(
            Row {
                operation: Operation::$variant,
                name: $name,
                method: Method::$method,
                ops_manager_path: $path,
                atlas_path: first!($($atlas_path,)? $path),
                query: &[$($($query),*)?],
                answer: Answer::$answer,
                global: first!($(matches!(Scope::$scope, Scope::Global),)? false),
                endpoint_set: first!($(EndpointSet::$set,)? EndpointSet::Other),
                atlas_versions: &[$($(AtlasVersion {
                    date: $version,
                    media_type: concat!("application/vnd.atlas.", $version, "+json"),
                    sunset: first!($(Some($sunset),)? None),
                }),+)?],
                atlas_operation_id: first!($(Some($operation_id),)? None),
            },
        )*];

        /// The rows' methods, as written (for the checks at compile time).
        const METHODS: [&str; [$(stringify!($variant)),*].len()] = [$(stringify!($method)),*];
    };
}

/// The first of its arguments: a row's own value, else the default after it.
macro_rules! first {
    ($value:expr $(, $rest:expr)*) => {
        $value
    };
}

operations! {
    /// `GET /admin/accessList`
    AccessListList "access_list.list" { GET "/admin/accessList" -> Page, scope Global }
    /// `DELETE /admin/accessList/{entry_id}`
    AccessListDelete "access_list.delete" {
        DELETE "/admin/accessList/{entry_id}" -> Nothing, scope Global
    }
    /// `GET /globalAlerts`
    GlobalAlertsList "global_alerts.list" {
        GET "/globalAlerts" -> Page,
        query ["status", "createdOnOrAfter", "createdOnOrBefore"], scope Global
    }
    /// `GET /globalAlerts/{alert_id}`
    GlobalAlertsGet "global_alerts.get" { GET "/globalAlerts/{alert_id}" -> One, scope Global }
    /// `PATCH /globalAlerts/{alert_id}`
    GlobalAlertsAcknowledge "global_alerts.acknowledge" {
        PATCH "/globalAlerts/{alert_id}" -> One, scope Global
    }
    /// `GET /groups/{group_id}/alerts`
    AlertsList "alerts.list" {
        GET "/groups/{group_id}/alerts" -> Page,
        query ["status"], set Alerts, versions ["2023-01-01"],
        operation_id "listGroupAlerts"
    }
    /// `GET /groups/{group_id}/alerts/{alert_id}`
    AlertsGet "alerts.get" {
        GET "/groups/{group_id}/alerts/{alert_id}" -> One, set Alerts, versions ["2023-01-01"],
        operation_id "getGroupAlert"
    }
    /// `PATCH /groups/{group_id}/alerts/{alert_id}` (acknowledge, un-acknowledge).
    /// Acknowledging is a newer resource version than reading (the SDK's docs); the first
    /// version is served until its sunset.
    AlertsAcknowledge "alerts.acknowledge" {
        PATCH "/groups/{group_id}/alerts/{alert_id}" -> One,
        set Alerts, versions ["2024-05-30", "2023-01-01" until "2027-07-01"],
        operation_id "acknowledgeGroupAlert"
    }
    /// `GET /groups/{group_id}/alertConfigs`
    AlertConfigsList "alert_configs.list" {
        GET "/groups/{group_id}/alertConfigs" -> Page, set Alerts, versions ["2023-01-01"],
        operation_id "listGroupAlertConfigs"
    }
    /// `GET /groups/{group_id}/alertConfigs/{alert_config_id}`
    AlertConfigsGet "alert_configs.get" {
        GET "/groups/{group_id}/alertConfigs/{alert_config_id}" -> One,
        set Alerts, versions ["2023-01-01"],
        operation_id "getGroupAlertConfig"
    }
    /// `GET /groups/{group_id}/alertConfigs/{alert_config_id}/alerts`
    AlertConfigsOpenAlerts "alert_configs.open_alerts" {
        GET "/groups/{group_id}/alertConfigs/{alert_config_id}/alerts" -> Page,
        set Alerts, versions ["2023-01-01"],
        operation_id "getGroupAlertConfigAlerts"
    }
    /// `GET /groups`
    GroupsList "groups.list" {
        GET "/groups" -> Page, versions ["2023-01-01"],
        operation_id "listGroups"
    }
    /// `GET /groups/{group_id}`
    GroupsGet "groups.get" {
        GET "/groups/{group_id}" -> One, versions ["2023-01-01"],
        operation_id "getGroup"
    }
    /// `GET /groups/{group_id}/hosts` (Atlas: `/processes`)
    HostsList "hosts.list" {
        GET "/groups/{group_id}/hosts" -> Page,
        atlas "/groups/{group_id}/processes", set Monitoring, versions ["2023-01-01"],
        operation_id "listGroupProcesses"
    }
    /// `GET /groups/{group_id}/hosts/{host_id}`
    HostsGet "hosts.get" {
        GET "/groups/{group_id}/hosts/{host_id}" -> One,
        atlas "/groups/{group_id}/processes/{host_id}", set Monitoring, versions ["2023-01-01"],
        operation_id "getGroupProcess"
    }
    /// `GET /groups/{group_id}/hosts/{host_id}/disks`
    HostsPartitions "hosts.partitions" {
        GET "/groups/{group_id}/hosts/{host_id}/disks" -> Page,
        atlas "/groups/{group_id}/processes/{host_id}/disks",
        set Monitoring, versions ["2023-01-01"],
        operation_id "listGroupProcessDisks"
    }
    /// `GET /groups/{group_id}/hosts/{host_id}/databases`
    HostsDatabases "hosts.databases" {
        GET "/groups/{group_id}/hosts/{host_id}/databases" -> Page,
        atlas "/groups/{group_id}/processes/{host_id}/databases",
        set Monitoring, versions ["2023-01-01"],
        operation_id "listGroupProcessDatabases"
    }
    /// `GET /groups/{group_id}/hosts/{host_id}/measurements`
    MeasurementsHost "measurements.host" {
        GET "/groups/{group_id}/hosts/{host_id}/measurements" -> One,
        atlas "/groups/{group_id}/processes/{host_id}/measurements",
        query ["granularity", "period", "start", "end", "m"],
        set Monitoring, versions ["2023-01-01"],
        operation_id "getGroupProcessMeasurements"
    }
    /// `GET /groups/{group_id}/hosts/{host_id}/disks/{partition_name}/measurements`
    MeasurementsDisk "measurements.disk" {
        GET "/groups/{group_id}/hosts/{host_id}/disks/{partition_name}/measurements" -> One,
        atlas "/groups/{group_id}/processes/{host_id}/disks/{partition_name}/measurements",
        query ["granularity", "period", "start", "end", "m"],
        set Monitoring, versions ["2023-01-01"],
        operation_id "getGroupProcessDiskMeasurements"
    }
    /// `GET /groups/{group_id}/hosts/{host_id}/databases/{database_name}/measurements`
    MeasurementsDatabase "measurements.database" {
        GET "/groups/{group_id}/hosts/{host_id}/databases/{database_name}/measurements" -> One,
        atlas "/groups/{group_id}/processes/{host_id}/databases/{database_name}/measurements",
        query ["granularity", "period", "start", "end", "m"],
        set Monitoring, versions ["2023-01-01"],
        operation_id "getGroupProcessDatabaseMeasurements"
    }
    /// `GET /groups/{group_id}/events` (`clusterNames`: Atlas's alone, which an alert's
    /// context sends for its cluster's own events)
    EventsList "events.list" {
        GET "/groups/{group_id}/events" -> Page,
        query ["eventType", "minDate", "maxDate", "includeRaw", "clusterNames"],
        set Events, versions ["2023-01-01"],
        operation_id "listGroupEvents"
    }
    /// `GET /groups/{group_id}/events/{event_id}`
    EventsGet "events.get" {
        GET "/groups/{group_id}/events/{event_id}" -> One,
        query ["includeRaw"], set Events, versions ["2023-01-01"],
        operation_id "getGroupEvent"
    }
    /// `GET /groups/{group_id}/clusters`
    ClustersList "clusters.list" {
        GET "/groups/{group_id}/clusters" -> Page, versions ["2024-08-05"],
        operation_id "listGroupClusters"
    }
    /// `GET /groups/{group_id}/clusters/{cluster}`: the cluster's id on Ops Manager and Cloud
    /// Manager, its name on Atlas. Clusters as the specification describes them now: one
    /// replication spec per shard, each with its own hardware and auto-scaling
    /// (`ClusterDescription20240805`; the older versions, of other shapes, are sunset on
    /// 2027-07-01 and not asked).
    ClustersGet "clusters.get" {
        GET "/groups/{group_id}/clusters/{cluster}" -> One, versions ["2024-08-05"],
        operation_id "getGroupCluster"
    }
    /// `GET /groups/{group_id}/hosts/{host_id}/performanceAdvisor/namespaces`: the namespaces
    /// of the host's slow queries.
    PerformanceAdvisorNamespaces "performance_advisor.namespaces" {
        GET "/groups/{group_id}/hosts/{host_id}/performanceAdvisor/namespaces" -> One,
        atlas "/groups/{group_id}/processes/{host_id}/performanceAdvisor/namespaces",
        query ["since", "duration"], set PerformanceAdvisor, versions ["2023-01-01"],
        operation_id "listGroupProcessPerformanceAdvisorNamespaces"
    }
    /// `GET /groups/{group_id}/hosts/{host_id}/performanceAdvisor/slowQueryLogs`
    PerformanceAdvisorSlowQueryLogs "performance_advisor.slow_query_logs" {
        GET "/groups/{group_id}/hosts/{host_id}/performanceAdvisor/slowQueryLogs" -> One,
        atlas "/groups/{group_id}/processes/{host_id}/performanceAdvisor/slowQueryLogs",
        query ["since", "duration", "namespaces", "nLogs"],
        set PerformanceAdvisor, versions ["2023-01-01"],
        operation_id "listGroupProcessPerformanceAdvisorSlowQueryLogs"
    }
    /// `GET /groups/{group_id}/hosts/{host_id}/performanceAdvisor/suggestedIndexes`
    PerformanceAdvisorSuggestedIndexes "performance_advisor.suggested_indexes" {
        GET "/groups/{group_id}/hosts/{host_id}/performanceAdvisor/suggestedIndexes" -> One,
        atlas "/groups/{group_id}/processes/{host_id}/performanceAdvisor/suggestedIndexes",
        query ["since", "duration", "namespaces", "nIndexes", "nExamples"],
        set PerformanceAdvisor, versions ["2023-01-01"],
        operation_id "listGroupProcessPerformanceAdvisorSuggestedIndexes"
    }
}

impl Operation {
    /// Its row of the table.
    pub const fn row(self) -> &'static Row {
        // The rows are in the order of the variants (the macro writes both from one list).
        &ROWS[self as usize]
    }

    /// The operation as Python calls it: `"hosts.list"`, `"global_alerts.acknowledge"`.
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// Its Atlas endpoint set (the token bucket it draws from).
    pub fn endpoint_set(self) -> EndpointSet {
        self.row().endpoint_set
    }

    /// Why a flavour lacks it, for [`crate::Error::Unsupported`]'s message.
    pub(crate) fn missing_because(self) -> &'static str {
        match self.row().name.split('.').next() {
            Some("global_alerts") => {
                "it has no global alerts (the alerts of a project are client.alerts)"
            }
            Some("access_list") => "it has no global API access list",
            _ => "it has no such operation",
        }
    }
}

/// The path on `to` of `path`, a path of `operation` on `from`: the identifiers of `from`'s
/// template put in `to`'s. `None`: the path is the same, or is not one of the operation's.
pub(crate) fn path_for(
    from: Flavour,
    to: Flavour,
    operation: Operation,
    path: &str,
) -> Option<String> {
    let row = operation.row();
    let (old, new) = (row.path(from), row.path(to));
    if old == new {
        return None;
    }
    let mut given = path.split('/').skip(1);
    let mut ids = Vec::new();
    for segment in segments(old) {
        let got = given.next()?;
        match segment {
            Segment::Literal(s) if s != got => return None,
            Segment::Literal(_) => {}
            Segment::Param(_) => ids.push(got),
        }
    }
    if given.next().is_some() {
        return None;
    }
    let mut ids = ids.into_iter();
    let mut out = String::with_capacity(path.len() + 8);
    for segment in segments(new) {
        out.push('/');
        out.push_str(match segment {
            Segment::Literal(s) => s,
            Segment::Param(_) => ids.next()?,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn the_variants_and_the_rows_are_in_one_order() {
        for (i, op) in Operation::ALL.into_iter().enumerate() {
            assert_eq!(op as usize, i);
            assert_eq!(op.row().operation, op);
        }
    }

    #[test]
    fn paths_change_between_flavours_by_their_templates() {
        let p = |op, path: &str| path_for(Flavour::OpsManager, Flavour::Atlas, op, path);
        assert_eq!(
            p(Operation::HostsList, "/groups/g/hosts").as_deref(),
            Some("/groups/g/processes")
        );
        assert_eq!(
            p(
                Operation::MeasurementsDisk,
                "/groups/g/hosts/a%3A1/disks/d/measurements"
            )
            .as_deref(),
            Some("/groups/g/processes/a%3A1/disks/d/measurements")
        );
        assert_eq!(p(Operation::EventsGet, "/groups/g/events/e"), None);
        let om = Flavour::OpsManager;
        let cm = Flavour::CloudManager;
        assert_eq!(
            path_for(om, cm, Operation::HostsList, "/groups/g/hosts"),
            None
        );
        assert_eq!(
            path_for(
                Flavour::Atlas,
                om,
                Operation::HostsGet,
                "/groups/g/processes/h"
            )
            .as_deref(),
            Some("/groups/g/hosts/h")
        );
        // A path that is not the operation's is left alone.
        assert_eq!(p(Operation::HostsGet, "/groups/g/events/h"), None);
    }

    #[test]
    fn a_builder_given_the_wrong_number_of_ids_is_an_internal_error() {
        let e = Operation::HostsGet.request(&["g"]).unwrap_err();
        assert!(matches!(e, Error::Internal(_)), "{e}");
        assert!(Operation::HostsGet.request(&["g", "h", "x"]).is_err());
    }
}
