//! Host, disk-partition and database measurements: the query (granularity, window, metric
//! names), one pure function per operation that builds its request, and fleet pulls.
//!
//! (Over 600 lines: one resource, its query and target types, five operations and their
//! pure request builders with doc tests; the fleet machinery is in src/fleet.rs.)

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};

use crate::client::Client;
use crate::error::{Error, Result};
#[cfg(feature = "frames")]
use crate::fleet::{self, FleetOptions, FleetResult, ParquetPull};
use crate::iso8601::IsoDuration;
use crate::models::time::format_timestamp;
use crate::models::Measurements;
use crate::request::Request;

use super::hosts::host_path;

/// One target: of a fleet pull, or of a single-target request ([`target_request`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// Host measurements of `(group_id, host_id)`.
    Host {
        /// The project.
        group_id: String,
        /// The host.
        host_id: String,
    },
    /// Disk-partition measurements of `(group_id, host_id, partition_name)`.
    Disk {
        /// The project.
        group_id: String,
        /// The host.
        host_id: String,
        /// The partition.
        partition_name: String,
    },
    /// Database measurements of `(group_id, host_id, database_name)`.
    Database {
        /// The project.
        group_id: String,
        /// The host.
        host_id: String,
        /// The database.
        database_name: String,
    },
}

impl Target {
    /// A host target.
    pub fn host(group_id: impl Into<String>, host_id: impl Into<String>) -> Self {
        Self::Host {
            group_id: group_id.into(),
            host_id: host_id.into(),
        }
    }
    /// A disk-partition target.
    pub fn disk(
        group_id: impl Into<String>,
        host_id: impl Into<String>,
        partition_name: impl Into<String>,
    ) -> Self {
        Self::Disk {
            group_id: group_id.into(),
            host_id: host_id.into(),
            partition_name: partition_name.into(),
        }
    }
    /// A database target.
    pub fn database(
        group_id: impl Into<String>,
        host_id: impl Into<String>,
        database_name: impl Into<String>,
    ) -> Self {
        Self::Database {
            group_id: group_id.into(),
            host_id: host_id.into(),
            database_name: database_name.into(),
        }
    }
    /// A target from its identifiers and an optional kind (`"host"`, `"disk"` or
    /// `"database"`), as the Python face and the CLI take them: without a kind, two parts are
    /// a host and three a disk partition; a database needs `kind = "database"`.
    ///
    /// ```
    /// use opsapi::api::measurements::Target;
    /// assert_eq!(Target::from_parts(None, &["g", "h", "data"]).unwrap(), Target::disk("g", "h", "data"));
    /// assert_eq!(Target::from_parts(Some("database"), &["g", "h", "orders"]).unwrap(),
    ///            Target::database("g", "h", "orders"));
    /// assert!(Target::from_parts(Some("host"), &["g", "h", "data"]).is_err());
    /// ```
    pub fn from_parts<S: AsRef<str>>(kind: Option<&str>, parts: &[S]) -> Result<Self> {
        let parts: Vec<&str> = parts.iter().map(AsRef::as_ref).collect();
        let shape = |what: &str| {
            Error::invalid_argument(
                "targets",
                format!(
                    "a {what} target is {}, got {} part(s)",
                    match what {
                        "host" => "(group_id, host_id)",
                        "disk" => "(group_id, host_id, partition_name)",
                        _ => "(group_id, host_id, database_name)",
                    },
                    parts.len()
                ),
            )
        };
        match (kind, parts.as_slice()) {
            (None | Some("host"), [g, h]) => Ok(Self::host(*g, *h)),
            (None | Some("disk"), [g, h, p]) => Ok(Self::disk(*g, *h, *p)),
            (Some("database"), [g, h, d]) => Ok(Self::database(*g, *h, *d)),
            (None, _) => Err(Error::invalid_argument(
                "targets",
                format!(
                    "each target is (group_id, host_id) or (group_id, host_id, partition_name), \
                     got {} part(s)",
                    parts.len()
                ),
            )),
            (Some(k @ ("host" | "disk" | "database")), _) => Err(shape(k)),
            (Some(other), _) => Err(Error::invalid_argument(
                "kind",
                format!("`{other}` is not one of \"host\", \"disk\", \"database\""),
            )),
        }
    }
    /// The project.
    pub fn group_id(&self) -> &str {
        match self {
            Self::Host { group_id, .. }
            | Self::Disk { group_id, .. }
            | Self::Database { group_id, .. } => group_id,
        }
    }
    /// The host.
    pub fn host_id(&self) -> &str {
        match self {
            Self::Host { host_id, .. }
            | Self::Disk { host_id, .. }
            | Self::Database { host_id, .. } => host_id,
        }
    }
    /// The partition, for disk targets.
    pub fn partition_name(&self) -> Option<&str> {
        match self {
            Self::Disk { partition_name, .. } => Some(partition_name),
            _ => None,
        }
    }
    /// The database, for database targets.
    pub fn database_name(&self) -> Option<&str> {
        match self {
            Self::Database { database_name, .. } => Some(database_name),
            _ => None,
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Host { group_id, host_id } => write!(f, "host {host_id} of group {group_id}"),
            Self::Disk {
                group_id,
                host_id,
                partition_name,
            } => write!(
                f,
                "partition {partition_name} of host {host_id} of group {group_id}"
            ),
            Self::Database {
                group_id,
                host_id,
                database_name,
            } => write!(
                f,
                "database {database_name} of host {host_id} of group {group_id}"
            ),
        }
    }
}

