//! Measurement names, per flavour: the names each server takes in `m` (Ops Manager's and Cloud
//! Manager's from Ops Manager's documented catalog of measurement types, Atlas's from the `m`
//! enums of its OpenAPI specification), the one set of names frames carry whatever the flavour
//! (Ops Manager's, and Atlas's own for the series only Atlas has), and how many names one
//! request may carry (Atlas: 10, the spec's `maxItems`; Ops Manager and Cloud Manager state no
//! limit).
//!
//! A name in no catalog is sent as it is: servers add measurements, and the server judges
//! it (Ops Manager and Cloud Manager answer 404 `INVALID_METRIC_NAME`, with the name in the
//! detail). A name the catalogs know the flavour not to have (another flavour's only, or a
//! measurement of another kind) is refused before any request.
//!
//! Both catalogs are vendored with their provenance in `tests/fixtures/`
//! (`ops-manager-measurements/`, `atlas-openapi/`), and `tests/it/metric_names.rs` checks these
//! tables against them.
//!
//! ```
//! use opsapi::{Flavour, Operation};
//! let host = Operation::MeasurementsHost;
//! assert_eq!(Flavour::Atlas.measurement_name(host, "OPLOG_REPLICATION_LAG_TIME").unwrap(), "OPLOG_REPLICATION_LAG");
//! assert_eq!(Flavour::OpsManager.measurement_name(host, "SYSTEM_NETWORK_IN").unwrap(), "SYSTEM_NETWORK_BYTES_IN");
//! assert!(Flavour::Atlas.measurement_name(host, "DB_INDEX_SIZE_TOTAL").is_err());
//! assert_eq!(opsapi::flavour::frame_measurement_name("SYSTEM_NETWORK_IN"), "SYSTEM_NETWORK_BYTES_IN");
//! assert_eq!((Flavour::Atlas.max_measurements(), Flavour::OpsManager.max_measurements()), (Some(10), None));
//! ```

use super::{Flavour, Operation};
use crate::error::{Error, Result};

/// The series Atlas names differently from Ops Manager and Cloud Manager (the same series):
/// (Ops Manager's name, which frames carry; Atlas's).
pub const ATLAS_MEASUREMENT_NAMES: [(&str, &str); 3] = [
    ("OPLOG_REPLICATION_LAG_TIME", "OPLOG_REPLICATION_LAG"),
    ("SYSTEM_NETWORK_BYTES_IN", "SYSTEM_NETWORK_IN"),
    ("SYSTEM_NETWORK_BYTES_OUT", "SYSTEM_NETWORK_OUT"),
];

/// How many measurement names one Atlas request may carry (`m`'s `maxItems`).
pub const ATLAS_MAX_MEASUREMENTS: usize = 10;

