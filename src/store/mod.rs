//! The measurement store: a folder of hive-partitioned Parquet that syncs incrementally, so
//! that a weekly (or hourly) capacity job asks the server only what is new.
//!
//! ```text
//! fleet-store/
//!   MANIFEST.json                 the live files and what is known of each target
//!   .lock                         the one writer's OS file lock
//!   kind=disk/granularity=PT1H/group_id=G/host_id=H/disk-data.2026-03.000017.parquet
//!   kind=host/granularity=PT1H/group_id=G/host_id=H/host.2026-03.000018.parquet
//!   kind=database/granularity=PT1H/group_id=G/host_id=H/database-orders.2026-03.000019.parquet
//! ```
//!
//! - One file holds one target's points of one calendar month (UTC), or part of them: each
//!   sync adds a small file per target with new points, and a month's files are compacted
//!   (`plan::to_merge`) once it has four, and into one once the month is over. Keeping
//!   targets apart keeps every write and every compaction to one target's month (memory does
//!   not grow with the fleet) and makes a target the unit a crash leaves whole.
//! - Readers trust only `MANIFEST.json` ([`Store::files`], [`Store::read`], Python's
//!   `Store.scan`): each reads one manifest's files from start to end, whatever syncs run
//!   meanwhile, because a file that leaves the store stays on disk for a grace period (a day
//!   by default; [`Store::vacuum`] removes them sooner). So a glob of the folder may read
//!   such files too: readers take the manifest's list.
//! - Crash-safe: see `durable` (files) and `manifest` (the manifest and the checkpoint).
//! - Whole: the manifest records each file's size and checksum (`check`); a reader gets an
//!   error naming a missing or damaged file, [`Store::check`] names every one, and a sync drops
//!   them and asks the server again for their spans, recording what the server no longer had
//!   as a gap.
//! - Contained: nothing outside the store's folder is read or removed (`contain`).
//!
//! ```no_run
//! # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
//! use opsapi::store::{Kind, Store, SyncOptions};
//! use opsapi::Granularity;
//! let store = Store::new("fleet-store");
//! let report = client.measurements()
//!     .sync(&store, &SyncOptions::new(Granularity::PT1H, "P35D".parse().unwrap()))
//!     .await?;
//! println!("{} new, {} updated, {} requests", report.new.len(), report.updated.len(), report.requests);
//! let disks = store.read(Kind::Disk, Granularity::PT1H)?;
//! # Ok(()) }
//! ```

mod check;
mod contain;
mod discover;
mod durable;
mod files;
mod garbage;
mod history;
mod manifest;
mod options;
mod plan;
pub(crate) mod sync;
mod write;

use std::path::{Path, PathBuf};

use polars::prelude::*;

pub use check::{FileProblem, StoreCheck};
pub use durable::WRITE_HOOK_ENV;
pub use options::{LostSpan, SyncOptions, SyncReport, Targets, CLOCK_TOLERANCE, DEFAULT_GRACE};

use crate::api::measurements::query::Granularity;
use crate::api::measurements::target::Target;
use crate::error::{Error, Result};
use crate::frame::lists::Cols;
use crate::frame::{key_dtype, polars_err, LONG_COLUMNS};
use manifest::Key;

/// A kind of measurements: of hosts, disk partitions or databases.
///
/// ```
/// use opsapi::store::Kind;
/// assert_eq!("disk".parse::<Kind>().unwrap(), Kind::Disk);
/// assert_eq!(Kind::Database.as_str(), "database");
/// assert!("disks".parse::<Kind>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Host measurements.
    Host,
    /// Disk-partition measurements.
    Disk,
    /// Database measurements.
    Database,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 3] = [Kind::Host, Kind::Disk, Kind::Database];

    /// `host`, `disk` or `database`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Host => "host",
            Self::Disk => "disk",
            Self::Database => "database",
        }
    }

    /// The kind of a target.
    pub fn of(target: &Target) -> Self {
        match target {
            Target::Host { .. } => Self::Host,
            Target::Disk { .. } => Self::Disk,
            Target::Database { .. } => Self::Database,
        }
    }

    /// Parses `host`, `disk` or `database`, naming the argument `kind` in the error.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "host" => Ok(Self::Host),
            "disk" => Ok(Self::Disk),
            "database" => Ok(Self::Database),
            other => Err(Error::invalid_argument(
                "kind",
                format!("`{other}` is not one of \"host\", \"disk\", \"database\""),
            )),
        }
    }
}

