//! The targets of measurements requests (a host, a disk partition, a database), the request
//! of one target, its fetch ([`fetch`]: the names checked and asked in the flavour's words,
//! as many at a time as one request may carry, the answers merged), and a target that failed
//! in a fleet pull: below both the measurements handle and the fleet machinery
//! (`src/fleet.rs`, `src/parquet.rs`, the store's sync), which use them.

use crate::api::measurements::query::MeasurementsQuery;
use crate::client::Client;
use crate::error::{Error, Result};
use crate::flavour::{frame_measurement_name, Flavour, Operation};
use crate::models::Measurements;
use crate::request::Request;

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

/// The constructors of the targets that a third identifier names below a host (a disk
/// partition, a database): one template for both.
macro_rules! below_host {
    ($($(#[$doc:meta])* $ctor:ident => $variant:ident { $name:ident })*) => {$(
        $(#[$doc])*
        pub fn $ctor(
            group_id: impl Into<String>,
            host_id: impl Into<String>,
            $name: impl Into<String>,
        ) -> Self {
            Self::$variant {
                group_id: group_id.into(),
                host_id: host_id.into(),
                $name: $name.into(),
            }
        }
    )*};
}

impl Target {
    /// A host target.
    pub fn host(group_id: impl Into<String>, host_id: impl Into<String>) -> Self {
        Self::Host {
            group_id: group_id.into(),
            host_id: host_id.into(),
        }
    }
    below_host! {
        /// A disk-partition target.
        disk => Disk { partition_name }
        /// A database target.
        database => Database { database_name }
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
    let (g, h) = (target.group_id(), target.host_id());
    let req = match target {
        Target::Host { .. } => Operation::MeasurementsHost.request(&[g, h]),
        Target::Disk { partition_name, .. } => {
            Operation::MeasurementsDisk.request(&[g, h, partition_name])
        }
        Target::Database { database_name, .. } => {
            Operation::MeasurementsDatabase.request(&[g, h, database_name])
        }
    }?;
    Ok(req.query(query.to_pairs()))
}

/// The measurements operation of a kind (`"host"`, `"disk"` or `"database"`).
fn operation_of(kind: &str) -> Result<Operation> {
    match kind {
        "host" => Ok(Operation::MeasurementsHost),
        "disk" => Ok(Operation::MeasurementsDisk),
        "database" => Ok(Operation::MeasurementsDatabase),
        other => Err(Error::invalid_argument(
            "kind",
            format!("`{other}` is not one of \"host\", \"disk\", \"database\""),
        )),
    }
}

/// Checks, before any request, that no measurement of `names` is one the catalogs know
/// `flavour` not to have for targets of `kind` (`"host"`, `"disk"` or `"database"`): the
/// [`Error::InvalidArgument`] names the first and both flavours. A name no catalog of
/// opsapi's has passes: the server judges it ([`Flavour::ask_measurement`]).
///
/// ```
/// use opsapi::{api::measurements::check_metric_names, Flavour};
/// assert!(check_metric_names(Flavour::Atlas, "host", &["CONNECTIONS", "NEXT_YEARS_METRIC"]).is_ok());
/// let e = check_metric_names(Flavour::Atlas, "database", &["DATABASE_FILE_SIZE"]).unwrap_err();
/// assert_eq!(e.to_string(), "invalid argument `metrics`: `DATABASE_FILE_SIZE` is a database measurement of Ops Manager and Cloud Manager that Atlas does not have");
/// ```
pub fn check_metric_names<S: AsRef<str>>(flavour: Flavour, kind: &str, names: &[S]) -> Result<()> {
    let op = operation_of(kind)?;
    for name in names {
        flavour.ask_measurement(op, name.as_ref())?;
    }
    Ok(())
}

/// The requests that ask what `req` asks, at most `limit` measurement names each (the other
/// parameters in every one), in the order of its names; `req` alone when it fits (or asks
/// every measurement: no `m`).
pub(crate) fn split(req: Request, limit: Option<usize>) -> Vec<Request> {
    let names = req.query.iter().filter(|(k, _)| *k == "m").count();
    let Some(limit) = limit.filter(|l| names > *l && *l > 0) else {
        return vec![req];
    };
    let (m, other): (Vec<_>, Vec<_>) = req.query.iter().cloned().partition(|(k, _)| *k == "m");
    m.chunks(limit)
        .map(|chunk| {
            let mut part = req.clone();
            part.query = other.iter().cloned().chain(chunk.iter().cloned()).collect();
            part
        })
        .collect()
}

/// One answer of several requests for the same target: the first's fields, every series in
/// the order the answers list them. It has no raw body (no one body holds it).
fn merge(parts: Vec<Measurements>) -> Option<Measurements> {
    let mut parts = parts.into_iter();
    let mut merged = parts.next()?;
    for part in parts {
        merged.series.extend(part.series);
    }
    merged.raw = None;
    Some(merged)
}

/// The measurements of one target: `req` as the client's flavour takes it (its names checked
/// and in the flavour's words, before anything is sent), asked in as many requests as the
/// flavour's limit on names per request asks for (Atlas: 10; one request elsewhere), merged,
/// with every series named as frames name it ([`frame_measurement_name`]). `keep_raw` keeps
/// the body of a one-request answer ([`Measurements::raw_json`]).
pub(crate) async fn fetch(client: &Client, req: Request, keep_raw: bool) -> Result<Measurements> {
    let flavour = client.flavour();
    let req = req.for_flavour(flavour)?;
    let mut parts = split(req, flavour.max_measurements());
    let mut m = if parts.len() == 1 {
        let req = parts.remove(0);
        if keep_raw {
            one_with_body(client, &req).await?
        } else {
            client.send_decoded::<Measurements>(req).await?
        }
    } else {
        let answers = parts
            .into_iter()
            .map(|req| client.send_decoded::<Measurements>(req));
        let parts = futures_util::future::try_join_all(answers).await?;
        merge(parts).unwrap_or_default()
    };
    for s in &mut m.series {
        let frame = frame_measurement_name(&s.name);
        if frame != s.name {
            s.name = frame.to_string();
        }
    }
    Ok(m)
}

/// One target's measurements, with the body kept for [`Measurements::raw_json`].
async fn one_with_body(client: &Client, req: &Request) -> Result<Measurements> {
    use crate::decode::Decode;
    let resp = client.execute(req).await?;
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

/// A target that failed in a fleet pull with `keep_going`.
#[cfg(feature = "frames")]
#[derive(Debug)]
pub struct TargetFailure {
    /// The target.
    pub target: Target,
    /// Why it failed.
    pub error: Error,
}