/// Ops Manager's (and Cloud Manager's) host measurements: the host, process and system
/// sections of the documented catalog, in its order.
#[rustfmt::skip]
pub const OPS_MANAGER_HOST: &[&str] = &[
    "ASSERT_REGULAR", "ASSERT_WARNING", "ASSERT_MSG", "ASSERT_USER", "BACKGROUND_FLUSH_AVG",
    "CACHE_BYTES_READ_INTO", "CACHE_BYTES_WRITTEN_FROM", "CACHE_DIRTY_BYTES", "CACHE_USED_BYTES",
    "TICKETS_AVAILABLE_READS", "TICKETS_AVAILABLE_WRITE", "CACHE_FILL_RATIO", "DIRTY_FILL_RATIO",
    "CONNECTIONS", "CURSORS_TOTAL_OPEN", "CURSORS_TOTAL_TIMED_OUT", "EXTRA_INFO_PAGE_FAULTS",
    "GLOBAL_ACCESSES_NOT_IN_MEMORY", "GLOBAL_PAGE_FAULT_EXCEPTIONS_THROWN",
    "GLOBAL_LOCK_CURRENT_QUEUE_TOTAL", "GLOBAL_LOCK_CURRENT_QUEUE_READERS",
    "GLOBAL_LOCK_CURRENT_QUEUE_WRITERS", "INDEX_COUNTERS_BTREE_ACCESSES",
    "INDEX_COUNTERS_BTREE_HITS", "INDEX_COUNTERS_BTREE_MISSES", "INDEX_COUNTERS_BTREE_MISS_RATIO",
    "JOURNALING_COMMITS_IN_WRITE_LOCK", "JOURNALING_MB", "JOURNALING_WRITE_DATA_FILES_MB",
    "MEMORY_RESIDENT", "MEMORY_VIRTUAL", "MEMORY_MAPPED", "COMPUTED_MEMORY", "NETWORK_BYTES_IN",
    "NETWORK_BYTES_OUT", "NETWORK_NUM_REQUESTS", "OPLOG_REPLICATION_LAG_TIME",
    "OPLOG_RATE_GB_PER_HOUR", "OPLOG_MASTER_TIME", "OPLOG_MASTER_LAG_TIME_DIFF",
    "DB_STORAGE_TOTAL", "DB_INDEX_SIZE_TOTAL", "DB_DATA_SIZE_TOTAL",
    "DB_DATA_SIZE_TOTAL_WO_SYSTEM", "OPCOUNTER_CMD", "OPCOUNTER_QUERY", "OPCOUNTER_UPDATE",
    "OPCOUNTER_DELETE", "OPCOUNTER_GETMORE", "OPCOUNTER_INSERT", "OPCOUNTER_REPL_CMD",
    "OPCOUNTER_REPL_UPDATE", "OPCOUNTER_REPL_DELETE", "OPCOUNTER_REPL_INSERT",
    "DOCUMENT_METRICS_RETURNED", "DOCUMENT_METRICS_INSERTED", "DOCUMENT_METRICS_UPDATED",
    "DOCUMENT_METRICS_DELETED", "OPERATIONS_SCAN_AND_ORDER", "OP_EXECUTION_TIME_READS",
    "OP_EXECUTION_TIME_WRITES", "OP_EXECUTION_TIME_COMMANDS", "RESTARTS_IN_LAST_HOUR",
    "SYSTEM_MEMORY_USED", "SYSTEM_MEMORY_FREE", "SYSTEM_MEMORY_AVAILABLE",
    "SYSTEM_NETWORK_BYTES_IN", "SYSTEM_NETWORK_BYTES_OUT", "SWAP_USAGE_USED", "SWAP_USAGE_FREE",
    "QUERY_EXECUTOR_SCANNED", "QUERY_EXECUTOR_SCANNED_OBJECTS",
    "QUERY_TARGETING_SCANNED_PER_RETURNED", "QUERY_TARGETING_SCANNED_OBJECTS_PER_RETURNED",
    "PROCESS_CPU_USER", "MAX_PROCESS_CPU_USER", "PROCESS_CPU_KERNEL", "MAX_PROCESS_CPU_KERNEL",
    "PROCESS_CPU_CHILDREN_USER", "MAX_PROCESS_CPU_CHILDREN_USER", "PROCESS_CPU_CHILDREN_KERNEL",
    "MAX_PROCESS_CPU_CHILDREN_KERNEL", "PROCESS_NORMALIZED_CPU_USER",
    "MAX_PROCESS_NORMALIZED_CPU_USER", "PROCESS_NORMALIZED_CPU_KERNEL",
    "MAX_PROCESS_NORMALIZED_CPU_KERNEL", "PROCESS_NORMALIZED_CPU_CHILDREN_USER",
    "MAX_PROCESS_NORMALIZED_CPU_CHILDREN_USER", "PROCESS_NORMALIZED_CPU_CHILDREN_KERNEL",
    "MAX_PROCESS_NORMALIZED_CPU_CHILDREN_KERNEL", "SYSTEM_CPU_USER", "MAX_SYSTEM_CPU_USER",
    "SYSTEM_CPU_KERNEL", "MAX_SYSTEM_CPU_KERNEL", "SYSTEM_CPU_NICE", "MAX_SYSTEM_CPU_NICE",
    "SYSTEM_CPU_IOWAIT", "MAX_SYSTEM_CPU_IOWAIT", "SYSTEM_CPU_IRQ", "MAX_SYSTEM_CPU_IRQ",
    "SYSTEM_CPU_SOFTIRQ", "MAX_SYSTEM_CPU_SOFTIRQ", "SYSTEM_CPU_GUEST", "MAX_SYSTEM_CPU_GUEST",
    "SYSTEM_CPU_STEAL", "MAX_SYSTEM_CPU_STEAL", "SYSTEM_NORMALIZED_CPU_USER",
    "MAX_SYSTEM_NORMALIZED_CPU_USER", "SYSTEM_NORMALIZED_CPU_KERNEL",
    "MAX_SYSTEM_NORMALIZED_CPU_KERNEL", "SYSTEM_NORMALIZED_CPU_NICE",
    "MAX_SYSTEM_NORMALIZED_CPU_NICE", "SYSTEM_NORMALIZED_CPU_IOWAIT",
    "MAX_SYSTEM_NORMALIZED_CPU_IOWAIT", "SYSTEM_NORMALIZED_CPU_IRQ",
    "MAX_SYSTEM_NORMALIZED_CPU_IRQ", "SYSTEM_NORMALIZED_CPU_SOFTIRQ",
    "MAX_SYSTEM_NORMALIZED_CPU_SOFTIRQ", "SYSTEM_NORMALIZED_CPU_GUEST",
    "MAX_SYSTEM_NORMALIZED_CPU_GUEST", "SYSTEM_NORMALIZED_CPU_STEAL",
    "MAX_SYSTEM_NORMALIZED_CPU_STEAL", "MAX_SYSTEM_MEMORY_USED", "MAX_SYSTEM_MEMORY_FREE",
    "MAX_SYSTEM_MEMORY_AVAILABLE", "MAX_SYSTEM_NETWORK_IN", "MAX_SYSTEM_NETWORK_OUT",
    "MAX_SWAP_USAGE_USED", "MAX_SWAP_USAGE_FREE",
];