/// `client.measurements()`
#[derive(Debug, Clone, Copy)]
pub struct MeasurementsApi<'c> {
    pub(crate) client: &'c Client,
}

/// `GET /groups/{group_id}/hosts/{host_id}/measurements` with the query.
pub fn host_request(group_id: &str, host_id: &str, query: &MeasurementsQuery) -> Result<Request> {
    target_request(&Target::host(group_id, host_id), query)
}

/// `GET /groups/{group_id}/hosts/{host_id}/disks/{partition_name}/measurements` with the query.
pub fn disk_request(
    group_id: &str,
    host_id: &str,
    partition_name: &str,
    query: &MeasurementsQuery,
) -> Result<Request> {
    target_request(&Target::disk(group_id, host_id, partition_name), query)
}

/// `GET /groups/{group_id}/hosts/{host_id}/databases/{database_name}/measurements` with the
/// query.
pub fn database_request(
    group_id: &str,
    host_id: &str,
    database_name: &str,
    query: &MeasurementsQuery,
) -> Result<Request> {
    target_request(&Target::database(group_id, host_id, database_name), query)
}

/// The request of one target of a fleet pull (and of the single-target operations).
///
/// ```
/// use opsapi::api::measurements::{target_request, Target};
/// use opsapi::{Granularity, MeasurementsQuery};
/// let q = MeasurementsQuery::period(Granularity::PT1H, "P30D".parse().unwrap()).metrics(["DISK_PARTITION_SPACE_USED"]);
/// let req = target_request(&Target::disk("g", "h", "data/db"), &q).unwrap();
/// assert_eq!(req.path, "/groups/g/hosts/h/disks/data%2Fdb/measurements");
/// assert_eq!(req.url("https://om/api/public/v1.0").unwrap().query(),
///            Some("granularity=PT1H&period=P30D&m=DISK_PARTITION_SPACE_USED"));
/// ```
pub fn target_request(target: &Target, query: &MeasurementsQuery) -> Result<Request> {
    query.validate()?;
    let base = host_path(target.group_id(), target.host_id())?;
    let path = match target {
        Target::Host { .. } => base.lit("measurements").finish(),
        Target::Disk { partition_name, .. } => base
            .lit("disks")
            .id("partition_name", partition_name)?
            .lit("measurements")
            .finish(),
        Target::Database { database_name, .. } => base
            .lit("databases")
            .id("database_name", database_name)?
            .lit("measurements")
            .finish(),
    };
    Ok(Request::get(path).query(query.to_pairs()))
}