impl std::str::FromStr for Kind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::parse(s)
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The folder of a target's files under the store: its hive partitions.
fn target_dir(key: &Key) -> PathBuf {
    let hive = crate::parquet::hive_value;
    PathBuf::from(format!("kind={}", key.kind.as_str()))
        .join(format!("granularity={}", key.granularity))
        .join(format!("group_id={}", hive(&key.group_id)))
        .join(format!("host_id={}", hive(&key.host_id)))
}

/// The start of a target's file names: `host`, `disk-<partition>` or `database-<name>`.
fn file_stem(key: &Key) -> String {
    match (&key.kind, &key.name) {
        (Kind::Host, _) => "host".into(),
        (kind, name) => format!(
            "{}-{}",
            kind.as_str(),
            crate::parquet::hive_value(name.as_deref().unwrap_or(""))
        ),
    }
}

/// A measurement store: a folder of hive-partitioned Parquet files and the manifest that says
/// which are live. [`crate::api::measurements::MeasurementsApi::sync`] fills it; these methods
/// read it, as its manifest says (any number of readers, while a sync runs too: each sees the
/// store as the last finished sync left it, from start to end).
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let store = opsapi::store::Store::new(dir.path().join("fleet-store"));
/// // A store never synced is empty (and its folder is created by the first sync).
/// assert_eq!(store.targets().unwrap().height(), 0);
/// assert!(store.files(opsapi::store::Kind::Disk, opsapi::Granularity::PT1H).unwrap().is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
}