/// Ops Manager's disk-partition measurements.
#[rustfmt::skip]
pub const OPS_MANAGER_DISK: &[&str] = &[
    "DISK_PARTITION_IOPS_READ", "MAX_DISK_PARTITION_IOPS_READ", "DISK_PARTITION_IOPS_WRITE",
    "MAX_DISK_PARTITION_IOPS_WRITE", "DISK_PARTITION_IOPS_TOTAL", "MAX_DISK_PARTITION_IOPS_TOTAL",
    "DISK_PARTITION_LATENCY_READ", "MAX_DISK_PARTITION_LATENCY_READ",
    "DISK_PARTITION_LATENCY_WRITE", "MAX_DISK_PARTITION_LATENCY_WRITE",
    "DISK_PARTITION_SPACE_FREE", "MAX_DISK_PARTITION_SPACE_FREE", "DISK_PARTITION_SPACE_USED",
    "MAX_DISK_PARTITION_SPACE_USED", "DISK_PARTITION_SPACE_PERCENT_FREE",
    "MAX_DISK_PARTITION_SPACE_PERCENT_FREE", "DISK_PARTITION_SPACE_PERCENT_USED",
    "MAX_DISK_PARTITION_SPACE_PERCENT_USED",
];

/// Ops Manager's database measurements.
#[rustfmt::skip]
pub const OPS_MANAGER_DATABASE: &[&str] = &[
    "DATABASE_WRITE_LOCK_PERCENTAGE", "DATABASE_AVERAGE_OBJECT_SIZE", "DATABASE_COLLECTION_COUNT",
    "DATABASE_DATA_SIZE", "DATABASE_FILE_SIZE", "DATABASE_STORAGE_SIZE", "DATABASE_INDEX_SIZE",
    "DATABASE_INDEX_COUNT", "DATABASE_EXTENT_COUNT", "DATABASE_OBJECT_COUNT",
];