impl MeasurementsApi<'_> {
    /// One target's measurements, with the body kept for [`Measurements::raw_json`].
    async fn one(&self, req: Request) -> Result<Measurements> {
        use crate::decode::Decode;
        let resp = self.client.execute(&req).await?;
        let mut m = Measurements::decode_at(&req.path, &resp.body)?;
        m.raw = Some(
            crate::models::RawText::new(resp.body).ok_or_else(|| Error::Decode {
                path: req.path.clone(),
                field: ".".into(),
                message: "the body is not UTF-8".into(),
                body_start: String::new(),
            })?,
        );
        Ok(m)
    }

    /// Host measurements: `GET /groups/{group_id}/hosts/{host_id}/measurements`.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{Granularity, MeasurementsQuery};
    /// let q = MeasurementsQuery::period(Granularity::PT1M, "P1D".parse().unwrap())
    ///     .metrics(["CONNECTIONS", "OPCOUNTER_CMD"]);
    /// let m = client.measurements().host("5e9f...", "a1b2...", &q).await?;
    /// for s in &m.series { println!("{} {:?}: {} points", s.name, s.units, s.len()); }
    /// # Ok(()) }
    /// ```
    pub async fn host(
        &self,
        group_id: &str,
        host_id: &str,
        query: &MeasurementsQuery,
    ) -> Result<Measurements> {
        self.one(host_request(group_id, host_id, query)?).await
    }

    /// Disk-partition measurements:
    /// `GET /groups/{group_id}/hosts/{host_id}/disks/{partition_name}/measurements`.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{Granularity, MeasurementsQuery};
    /// let q = MeasurementsQuery::period(Granularity::PT1H, "P30D".parse().unwrap())
    ///     .metrics(["DISK_PARTITION_SPACE_USED"]);
    /// let m = client.measurements().disk("5e9f...", "a1b2...", "data", &q).await?;
    /// # Ok(()) }
    /// ```
    pub async fn disk(
        &self,
        group_id: &str,
        host_id: &str,
        partition_name: &str,
        query: &MeasurementsQuery,
    ) -> Result<Measurements> {
        self.one(disk_request(group_id, host_id, partition_name, query)?)
            .await
    }

    /// The measurements of one target (host, disk partition or database).
    pub async fn target(&self, target: &Target, query: &MeasurementsQuery) -> Result<Measurements> {
        self.one(target_request(target, query)?).await
    }

    /// Database measurements:
    /// `GET /groups/{group_id}/hosts/{host_id}/databases/{database_name}/measurements`.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{Granularity, MeasurementsQuery};
    /// let q = MeasurementsQuery::period(Granularity::PT1H, "P30D".parse().unwrap())
    ///     .metrics(["DATABASE_DATA_SIZE", "DATABASE_INDEX_SIZE"]);
    /// let m = client.measurements().database("5e9f...", "a1b2...", "orders", &q).await?;
    /// assert_eq!(m.database_name.as_deref(), Some("orders"));
    /// # Ok(()) }
    /// ```
    pub async fn database(
        &self,
        group_id: &str,
        host_id: &str,
        database_name: &str,
        query: &MeasurementsQuery,
    ) -> Result<Measurements> {
        self.one(database_request(group_id, host_id, database_name, query)?)
            .await
    }

    /// Measurements of many targets over one window, fetched concurrently (up to the
    /// client's `max_concurrency`), as one frame.
    ///
    /// Targets are `(group, host)` for host measurements and `(group, host, partition)` for
    /// disk measurements; they may be mixed. Every identifier is checked before the first
    /// request. A failing target fails the pull with an error that names its path, unless
    /// `options.keep_going` is set: then the frame holds every target that succeeded and
    /// [`FleetResult::failures`] the others.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::fleet::{FleetOptions, Target};
    /// use opsapi::{Granularity, MeasurementsQuery};
    /// let targets = vec![Target::host("g1", "h1"), Target::disk("g1", "h1", "data")];
    /// let q = MeasurementsQuery::period(Granularity::PT1M, "P1D".parse().unwrap());
    /// let pulled = client.measurements().fleet(&targets, &q, &FleetOptions::new().keep_going(true)).await?;
    /// println!("{} rows, {} failures", pulled.frame.height(), pulled.failures.len());
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "frames")]
    pub async fn fleet(
        &self,
        targets: &[Target],
        query: &MeasurementsQuery,
        options: &FleetOptions,
    ) -> Result<FleetResult> {
        fleet::pull(self.client, targets, query, options).await
    }

    /// A fleet pull written to hive-partitioned Parquet under `root`
    /// (`group_id=…/host_id=…/host.parquet`, `…/disk-<partition>.parquet`), target by target
    /// as results arrive, so that a pull bigger than memory works. DuckDB, Spark or polars
    /// (`scan_parquet(root, hive_partitioning=True)`) read it back with every long column.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::fleet::{FleetOptions, Target};
    /// use opsapi::{Granularity, MeasurementsQuery};
    /// let q = MeasurementsQuery::period(Granularity::PT1M, "P1D".parse().unwrap());
    /// let out = client.measurements()
    ///     .fleet_to_parquet(&[Target::host("g1", "h1")], &q, "out/measurements".as_ref(), &FleetOptions::new())
    ///     .await?;
    /// println!("{} rows in {} files", out.rows, out.files.len());
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "frames")]
    pub async fn fleet_to_parquet(
        &self,
        targets: &[Target],
        query: &MeasurementsQuery,
        root: &std::path::Path,
        options: &FleetOptions,
    ) -> Result<ParquetPull> {
        fleet::pull_to_parquet(self.client, targets, query, root, options).await
    }
}

