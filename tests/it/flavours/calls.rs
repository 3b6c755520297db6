//! The table of calls (`tests/fixtures/calls.json`, which the Python tests read too) and the
//! Rust call of each operation: each operation's arguments, and the exact request each flavour
//! sends for it, written out (not derived from the row: a test of the row that read its paths
//! from the row could not fail).

use opsapi::api::performance_advisor::AdvisorQuery;
use opsapi::{AckUntil, Acknowledgement, Client, Flavour, MeasurementsQuery, Operation};

use super::Ids;

/// The table of calls (`tests/fixtures/calls.json`, which the Python tests read too): each
/// operation's arguments and the exact request each flavour sends for it, written out.
pub(super) const CALLS: &str = include_str!("../../fixtures/calls.json");

/// One operation's entry of the table of calls, its identifiers filled with a world's.
pub(super) struct Call {
    /// The call's arguments (`{group}`: the world's identifier).
    args: Vec<String>,
    /// Its keyword arguments, as Python passes them.
    kwargs: serde_json::Map<String, serde_json::Value>,
    /// The request of each flavour that has the operation: method, path (and query), Accept,
    /// status.
    pub(super) sent: Vec<(Flavour, [String; 4])>,
}

impl Call {
    /// The entry of `op` in the table of calls, with `ids`' identifiers.
    pub(super) fn of(op: Operation, ids: &Ids) -> Call {
        let calls: serde_json::Value = serde_json::from_str(CALLS).unwrap();
        let entry = calls["calls"]
            .get(op.name())
            .unwrap_or_else(|| panic!("{op:?} has no call in tests/fixtures/calls.json"));
        let values = ids.by_name();
        let fill = |s: &str, encode: bool| {
            values.iter().fold(s.to_string(), |s, (name, value)| {
                let value = if encode {
                    value.replace(':', "%3A")
                } else {
                    value.clone()
                };
                s.replace(&format!("{{{name}}}"), &value)
            })
        };
        let sent = Flavour::ALL
            .into_iter()
            .filter_map(|f| {
                let line = fill(entry.get(f.as_str())?.as_str().unwrap(), true);
                let parts: Vec<String> = line.split(' ').map(String::from).collect();
                Some((
                    f,
                    parts.try_into().unwrap_or_else(|p| panic!("{op:?}: {p:?}")),
                ))
            })
            .collect();
        Call {
            args: entry["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| fill(a.as_str().unwrap(), false))
                .collect(),
            kwargs: entry
                .get("kwargs")
                .and_then(|k| k.as_object().cloned())
                .unwrap_or_default(),
            sent,
        }
    }

    fn arg(&self, i: usize) -> &str {
        &self.args[i]
    }

    fn text(&self, name: &str) -> &str {
        self.kwargs[name].as_str().unwrap()
    }

    /// The measurements' window of `granularity`, `period` and `metrics` (if given).
    fn window(&self) -> MeasurementsQuery {
        let q = MeasurementsQuery::period(
            self.text("granularity").parse().unwrap(),
            self.text("period").parse().unwrap(),
        );
        match self.kwargs.get("metrics") {
            Some(m) => q.metrics(m.as_array().unwrap().iter().map(|m| m.as_str().unwrap())),
            None => q,
        }
    }

    /// An acknowledgement for the call's `duration`.
    fn acknowledgement(&self) -> Acknowledgement {
        Acknowledgement::new(AckUntil::For(self.text("duration").parse().unwrap()))
    }
}

/// Runs `op` with its call of the table of calls and says what came back, checked against
/// the world where it is a list. Every operation of the table has its arm here: a new one
/// fails `every_operation_of_each_flavour_sends_its_request_and_gets_the_same_world` by name
/// until it has one (and its entry in tests/fixtures/calls.json).
pub(super) async fn call(c: &Client, op: Operation, a: &Call, ids: &Ids) -> opsapi::Result<String> {
    let h = ids.host.as_str();
    Ok(match op {
        Operation::GroupsList => format!("{} groups", c.groups().list().await?.len()),
        Operation::GroupsGet => format!("group {:?}", c.groups().get(a.arg(0)).await?.id),
        Operation::HostsList => {
            let hosts = c.hosts().list(a.arg(0)).await?;
            assert!(hosts.iter().any(|x| x.id.as_deref() == Some(h)), "{h}");
            format!("{} hosts", hosts.len())
        }
        Operation::HostsGet => {
            let host = c.hosts().get(a.arg(0), a.arg(1)).await?;
            assert_eq!(
                format!("{}:{}", host.hostname.unwrap(), host.port.unwrap()),
                ids.process
            );
            format!("host {:?}", host.id)
        }
        Operation::HostsPartitions => {
            format!("{:?}", c.hosts().partitions(a.arg(0), a.arg(1)).await?)
        }
        Operation::HostsDatabases => {
            format!("{:?}", c.hosts().databases(a.arg(0), a.arg(1)).await?)
        }
        Operation::MeasurementsHost => {
            let m = c
                .measurements()
                .host(a.arg(0), a.arg(1), &a.window())
                .await?;
            assert_eq!(m.process_id.as_deref(), Some(ids.process.as_str()));
            format!("host {:?}: {} points", m.host_id, m.data_point_count())
        }
        Operation::MeasurementsDisk => {
            let m = c
                .measurements()
                .disk(a.arg(0), a.arg(1), a.arg(2), &a.window())
                .await?;
            format!(
                "disk {:?}: {} points",
                m.partition_name,
                m.data_point_count()
            )
        }
        Operation::MeasurementsDatabase => {
            let m = c
                .measurements()
                .database(a.arg(0), a.arg(1), a.arg(2), &a.window())
                .await?;
            // Atlas lacks two of Ops Manager's database measurements: the points of one both
            // have.
            let size = m.series.iter().find(|s| s.name == "DATABASE_DATA_SIZE");
            format!(
                "database {:?}: {} points of its data size",
                m.database_name,
                size.unwrap().len()
            )
        }
        Operation::EventsList => {
            let events = c.events().list(a.arg(0)).await?;
            let shared = events
                .iter()
                .filter(|e| ids.shared_events.contains(e.id.as_ref().unwrap()))
                .count();
            assert_eq!(
                events.len(),
                ids.served_events,
                "the events the flavour serves"
            );
            format!("{shared} events every flavour has")
        }
        Operation::EventsGet => {
            let e = c.events().get(a.arg(0), a.arg(1), false).await?;
            format!("event {:?}", e.id)
        }
        Operation::AlertConfigsList => {
            format!("{} configs", c.alert_configs().list(a.arg(0)).await?.len())
        }
        Operation::AlertConfigsGet => {
            let config = c.alert_configs().get(a.arg(0), a.arg(1)).await?;
            assert_eq!(config.id.as_deref(), Some(ids.config.as_str()));
            format!("config {:?} of {:?}", config.id, config.event_type_name)
        }
        Operation::AlertsList => {
            let q = opsapi::AlertsQuery::new();
            let alerts = c.alerts().list(a.arg(0), &q).await?;
            assert_eq!(alerts.len(), ids.alerts);
            format!("{} project alerts", alerts.len())
        }
        Operation::AlertsGet => {
            format!("alert {:?}", c.alerts().get(a.arg(0), a.arg(1)).await?.id)
        }
        Operation::AlertConfigsOpenAlerts => {
            let open = c.alert_configs().open_alerts(a.arg(0), a.arg(1)).await?;
            assert_eq!(open.len(), ids.open_alerts);
            format!("{} open alerts", open.len())
        }
        Operation::AlertsAcknowledge => {
            let ack = a.acknowledgement();
            let x = c.alerts().acknowledge(a.arg(0), a.arg(1), &ack).await?;
            format!(
                "alert {:?} acknowledged: {}",
                x.id,
                x.acknowledged_until.is_some()
            )
        }
        Operation::GlobalAlertsList => {
            let q = opsapi::GlobalAlertsQuery::new();
            format!("{} global alerts", c.global_alerts().list(&q).await?.len())
        }
        Operation::GlobalAlertsGet => {
            let x = c.global_alerts().get(a.arg(0)).await?;
            format!("global alert {:?}", x.id)
        }
        Operation::GlobalAlertsAcknowledge => {
            let ack = a.acknowledgement();
            let x = c.global_alerts().acknowledge(a.arg(0), &ack).await?;
            format!(
                "global alert {:?} acknowledged: {}",
                x.id,
                x.acknowledged_until.is_some()
            )
        }
        Operation::AccessListList => format!("{} entries", c.access_list().list().await?.len()),
        Operation::AccessListDelete => {
            c.access_list().delete(a.arg(0)).await?;
            format!("entry {} deleted", ids.entry)
        }
        Operation::ClustersList => {
            let clusters = c.clusters().list(a.arg(0)).await?;
            let names: Vec<_> = clusters.iter().filter_map(|x| x.name.as_deref()).collect();
            assert!(names.contains(&ids.cluster_name.as_str()), "{names:?}");
            format!("{} clusters", clusters.len())
        }
        Operation::ClustersGet => {
            let x = c.clusters().get(a.arg(0), a.arg(1)).await?;
            format!("cluster {:?}", x.name)
        }
        Operation::PerformanceAdvisorNamespaces => {
            let q = AdvisorQuery::new();
            let names = c
                .performance_advisor()
                .namespaces(a.arg(0), a.arg(1), &q)
                .await?;
            assert!(!names.is_empty(), "a primary with a workload");
            format!(
                "namespaces {:?}",
                names.iter().map(|n| &n.namespace).collect::<Vec<_>>()
            )
        }
        Operation::PerformanceAdvisorSlowQueryLogs => {
            let q = AdvisorQuery::new().n_logs(a.kwargs["n_logs"].as_u64().unwrap());
            let logs = c
                .performance_advisor()
                .slow_query_logs(a.arg(0), a.arg(1), &q)
                .await?;
            let rows = logs.rows();
            assert!(rows
                .iter()
                .all(|r| r.duration_ms.is_some() && r.shape.is_some()));
            format!(
                "{} slow queries, first {:?}",
                rows.len(),
                rows.first().map(|r| &r.line)
            )
        }
        Operation::PerformanceAdvisorSuggestedIndexes => {
            let q = AdvisorQuery::new();
            let s = c
                .performance_advisor()
                .suggested_indexes(a.arg(0), a.arg(1), &q)
                .await?;
            let keys: Vec<_> = s.indexes.iter().flatten().map(|i| &i.index).collect();
            format!(
                "{} shapes, indexes {keys:?}",
                s.shapes.map_or(0, |v| v.len())
            )
        }
        other => panic!("{other:?} has no call in tests/it/flavours/calls.rs: add one"),
    })
}