/// Atlas's process measurements: the `m` enum of `getGroupProcessMeasurements`, in its order.
// (Its `MAX_` names and the others line up alike: `duplicates` pairs them. Data, as the
// specification lists it, not logic written twice.)
#[rustfmt::skip]
pub const ATLAS_HOST: &[&str] = &[
    "ASSERT_MSG", "ASSERT_REGULAR", "ASSERT_USER", "ASSERT_WARNING", "BACKGROUND_FLUSH_AVG",
    "CACHE_BYTES_READ_INTO", "CACHE_BYTES_WRITTEN_FROM", "CACHE_DIRTY_BYTES", "CACHE_USED_BYTES",
    "CACHE_FILL_RATIO", "DIRTY_FILL_RATIO", "COMPUTED_MEMORY", "CONNECTIONS", "CURSORS_TOTAL_OPEN",
    "CURSORS_TOTAL_TIMED_OUT", "DB_DATA_SIZE_TOTAL", "DB_STORAGE_TOTAL",
    "DOCUMENT_METRICS_DELETED", "DOCUMENT_METRICS_INSERTED", "DOCUMENT_METRICS_RETURNED",
    "DOCUMENT_METRICS_UPDATED", "EXTRA_INFO_PAGE_FAULTS", "FTS_DISK_UTILIZATION",
    "FTS_MEMORY_MAPPED", "FTS_MEMORY_RESIDENT", "FTS_MEMORY_VIRTUAL", "FTS_PROCESS_CPU_KERNEL",
    "FTS_PROCESS_CPU_USER", "FTS_PROCESS_NORMALIZED_CPU_KERNEL", "FTS_PROCESS_NORMALIZED_CPU_USER",
    "GLOBAL_ACCESSES_NOT_IN_MEMORY", "GLOBAL_LOCK_CURRENT_QUEUE_READERS",
    "GLOBAL_LOCK_CURRENT_QUEUE_TOTAL", "GLOBAL_LOCK_CURRENT_QUEUE_WRITERS",
    "GLOBAL_PAGE_FAULT_EXCEPTIONS_THROWN", "INDEX_COUNTERS_BTREE_ACCESSES",
    "INDEX_COUNTERS_BTREE_HITS", "INDEX_COUNTERS_BTREE_MISS_RATIO", "INDEX_COUNTERS_BTREE_MISSES",
    "JOURNALING_COMMITS_IN_WRITE_LOCK", "JOURNALING_MB", "JOURNALING_WRITE_DATA_FILES_MB",
    "MAX_PROCESS_CPU_CHILDREN_KERNEL", "MAX_PROCESS_CPU_CHILDREN_USER", "MAX_PROCESS_CPU_KERNEL",
    "MAX_PROCESS_CPU_USER", "MAX_PROCESS_NORMALIZED_CPU_CHILDREN_KERNEL",
    "MAX_PROCESS_NORMALIZED_CPU_CHILDREN_USER", "MAX_PROCESS_NORMALIZED_CPU_KERNEL",
    "MAX_PROCESS_NORMALIZED_CPU_USER", "MAX_SWAP_USAGE_FREE", "MAX_SWAP_USAGE_USED",
    "MAX_SYSTEM_CPU_GUEST", "MAX_SYSTEM_CPU_IOWAIT", "MAX_SYSTEM_CPU_IRQ", "MAX_SYSTEM_CPU_KERNEL",
    "MAX_SYSTEM_CPU_SOFTIRQ", "MAX_SYSTEM_CPU_STEAL", "MAX_SYSTEM_CPU_USER",
    "MAX_SYSTEM_MEMORY_AVAILABLE", "MAX_SYSTEM_MEMORY_FREE", "MAX_SYSTEM_MEMORY_USED",
    "MAX_SYSTEM_NETWORK_IN", "MAX_SYSTEM_NETWORK_OUT", "MAX_SYSTEM_NORMALIZED_CPU_GUEST",
    "MAX_SYSTEM_NORMALIZED_CPU_IOWAIT", "MAX_SYSTEM_NORMALIZED_CPU_IRQ",
    "MAX_SYSTEM_NORMALIZED_CPU_KERNEL", "MAX_SYSTEM_NORMALIZED_CPU_NICE",
    "MAX_SYSTEM_NORMALIZED_CPU_SOFTIRQ", "MAX_SYSTEM_NORMALIZED_CPU_STEAL",
    "MAX_SYSTEM_NORMALIZED_CPU_USER", "MEMORY_MAPPED", "MEMORY_RESIDENT", "MEMORY_VIRTUAL",
    "NETWORK_BYTES_IN", "NETWORK_BYTES_OUT", "NETWORK_NUM_REQUESTS", "OP_EXECUTION_TIME_COMMANDS",
    "OP_EXECUTION_TIME_READS", "OP_EXECUTION_TIME_WRITES", "OPCOUNTER_CMD", "OPCOUNTER_DELETE",
    "OPCOUNTER_TTL_DELETED", "OPCOUNTER_GETMORE", "OPCOUNTER_INSERT", "OPCOUNTER_QUERY",
    "OPCOUNTER_REPL_CMD", "OPCOUNTER_REPL_DELETE", "OPCOUNTER_REPL_INSERT",
    "OPCOUNTER_REPL_UPDATE", "OPCOUNTER_UPDATE", "OPERATIONS_SCAN_AND_ORDER",
    "OPERATIONS_QUERIES_KILLED", "OPLOG_MASTER_LAG_TIME_DIFF", "OPLOG_MASTER_TIME",
    "OPLOG_RATE_GB_PER_HOUR", "OPLOG_SLAVE_LAG_MASTER_TIME", "OPLOG_REPLICATION_LAG",
    "PROCESS_CPU_CHILDREN_KERNEL", "PROCESS_CPU_CHILDREN_USER", "PROCESS_CPU_KERNEL",
    "PROCESS_CPU_USER", "PROCESS_NORMALIZED_CPU_CHILDREN_KERNEL",
    "PROCESS_NORMALIZED_CPU_CHILDREN_USER", "PROCESS_NORMALIZED_CPU_KERNEL",
    "PROCESS_NORMALIZED_CPU_USER", "QUERY_EXECUTOR_SCANNED", "QUERY_EXECUTOR_SCANNED_OBJECTS",
    "QUERY_TARGETING_SCANNED_OBJECTS_PER_RETURNED", "QUERY_TARGETING_SCANNED_PER_RETURNED",
    "RESTARTS_IN_LAST_HOUR", "SWAP_USAGE_FREE", "SWAP_USAGE_USED", "SYSTEM_CPU_GUEST",
    "SYSTEM_CPU_IOWAIT", "SYSTEM_CPU_IRQ", "SYSTEM_CPU_KERNEL", "SYSTEM_CPU_NICE",
    "SYSTEM_CPU_SOFTIRQ", "SYSTEM_CPU_STEAL", "SYSTEM_CPU_USER", "SYSTEM_MEMORY_AVAILABLE",
    "SYSTEM_MEMORY_FREE", "SYSTEM_MEMORY_USED", "SYSTEM_NETWORK_IN", "SYSTEM_NETWORK_OUT",
    "SYSTEM_NORMALIZED_CPU_GUEST", "SYSTEM_NORMALIZED_CPU_IOWAIT", "SYSTEM_NORMALIZED_CPU_IRQ",
    "SYSTEM_NORMALIZED_CPU_KERNEL", "SYSTEM_NORMALIZED_CPU_NICE", "SYSTEM_NORMALIZED_CPU_SOFTIRQ",
    "SYSTEM_NORMALIZED_CPU_STEAL", "SYSTEM_NORMALIZED_CPU_USER", "TICKETS_AVAILABLE_READS",
    "TICKETS_AVAILABLE_WRITE", "OPERATION_THROTTLING_REJECTED_OPERATIONS",
    "QUERY_SPILL_TO_DISK_DURING_SORT",
];