/// The granularity of measurements: one of the five the service supports.
///
/// ```
/// use opsapi::Granularity;
/// assert_eq!("PT1M".parse::<Granularity>().unwrap(), Granularity::PT1M);
/// assert_eq!("PT60S".parse::<Granularity>().unwrap(), Granularity::PT1M);
/// assert!("PT2M".parse::<Granularity>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(clippy::upper_case_acronyms)]
pub enum Granularity {
    /// 10 seconds.
    PT10S,
    /// 1 minute.
    PT1M,
    /// 5 minutes.
    PT5M,
    /// 1 hour.
    PT1H,
    /// 1 day.
    P1D,
}

impl Granularity {
    /// Every granularity, finest first.
    pub const ALL: [Self; 5] = [Self::PT10S, Self::PT1M, Self::PT5M, Self::PT1H, Self::P1D];

    /// The value as the API spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PT10S => "PT10S",
            Self::PT1M => "PT1M",
            Self::PT5M => "PT5M",
            Self::PT1H => "PT1H",
            Self::P1D => "P1D",
        }
    }

    /// The step in seconds.
    pub fn seconds(self) -> u64 {
        match self {
            Self::PT10S => 10,
            Self::PT1M => 60,
            Self::PT5M => 300,
            Self::PT1H => 3600,
            Self::P1D => 86_400,
        }
    }

    /// The granularity of a step in seconds.
    pub fn from_seconds(s: f64) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.seconds() as f64 == s)
    }

    /// Parses `s`, naming `argument` in the error.
    pub fn parse(argument: &str, s: &str) -> Result<Self> {
        let d = IsoDuration::parse(argument, s)?;
        d.fixed_seconds()
            .and_then(Self::from_seconds)
            .ok_or_else(|| {
                Error::invalid_argument(
                    argument,
                    format!(
                        "`{s}` is not a supported granularity: use PT10S, PT1M, PT5M, PT1H or P1D"
                    ),
                )
            })
    }
}