impl Store {
    /// The store in folder `path` (nothing is read or created until it is used).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { root: path.into() }
    }

    /// The store's folder.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// The live data files of one kind at one granularity, as the manifest lists them (for
    /// readers that take a list of files: `polars.scan_parquet`, DuckDB's `read_parquet`,
    /// Dask), each under `kind=/granularity=/group_id=/host_id=` folders. Each is checked first
    /// (inside the store, present, of its recorded size, Parquet at both ends): a bad one is
    /// an [`Error::StoreFile`] naming it, never a shorter list.
    pub fn files(&self, kind: Kind, granularity: Granularity) -> Result<Vec<PathBuf>> {
        Ok(self
            .snapshot(kind, granularity)?
            .into_iter()
            .map(|f| f.path)
            .collect())
    }

    /// The live files of one kind at one granularity in one manifest generation, each checked
    /// for reading, with its target.
    pub(crate) fn snapshot(&self, kind: Kind, granularity: Granularity) -> Result<Vec<Live>> {
        let state = manifest::load(&self.root)?;
        let mut root = contain::Root::new(&self.root);
        let mut out = Vec::new();
        for (key, t) in &state.targets {
            if key.kind != kind || key.granularity != granularity.as_str() {
                continue;
            }
            for f in &t.files {
                let path =
                    check::for_reading(&mut root, f).map_err(|problem| Error::StoreFile {
                        path: self.root.join(&f.name),
                        problem,
                    })?;
                out.push(Live {
                    path,
                    key: key.clone(),
                });
            }
        }
        Ok(out)
    }

    /// Every live file checked whole: inside the store, present, its recorded size and
    /// checksum, a Parquet footer, its row count (SQLite's `integrity_check`). A bad file is a
    /// problem in the result, named, never an error; nothing is changed (the next sync drops
    /// it and asks the server again for its span).
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let check = opsapi::store::Store::new(dir.path().join("s")).check().unwrap();
    /// assert!(check.ok());
    /// ```
    pub fn check(&self) -> Result<StoreCheck> {
        check::check(&self.root)
    }

    /// Removes now the files that left the store (replaced by a compaction, or out of the
    /// window) and that a sync keeps for a grace period for readers of older manifests (Delta
    /// Lake's `VACUUM`). Call it when no reader is reading; it takes the writer's lock (waiting
    /// for a sync). Returns how many files it removed.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// assert_eq!(opsapi::store::Store::new(dir.path().join("s")).vacuum().unwrap(), 0);
    /// ```
    pub fn vacuum(&self) -> Result<usize> {
        garbage::vacuum(&self.root)
    }

    /// What the store holds, one row per target and granularity: `kind, granularity,
    /// group_id, host_id, partition_name, database_name` (Categorical), `first` and `last`
    /// (its first and last stored point), `last_sync` (when a sync last asked it, by the
    /// server's clock), `seen` (whether discovery still finds it), `points`, `files`,
    /// `bytes`, and what it lost: `gaps` and `points_lost` (spans of files found missing or
    /// damaged that the server no longer had), `points_pending` (those still to be asked
    /// again).
    pub fn targets(&self) -> Result<DataFrame> {
        let state = manifest::load(&self.root)?;
        let rows: Vec<(&Key, &manifest::TargetState)> = state.targets.iter().collect();
        let mut c = Cols::new(rows.len());
        let at = |ms: Option<i64>| ms.and_then(chrono::DateTime::from_timestamp_millis);
        c.key("kind", rows.iter().map(|(k, _)| Some(k.kind.as_str())));
        c.key("granularity", rows.iter().map(|(k, _)| Some(k.granularity)));
        c.key(
            "group_id",
            rows.iter().map(|(k, _)| Some(k.group_id.as_str())),
        );
        c.key(
            "host_id",
            rows.iter().map(|(k, _)| Some(k.host_id.as_str())),
        );
        fn named(k: &Key, kind: Kind) -> Option<&str> {
            (k.kind == kind).then_some(k.name.as_deref()).flatten()
        }
        c.key(
            "partition_name",
            rows.iter().map(|(k, _)| named(k, Kind::Disk)),
        );
        c.key(
            "database_name",
            rows.iter().map(|(k, _)| named(k, Kind::Database)),
        );
        c.time("first", rows.iter().map(|(_, t)| at(t.first())));
        c.time("last", rows.iter().map(|(_, t)| at(t.last())));
        c.time("last_sync", rows.iter().map(|(_, t)| at(t.last_sync)));
        c.bool("seen", rows.iter().map(|(_, t)| Some(t.seen)));
        c.i64("points", rows.iter().map(|(_, t)| Some(t.rows() as i64)));
        c.i64(
            "files",
            rows.iter().map(|(_, t)| Some(t.files.len() as i64)),
        );
        c.i64("bytes", rows.iter().map(|(_, t)| Some(t.bytes() as i64)));
        c.i64("gaps", rows.iter().map(|(_, t)| Some(t.gaps.len() as i64)));
        c.i64(
            "points_lost",
            rows.iter()
                .map(|(_, t)| Some(t.gaps.iter().map(|g| g.points as i64).sum())),
        );
        c.i64(
            "points_pending",
            rows.iter()
                .map(|(_, t)| Some(t.holes.iter().map(|h| h.rows as i64).sum())),
        );
        c.finish()
    }

    /// Every stored point of one kind at one granularity as one long frame (the columns and
    /// dtypes of [`crate::frame::long_frame`]), read file by file from one manifest. Python's
    /// `Store.scan` is the lazy reader.
    pub fn read(&self, kind: Kind, granularity: Granularity) -> Result<DataFrame> {
        let files = self.snapshot(kind, granularity)?;
        crate::frame::stack_frames(files.iter().map(|f| long_of_file(&f.path, &f.key)))
    }
}

/// One live file of a reader's snapshot: where it is (checked), and its target.
pub(crate) struct Live {
    pub(crate) path: PathBuf,
    pub(crate) key: Key,
}

/// One data file as a long frame: the hive columns added, keys Categorical, columns in order.
pub(crate) fn long_of_file(path: &Path, key: &Key) -> Result<DataFrame> {
    let df = files::read(path)?;
    let n = df.height();
    let mut columns = Vec::with_capacity(LONG_COLUMNS.len());
    for name in LONG_COLUMNS {
        let c = match name {
            "group_id" => {
                crate::frame::key_column(name, std::iter::repeat_n(Some(key.group_id.as_str()), n))?
            }
            "host_id" => {
                crate::frame::key_column(name, std::iter::repeat_n(Some(key.host_id.as_str()), n))?
            }
            "timestamp" | "value" => df.column(name).map_err(polars_err)?.clone(),
            _ => df
                .column(name)
                .and_then(|c| c.cast(&key_dtype()))
                .map_err(polars_err)?,
        };
        columns.push(c);
    }
    DataFrame::new(n, columns).map_err(polars_err)
}