/// Atlas's disk measurements: the `m` enum of `getGroupProcessDiskMeasurements`.
#[rustfmt::skip]
pub const ATLAS_DISK: &[&str] = &[
    "DISK_PARTITION_IOPS_READ", "MAX_DISK_PARTITION_IOPS_READ", "DISK_PARTITION_IOPS_WRITE",
    "MAX_DISK_PARTITION_IOPS_WRITE", "DISK_PARTITION_IOPS_TOTAL", "MAX_DISK_PARTITION_IOPS_TOTAL",
    "DISK_PARTITION_LATENCY_READ", "MAX_DISK_PARTITION_LATENCY_READ",
    "DISK_PARTITION_LATENCY_WRITE", "MAX_DISK_PARTITION_LATENCY_WRITE",
    "DISK_PARTITION_SPACE_FREE", "MAX_DISK_PARTITION_SPACE_FREE", "DISK_PARTITION_SPACE_USED",
    "MAX_DISK_PARTITION_SPACE_USED", "DISK_PARTITION_SPACE_PERCENT_FREE",
    "MAX_DISK_PARTITION_SPACE_PERCENT_FREE", "DISK_PARTITION_SPACE_PERCENT_USED",
    "MAX_DISK_PARTITION_SPACE_PERCENT_USED", "DISK_PARTITION_THROUGHPUT_READ",
    "DISK_PARTITION_THROUGHPUT_WRITE", "DISK_QUEUE_DEPTH",
];