impl FromStr for Granularity {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::parse("granularity", s)
    }
}

impl fmt::Display for Granularity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The time window of a measurements request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Window {
    /// The last `period`, ending now.
    Period(IsoDuration),
    /// From `start` to `end`.
    Range {
        /// Start (inclusive).
        start: DateTime<Utc>,
        /// End.
        end: DateTime<Utc>,
    },
}

/// Parameters of a measurements request: granularity, window and metric names.
///
/// ```
/// use opsapi::{Granularity, MeasurementsQuery};
/// let q = MeasurementsQuery::period(Granularity::PT1M, "P1D".parse().unwrap())
///     .metrics(["CONNECTIONS", "OPCOUNTER_CMD"]);
/// assert_eq!(q.to_pairs(), vec![
///     ("granularity", "PT1M".to_string()), ("period", "P1D".to_string()),
///     ("m", "CONNECTIONS".to_string()), ("m", "OPCOUNTER_CMD".to_string()),
/// ]);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MeasurementsQuery {
    /// `granularity`
    pub granularity: Granularity,
    /// `period`, or `start` and `end`.
    pub window: Window,
    /// `m`, one per name; empty means every measurement.
    pub metrics: Vec<String>,
}

impl MeasurementsQuery {
    /// The last `period` at `granularity`.
    pub fn period(granularity: Granularity, period: IsoDuration) -> Self {
        Self {
            granularity,
            window: Window::Period(period),
            metrics: Vec::new(),
        }
    }

    /// From `start` to `end` at `granularity`.
    pub fn range(granularity: Granularity, start: DateTime<Utc>, end: DateTime<Utc>) -> Self {
        Self {
            granularity,
            window: Window::Range { start, end },
            metrics: Vec::new(),
        }
    }

    /// Only these measurements.
    pub fn metrics<I, S>(mut self, metrics: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.metrics = metrics.into_iter().map(Into::into).collect();
        self
    }

