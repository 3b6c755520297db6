//! What an alert's metric is measured as: where (a host, a disk partition, a database), by
//! which measurement name, and in which units against its threshold. Pure rules, which the
//! alert context uses and re-exports (`opsapi::api::alerts::context::measurement_of`).

/// Where an alert's measurement is read: a host, a disk partition or a database.
///
/// ```
/// assert_eq!(opsapi::MetricKind::Disk.as_str(), "disk");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MetricKind {
    /// `/groups/{g}/hosts/{h}/measurements`
    Host,
    /// `/groups/{g}/hosts/{h}/disks/{partition}/measurements`
    Disk,
    /// `/groups/{g}/hosts/{h}/databases/{database}/measurements`
    Database,
}

impl MetricKind {
    /// `"host"`, `"disk"` or `"database"`, as fleet pulls name them.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Host => "host",
            Self::Disk => "disk",
            Self::Database => "database",
        }
    }
}

/// The measurement an alert's `metricName` is read from: its kind, the measurement's name, and
/// for a disk alert the role of the partition (`DATA`, `INDEX`, `JOURNAL`) when the name says.
///
/// Alert configurations name disk metrics by partition role (`DISK_PARTITION_SPACE_USED_DATA`
/// is the space used of the data partition, in percent); database metrics and host metrics
/// carry the measurement's own name. A name this table does not map is asked as a host
/// measurement of that name.
///
/// ```
/// use opsapi::api::alerts::context::measurement_of;
/// use opsapi::MetricKind;
/// assert_eq!(
///     measurement_of("DISK_PARTITION_SPACE_USED_DATA"),
///     (MetricKind::Disk, "DISK_PARTITION_SPACE_PERCENT_USED".to_string(), Some("DATA"))
/// );
/// assert_eq!(measurement_of("CONNECTIONS"), (MetricKind::Host, "CONNECTIONS".to_string(), None));
/// assert_eq!(measurement_of("CACHE_USAGE_USED").1, "CACHE_USED_BYTES"); // Atlas's alert name
/// assert_eq!(measurement_of("DATABASE_DATA_SIZE").0, MetricKind::Database);
/// ```
pub fn measurement_of(metric_name: &str) -> (MetricKind, String, Option<&'static str>) {
    if let Some((_, m)) = ALERT_MEASUREMENTS.iter().find(|(a, _)| *a == metric_name) {
        return (MetricKind::Host, m.to_string(), None);
    }
    if metric_name.starts_with("DATABASE_") {
        return (MetricKind::Database, metric_name.to_string(), None);
    }
    if let Some(rest) = metric_name.strip_prefix("DISK_PARTITION_") {
        let role = ["DATA", "INDEX", "JOURNAL"]
            .into_iter()
            .find(|r| rest.ends_with(&format!("_{r}")));
        let base = match role {
            Some(r) => &rest[..rest.len() - r.len() - 1],
            None => rest,
        };
        // The alert names of the space and I/O of a partition, and their measurements.
        let measurement = match (base, role) {
            ("SPACE_USED", Some(_)) => "SPACE_PERCENT_USED",
            ("READ_IOPS", _) => "IOPS_READ",
            ("WRITE_IOPS", _) => "IOPS_WRITE",
            ("READ_LATENCY", _) => "LATENCY_READ",
            ("WRITE_LATENCY", _) => "LATENCY_WRITE",
            (other, _) => other,
        };
        return (
            MetricKind::Disk,
            format!("DISK_PARTITION_{measurement}"),
            role,
        );
    }
    (MetricKind::Host, metric_name.to_string(), None)
}

/// Atlas's alert metric names (its specification's `HostMetricAlert`) of host measurements it
/// names otherwise in `m` (the measurements' own names, which frames carry).
const ALERT_MEASUREMENTS: [(&str, &str); 10] = [
    ("OPLOG_SLAVE_LAG_MASTER_TIME", "OPLOG_REPLICATION_LAG_TIME"),
    ("CACHE_USAGE_DIRTY", "CACHE_DIRTY_BYTES"),
    ("CACHE_USAGE_USED", "CACHE_USED_BYTES"),
    ("TICKETS_AVAILABLE_WRITES", "TICKETS_AVAILABLE_WRITE"),
    ("NORMALIZED_SYSTEM_CPU_USER", "SYSTEM_NORMALIZED_CPU_USER"),
    ("NORMALIZED_SYSTEM_CPU_STEAL", "SYSTEM_NORMALIZED_CPU_STEAL"),
    ("DOCUMENT_RETURNED", "DOCUMENT_METRICS_RETURNED"),
    ("DOCUMENT_INSERTED", "DOCUMENT_METRICS_INSERTED"),
    ("DOCUMENT_UPDATED", "DOCUMENT_METRICS_UPDATED"),
    ("DOCUMENT_DELETED", "DOCUMENT_METRICS_DELETED"),
];

/// How many of `to` one `from` is, for units of time or of data size; `None` for units of
/// different kinds or unknown ones (`RAW` and `SCALAR` are numbers alike: no factor).
///
/// ```
/// use opsapi::api::alerts::context::unit_factor;
/// assert_eq!(unit_factor("SECONDS", "MILLISECONDS"), Some(1000.0));
/// assert_eq!(unit_factor("MEGABYTES", "BYTES"), Some(1048576.0));
/// assert_eq!(unit_factor("SECONDS", "BYTES"), None);
/// ```
pub fn unit_factor(from: &str, to: &str) -> Option<f64> {
    const TIME: [(&str, f64); 5] = [
        ("MICROSECONDS", 1e-6),
        ("MILLISECONDS", 1e-3),
        ("SECONDS", 1.0),
        ("MINUTES", 60.0),
        ("HOURS", 3600.0),
    ];
    const SIZE: [(&str, f64); 5] = [
        ("BYTES", 1.0),
        ("KILOBYTES", 1024.0),
        ("MEGABYTES", 1_048_576.0),
        ("GIGABYTES", 1_073_741_824.0),
        ("TERABYTES", 1_099_511_627_776.0),
    ];
    [&TIME, &SIZE].into_iter().find_map(|units| {
        let of = |u: &str| units.iter().find(|(n, _)| *n == u).map(|(_, f)| *f);
        Some(of(from)? / of(to)?)
    })
}