/// Atlas's database measurements: the `m` enum of `getGroupProcessDatabaseMeasurements`.
#[rustfmt::skip]
pub const ATLAS_DATABASE: &[&str] = &[
    "DATABASE_AVERAGE_OBJECT_SIZE", "DATABASE_COLLECTION_COUNT", "DATABASE_DATA_SIZE",
    "DATABASE_STORAGE_SIZE", "DATABASE_INDEX_SIZE", "DATABASE_INDEX_COUNT",
    "DATABASE_EXTENT_COUNT", "DATABASE_OBJECT_COUNT", "DATABASE_VIEW_COUNT",
];

/// The name frames carry for the series a server calls `name`: Ops Manager's where Atlas
/// names it differently ([`ATLAS_MEASUREMENT_NAMES`]), else `name` itself.
pub fn frame_measurement_name(name: &str) -> &str {
    ATLAS_MEASUREMENT_NAMES
        .iter()
        .find(|(_, atlas)| *atlas == name)
        .map_or(name, |(om, _)| om)
}

/// How a flavour asks for a measurement name ([`Flavour::ask_measurement`]).
///
/// ```
/// use opsapi::flavour::MeasurementName;
/// assert_eq!(MeasurementName::Unknown("NEW_METRIC").as_str(), "NEW_METRIC");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MeasurementName<'a> {
    /// In the flavour's catalog: the flavour's own name of the series.
    Known(&'static str),
    /// In no catalog of opsapi's: sent as it is, for the server to judge.
    Unknown(&'a str),
}

impl MeasurementName<'_> {
    /// The name as it is sent.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Known(n) => n,
            Self::Unknown(n) => n,
        }
    }
}

/// What a measurements operation is of, as errors say it.
fn kind(op: Operation) -> &'static str {
    match op {
        Operation::MeasurementsDisk => "disk",
        Operation::MeasurementsDatabase => "database",
        _ => "host",
    }
}

const MEASUREMENT_OPERATIONS: [Operation; 3] = [
    Operation::MeasurementsHost,
    Operation::MeasurementsDisk,
    Operation::MeasurementsDatabase,
];