    /// Builds a query from separately given parts, as a caller passing keyword arguments
    /// does, with an error naming the argument for every invalid combination.
    pub fn from_parts(
        granularity: Option<&str>,
        period: Option<&str>,
        start: Option<DateTime<Utc>>,
        end: Option<DateTime<Utc>>,
        metrics: Option<Vec<String>>,
    ) -> Result<Self> {
        let granularity = match granularity {
            Some(g) => Granularity::parse("granularity", g)?,
            None => return Err(Error::invalid_argument("granularity", "is required")),
        };
        let window = match (period, start, end) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                return Err(Error::invalid_argument(
                    "period",
                    "give either period or both start and end, not both",
                ))
            }
            (Some(p), None, None) => Window::Period(IsoDuration::parse("period", p)?),
            (None, Some(start), Some(end)) => Window::Range { start, end },
            (None, Some(_), None) => {
                return Err(Error::invalid_argument(
                    "end",
                    "start is given, so end is required too",
                ))
            }
            (None, None, Some(_)) => {
                return Err(Error::invalid_argument(
                    "start",
                    "end is given, so start is required too",
                ))
            }
            (None, None, None) => {
                return Err(Error::invalid_argument(
                    "period",
                    "give either period or both start and end",
                ))
            }
        };
        if metrics.as_ref().is_some_and(Vec::is_empty) {
            // An empty `m` list would mean "every measurement" on the wire: a list that ended up
            // empty by mistake must not silently pull everything.
            return Err(Error::invalid_argument(
                "metrics",
                "is empty; leave it out (None) for every measurement",
            ));
        }
        let q = Self {
            granularity,
            window,
            metrics: metrics.unwrap_or_default(),
        };
        q.validate()?;
        Ok(q)
    }

    /// Checks the query without sending anything.
    pub fn validate(&self) -> Result<()> {
        match self.window {
            Window::Period(p) => {
                if p.is_zero() {
                    return Err(Error::invalid_argument(
                        "period",
                        "must be longer than zero",
                    ));
                }
            }
            Window::Range { start, end } => {
                if start >= end {
                    return Err(Error::invalid_argument(
                        "start",
                        format!(
                            "{} is not before end {}",
                            format_timestamp(&start),
                            format_timestamp(&end)
                        ),
                    ));
                }
            }
        }
        for m in &self.metrics {
            if m.trim().is_empty() {
                return Err(Error::invalid_argument(
                    "metrics",
                    "contains an empty measurement name",
                ));
            }
        }
        Ok(())
    }

    /// The query parameters, as sent: one `m` per metric.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = vec![("granularity", self.granularity.as_str().to_string())];
        match &self.window {
            Window::Period(p) => out.push(("period", p.to_string())),
            Window::Range { start, end } => {
                out.push(("start", format_timestamp(start)));
                out.push(("end", format_timestamp(end)));
            }
        }
        out.extend(self.metrics.iter().map(|m| ("m", m.clone())));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iso8601::parse_timestamp;

    #[test]
    fn granularity_names_the_argument() {
        let e = Granularity::parse("granularity", "PT2M").unwrap_err();
        assert!(e.to_string().contains("`granularity`"), "{e}");
        assert_eq!(IsoDuration::from_seconds(60).to_string(), "PT1M");
        assert_eq!(IsoDuration::from_seconds(86_400).to_string(), "P1D");
        assert_eq!(
            Granularity::parse("g", &IsoDuration::from_seconds(10).to_string()).unwrap(),
            Granularity::PT10S
        );
    }

    #[test]
    fn measurement_windows_are_checked_before_sending() {
        let t = |s| parse_timestamp("t", s).unwrap();
        let arg = |r: Result<MeasurementsQuery>| match r {
            Err(Error::InvalidArgument { argument, .. }) => argument,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            arg(MeasurementsQuery::from_parts(
                None,
                Some("P1D"),
                None,
                None,
                None
            )),
            "granularity"
        );
        assert_eq!(
            arg(MeasurementsQuery::from_parts(
                Some("PT1M"),
                None,
                None,
                None,
                None
            )),
            "period"
        );
        assert_eq!(
            arg(MeasurementsQuery::from_parts(
                Some("PT1M"),
                None,
                Some(t("2024-01-01T00:00:00Z")),
                None,
                None
            )),
            "end"
        );
        assert_eq!(
            arg(MeasurementsQuery::from_parts(
                Some("PT1M"),
                Some("P1D"),
                Some(t("2024-01-01T00:00:00Z")),
                Some(t("2024-01-02T00:00:00Z")),
                None
            )),
            "period"
        );
        assert_eq!(
            arg(MeasurementsQuery::from_parts(
                Some("PT1M"),
                None,
                Some(t("2024-01-02T00:00:00Z")),
                Some(t("2024-01-01T00:00:00Z")),
                None
            )),
            "start"
        );
        assert_eq!(
            arg(MeasurementsQuery::from_parts(
                Some("PT1M"),
                Some("1 day"),
                None,
                None,
                None
            )),
            "period"
        );
        assert_eq!(
            arg(MeasurementsQuery::from_parts(
                Some("PT1M"),
                Some("P1D"),
                None,
                None,
                Some(vec![])
            )),
            "metrics"
        );
        let q = MeasurementsQuery::from_parts(
            Some("PT1M"),
            None,
            Some(t("2024-01-01T00:00:00Z")),
            Some(t("2024-01-01T01:00:00.5Z")),
            Some(vec!["CONNECTIONS".into()]),
        )
        .unwrap();
        assert_eq!(
            q.to_pairs(),
            vec![
                ("granularity", "PT1M".into()),
                ("start", "2024-01-01T00:00:00Z".into()),
                ("end", "2024-01-01T01:00:00.500Z".into()),
                ("m", "CONNECTIONS".into())
            ]
        );
    }
}