impl Flavour {
    /// The measurement names this flavour's server takes for the measurements operation `op`
    /// (its own names); empty for any other operation.
    ///
    /// ```
    /// use opsapi::{Flavour, Operation};
    /// assert!(Flavour::Atlas.measurement_names(Operation::MeasurementsDisk).contains(&"DISK_QUEUE_DEPTH"));
    /// assert!(!Flavour::OpsManager.measurement_names(Operation::MeasurementsDisk).contains(&"DISK_QUEUE_DEPTH"));
    /// ```
    pub fn measurement_names(self, op: Operation) -> &'static [&'static str] {
        match (self, op) {
            (Self::Atlas, Operation::MeasurementsHost) => ATLAS_HOST,
            (Self::Atlas, Operation::MeasurementsDisk) => ATLAS_DISK,
            (Self::Atlas, Operation::MeasurementsDatabase) => ATLAS_DATABASE,
            (_, Operation::MeasurementsHost) => OPS_MANAGER_HOST,
            (_, Operation::MeasurementsDisk) => OPS_MANAGER_DISK,
            (_, Operation::MeasurementsDatabase) => OPS_MANAGER_DATABASE,
            _ => &[],
        }
    }

    /// How this flavour asks `op` for the series `name` names, which may be either
    /// flavour's name of it (`SYSTEM_NETWORK_BYTES_IN` and `SYSTEM_NETWORK_IN` are one
    /// series): [`MeasurementName::Known`] in the flavour's own words where its catalog has
    /// it; [`MeasurementName::Unknown`], sent as it is, where no catalog of opsapi's does
    /// (servers add measurements: the server judges it). An [`Error::InvalidArgument`], before
    /// any request, for a name the catalogs know to be something else: a measurement of
    /// another kind (a disk measurement asked of a host), or one of another flavour only
    /// (naming both flavours).
    ///
    /// ```
    /// use opsapi::{flavour::MeasurementName, Flavour, Operation};
    /// let host = Operation::MeasurementsHost;
    /// assert_eq!(Flavour::Atlas.ask_measurement(host, "SYSTEM_NETWORK_BYTES_IN").unwrap(), MeasurementName::Known("SYSTEM_NETWORK_IN"));
    /// assert_eq!(Flavour::OpsManager.ask_measurement(host, "NEXT_YEARS_METRIC").unwrap(), MeasurementName::Unknown("NEXT_YEARS_METRIC"));
    /// let e = Flavour::Atlas.ask_measurement(host, "DB_INDEX_SIZE_TOTAL").unwrap_err();
    /// assert_eq!(e.to_string(), "invalid argument `metrics`: `DB_INDEX_SIZE_TOTAL` is a host measurement of Ops Manager and Cloud Manager that Atlas does not have");
    /// ```
    pub fn ask_measurement(self, op: Operation, name: &str) -> Result<MeasurementName<'_>> {
        let names = self.measurement_names(op);
        let own = self.own_name(name);
        if let Some(found) = names.iter().find(|n| **n == own) {
            return Ok(MeasurementName::Known(found));
        }
        let kind_of = |f: Flavour| {
            MEASUREMENT_OPERATIONS
                .into_iter()
                .find(|o| f.measurement_names(*o).contains(&f.own_name(name)))
        };
        if let Some(o) = kind_of(self) {
            return Err(Error::invalid_argument(
                "metrics",
                format!(
                    "`{name}` is not a {} measurement of {self} (it is a {} measurement)",
                    kind(op),
                    kind(o)
                ),
            ));
        }
        let (other, others) = match self {
            Self::Atlas => (Self::OpsManager, "Ops Manager and Cloud Manager"),
            _ => (Self::Atlas, "Atlas"),
        };
        if let Some(o) = kind_of(other) {
            return Err(Error::invalid_argument(
                "metrics",
                format!(
                    "`{name}` is a {} measurement of {others} that {self} does not have",
                    kind(o)
                ),
            ));
        }
        Ok(MeasurementName::Unknown(name))
    }

    /// The flavour's name of the series `name` names (either flavour's name of it).
    fn own_name(self, name: &str) -> &str {
        let frame = frame_measurement_name(name);
        match self {
            Self::Atlas => ATLAS_MEASUREMENT_NAMES
                .iter()
                .find(|(om, _)| *om == frame)
                .map_or(frame, |(_, atlas)| atlas),
            _ => frame,
        }
    }

    /// The name this flavour's catalog has for the series `name` names, as
    /// [`Flavour::ask_measurement`] finds it; an [`Error::InvalidArgument`] naming `name` and
    /// the flavour for a name that it refuses and for one that no catalog of opsapi's has.
    pub fn measurement_name(self, op: Operation, name: &str) -> Result<&'static str> {
        match self.ask_measurement(op, name)? {
            MeasurementName::Known(n) => Ok(n),
            MeasurementName::Unknown(_) => Err(Error::invalid_argument(
                "metrics",
                format!(
                    "`{name}` is in no catalog of {self}'s {} measurements",
                    kind(op)
                ),
            )),
        }
    }

    /// How many measurement names one request may carry on this flavour: `Some(10)` on Atlas
    /// (its specification's `maxItems`); `None` on Ops Manager and Cloud Manager, whose
    /// documentation states no limit (a longer list is one request there: splitting it would
    /// only spend their per-project rate limit).
    pub fn max_measurements(self) -> Option<usize> {
        match self {
            Self::Atlas => Some(ATLAS_MAX_MEASUREMENTS),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_listed_once() {
        for f in Flavour::ALL {
            for op in MEASUREMENT_OPERATIONS {
                let names = f.measurement_names(op);
                let mut sorted = names.to_vec();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), names.len(), "{f} {op:?}");
            }
        }
    }

    #[test]
    fn both_names_of_a_series_ask_each_flavour_in_its_own() {
        let host = Operation::MeasurementsHost;
        for (om, atlas) in ATLAS_MEASUREMENT_NAMES {
            for name in [om, atlas] {
                assert_eq!(Flavour::Atlas.measurement_name(host, name).unwrap(), atlas);
                assert_eq!(
                    Flavour::CloudManager.measurement_name(host, name).unwrap(),
                    om
                );
                assert_eq!(frame_measurement_name(name), om);
            }
        }
        let e = Flavour::Atlas
            .measurement_name(Operation::MeasurementsHost, "DISK_PARTITION_SPACE_USED")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`DISK_PARTITION_SPACE_USED` is not a host measurement of Atlas")
                && e.contains("it is a disk measurement"),
            "{e}"
        );
        assert!(Flavour::OpsManager
            .measurement_name(Operation::MeasurementsDatabase, "DATABASE_VIEW_COUNT")
            .is_err());
    }
}
