//! The manifest: the one file readers trust. It lists every live data file of the store and
//! what the store knows of each target (when it was last asked, whether discovery still sees
//! it) and of each host (its partitions and databases as last listed).
//!
//! Two copies exist on disk, each replaced whole ([`super::durable::write_file`]):
//!
//! - `MANIFEST.json`, written at the end of a sync: what readers read, so that they never see
//!   a sync half done;
//! - `CHECKPOINT.json`, written during a sync every few hundred targets: the targets already
//!   updated. A sync that dies leaves it behind with a higher generation than the manifest,
//!   and the next sync starts from it (it is a consistent store: each target whole), so a
//!   crash loses at most the targets written since the last checkpoint.
//!
//! Files a compaction replaced, or that left the store's window, are not deleted at once:
//! they stay listed as *retired* (with when, by this machine's clock) for a grace period, so
//! that a reader that read an older manifest (a `scan()` being collected, a LazyFrame taken
//! before the sync) still finds every file it lists (Delta Lake's `VACUUM` retention).
//! `Store::vacuum` removes them earlier by hand.
//!
//! Files that no manifest or checkpoint refers to, live or retired (written after the last
//! checkpoint of a killed sync: no reader ever saw them) are removed when the next sync
//! starts. Nothing is ever removed, or read, outside the store's folder (`contain`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::durable;
use super::Kind;
use crate::api::measurements::query::Granularity;
use crate::api::measurements::target::Target;
use crate::error::{Error, Result};

/// The manifest readers trust.
pub(crate) const MANIFEST: &str = "MANIFEST.json";
/// The writer's progress during a sync.
pub(crate) const CHECKPOINT: &str = "CHECKPOINT.json";
/// The manifest's format: 2 records each file's checksum and modification time, the retired
/// files, and each target's holes and gaps. Format 1 (no checksums) is read and upgraded.
const FORMAT: u32 = 2;
/// The oldest format this opsapi reads.
const OLDEST_FORMAT: u32 = 1;

/// A target of the store: what (kind, identifiers) at which granularity.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Key {
    pub kind: Kind,
    /// The granularity as the API spells it (ordered as text: the manifest's order).
    pub granularity: &'static str,
    pub group_id: String,
    pub host_id: String,
    /// The partition or database; none for a host.
    pub name: Option<String>,
}

impl Key {
    pub(crate) fn new(target: &Target, granularity: Granularity) -> Self {
        Self {
            kind: Kind::of(target),
            granularity: granularity.as_str(),
            group_id: target.group_id().to_string(),
            host_id: target.host_id().to_string(),
            name: target
                .partition_name()
                .or(target.database_name())
                .map(str::to_string),
        }
    }

    pub(crate) fn target(&self) -> Target {
        let (g, h) = (self.group_id.as_str(), self.host_id.as_str());
        let name = self.name.clone().unwrap_or_default();
        match self.kind {
            Kind::Host => Target::host(g, h),
            Kind::Disk => Target::disk(g, h, name),
            Kind::Database => Target::database(g, h, name),
        }
    }
}

/// One live data file: all of one target's points of one month (or a part of them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileEntry {
    /// The path under the store's folder, `/`-separated.
    pub name: String,
    /// Data points.
    pub rows: u64,
    /// Bytes on disk.
    pub bytes: u64,
    /// The first and last timestamp in it, milliseconds since the epoch.
    pub first: i64,
    pub last: i64,
    /// Its checksum (`xxh3:<16 hex digits>` of its bytes); none in a format-1 manifest until
    /// the next sync records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// Its modification time as written (nanoseconds since the epoch): a sync reads again
    /// only the files whose size or modification time changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified: Option<i64>,
}

/// A span of a target's points that the store lost (a file found missing or damaged) and asks
/// the server for again: what its file held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Hole {
    /// The file's first and last point, milliseconds.
    pub first: i64,
    pub last: i64,
    /// The points it held.
    pub rows: u64,
}

/// A span whose points the store lost and the server no longer had: recorded, never silent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Gap {
    /// The lost file's first and last point, milliseconds.
    pub first: i64,
    pub last: i64,
    /// Points lost (those the file held that the server did not answer again).
    pub points: u64,
}

/// A file no longer live (replaced by a compaction, out of the window, or listed by an older
/// manifest only), kept for the readers of older manifests until its grace period is over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Retired {
    /// The path under the store's folder, `/`-separated.
    pub name: String,
    /// When it was retired, by this machine's clock (ms).
    pub since: i64,
}

/// What the store knows of one target.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TargetState {
    /// The `end` of the last request answered (empty or not), milliseconds.
    pub asked_until: Option<i64>,
    /// When the last sync that asked it ran (the server's clock), milliseconds.
    pub last_sync: Option<i64>,
    /// Whether the last discovery still saw it (a target removed from the server is kept).
    pub seen: bool,
    /// Its live files, oldest first.
    pub files: Vec<FileEntry>,
    /// Spans lost from the store, to ask again (kept until a request answers them).
    pub holes: Vec<Hole>,
    /// Spans lost that the server no longer had.
    pub gaps: Vec<Gap>,
}

impl TargetState {
    /// A target the store has just met.
    pub(crate) fn fresh() -> Self {
        Self {
            seen: true,
            ..Self::default()
        }
    }
    /// The first stored point: always that of its files, never a number kept beside them.
    pub(crate) fn first(&self) -> Option<i64> {
        self.files.iter().map(|f| f.first).min()
    }
    /// The last stored point, likewise.
    pub(crate) fn last(&self) -> Option<i64> {
        self.files.iter().map(|f| f.last).max()
    }
    pub(crate) fn rows(&self) -> u64 {
        self.files.iter().map(|f| f.rows).sum()
    }
    pub(crate) fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }
}

/// What discovery knows of one host.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HostState {
    pub group_id: String,
    pub host_id: String,
    /// Whether the last listing of its project still had it.
    pub seen: bool,
    /// Its partitions and databases as last listed, and when (the server's clock, ms).
    #[serde(default)]
    pub partitions: Vec<String>,
    #[serde(default)]
    pub partitions_listed: Option<i64>,
    #[serde(default)]
    pub databases: Vec<String>,
    #[serde(default)]
    pub databases_listed: Option<i64>,
}

/// The whole state of a store, as the manifest holds it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct State {
    /// Bumped by every write of the manifest or a checkpoint.
    pub generation: u64,
    /// The number of the next data file (file names are unique within a store).
    pub next_file: u64,
    pub targets: BTreeMap<Key, TargetState>,
    pub hosts: BTreeMap<(String, String), HostState>,
    /// Files kept for readers of older manifests (see the module's documentation).
    pub retired: Vec<Retired>,
}

#[derive(Serialize, Deserialize)]
struct ManifestJson {
    format: u32,
    generation: u64,
    next_file: u64,
    #[serde(default)]
    targets: Vec<TargetJson>,
    #[serde(default)]
    hosts: Vec<HostState>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    retired: Vec<Retired>,
}

#[derive(Serialize, Deserialize)]
struct TargetJson {
    kind: String,
    granularity: String,
    group_id: String,
    host_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    asked_until: Option<i64>,
    last_sync: Option<i64>,
    seen: bool,
    files: Vec<FileEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    holes: Vec<Hole>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    gaps: Vec<Gap>,
}

impl State {
    /// The manifest's bytes.
    pub(crate) fn to_json(&self) -> Vec<u8> {
        let m = ManifestJson {
            format: FORMAT,
            generation: self.generation,
            next_file: self.next_file,
            targets: self
                .targets
                .iter()
                .map(|(k, t)| TargetJson {
                    kind: k.kind.as_str().into(),
                    granularity: k.granularity.into(),
                    group_id: k.group_id.clone(),
                    host_id: k.host_id.clone(),
                    name: k.name.clone(),
                    asked_until: t.asked_until,
                    last_sync: t.last_sync,
                    seen: t.seen,
                    files: t.files.clone(),
                    holes: t.holes.clone(),
                    gaps: t.gaps.clone(),
                })
                .collect(),
            hosts: self.hosts.values().cloned().collect(),
            retired: self.retired.clone(),
        };
        serde_json::to_vec(&m).unwrap_or_default()
    }

    /// A manifest's state; `path` names the file in the error.
    pub(crate) fn from_json(path: &Path, bytes: &[u8]) -> Result<Self> {
        let bad = |m: String| Error::io(path, format!("not an opsapi store manifest: {m}"));
        let m: ManifestJson = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
        if !(OLDEST_FORMAT..=FORMAT).contains(&m.format) {
            return Err(bad(format!(
                "format {} (this opsapi reads {OLDEST_FORMAT} to {FORMAT})",
                m.format
            )));
        }
        let mut targets = BTreeMap::new();
        for t in m.targets {
            let kind = Kind::parse(&t.kind).map_err(|e| bad(e.to_string()))?;
            let granularity = Granularity::parse("granularity", &t.granularity)
                .map_err(|e| bad(e.to_string()))?
                .as_str();
            let key = Key {
                kind,
                granularity,
                group_id: t.group_id,
                host_id: t.host_id,
                name: t.name,
            };
            let state = TargetState {
                asked_until: t.asked_until,
                last_sync: t.last_sync,
                seen: t.seen,
                files: t.files,
                holes: t.holes,
                gaps: t.gaps,
            };
            targets.insert(key, state);
        }
        let hosts = m
            .hosts
            .into_iter()
            .map(|h| ((h.group_id.clone(), h.host_id.clone()), h))
            .collect();
        Ok(Self {
            generation: m.generation,
            next_file: m.next_file,
            targets,
            hosts,
            retired: m.retired,
        })
    }

    /// Every file the state refers to, live or retired.
    pub(crate) fn file_names(&self) -> BTreeSet<&str> {
        self.targets
            .values()
            .flat_map(|t| t.files.iter().map(|f| f.name.as_str()))
            .chain(self.retired.iter().map(|r| r.name.as_str()))
            .collect()
    }

    /// Retires files at `now` (this machine's clock, ms): kept for older manifests' readers.
    pub(crate) fn retire(&mut self, names: impl IntoIterator<Item = String>, now: i64) {
        let known: BTreeSet<String> = self.retired.iter().map(|r| r.name.clone()).collect();
        for name in names {
            if !known.contains(&name) {
                self.retired.push(Retired { name, since: now });
            }
        }
    }
}

/// Reads one manifest file: `None` when there is none.
fn read(path: &Path) -> Result<Option<State>> {
    match std::fs::read(path) {
        Ok(bytes) => State::from_json(path, &bytes).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// What readers see: the manifest (an empty store when there is none).
pub(crate) fn load(root: &Path) -> Result<State> {
    Ok(read(&root.join(MANIFEST))?.unwrap_or_default())
}

/// Writes the state as `name` (the manifest or the checkpoint), replacing it whole.
pub(crate) fn write(root: &Path, name: &str, state: &State) -> Result<()> {
    durable::write_file(&root.join(name), &state.to_json())?;
    durable::sync_dir(root)
}

/// The state a killed sync left (its checkpoint, when newer than the manifest, becomes the
/// manifest). The files the manifest listed and the checkpoint does not (replaced by the
/// killed sync) are retired at `now` (this machine's clock, ms): readers of that manifest may
/// still be reading them. The writer starts with `garbage::recover`, which then
/// removes every file no state refers to.
pub(crate) fn recover(root: &Path, now: i64) -> Result<State> {
    let manifest = read(&root.join(MANIFEST))?.unwrap_or_default();
    let checkpoint_path = root.join(CHECKPOINT);
    let state = match read(&checkpoint_path)? {
        Some(mut c) if c.generation > manifest.generation => {
            let kept: BTreeSet<String> = c.file_names().into_iter().map(str::to_string).collect();
            for r in &manifest.retired {
                if !kept.contains(&r.name) {
                    c.retired.push(r.clone());
                }
            }
            let replaced: Vec<String> = manifest
                .targets
                .values()
                .flat_map(|t| t.files.iter().map(|f| f.name.clone()))
                .filter(|n| !kept.contains(n))
                .collect();
            c.retire(replaced, now);
            write(root, MANIFEST, &c)?;
            durable::remove(&checkpoint_path)?;
            c
        }
        Some(_) => {
            durable::remove(&checkpoint_path)?;
            manifest
        }
        None => manifest,
    };
    Ok(state)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn sample() -> State {
        let mut s = State {
            generation: 3,
            next_file: 9,
            ..State::default()
        };
        let key = Key::new(&Target::disk("g", "h", "data/db"), Granularity::PT1H);
        s.targets.insert(
            key,
            TargetState {
                asked_until: Some(7),
                last_sync: Some(8),
                seen: false,
                files: vec![FileEntry {
                    name: "kind=disk/x.parquet".into(),
                    rows: 4,
                    bytes: 100,
                    first: 1,
                    last: 7,
                    checksum: Some("xxh3:00000000000000ff".into()),
                    modified: Some(12),
                }],
                holes: vec![Hole {
                    first: 1,
                    last: 2,
                    rows: 3,
                }],
                gaps: vec![Gap {
                    first: 1,
                    last: 2,
                    points: 1,
                }],
            },
        );
        s.retired.push(Retired {
            name: "kind=disk/old.parquet".into(),
            since: 5,
        });
        s.hosts.insert(
            ("g".into(), "h".into()),
            HostState {
                group_id: "g".into(),
                host_id: "h".into(),
                seen: true,
                partitions: vec!["data/db".into()],
                partitions_listed: Some(5),
                ..HostState::default()
            },
        );
        s
    }

    #[test]
    fn the_manifest_round_trips() {
        let s = sample();
        let back = State::from_json(Path::new("m"), &s.to_json()).unwrap();
        assert_eq!(back, s);
        let t = back.targets.values().next().unwrap();
        assert_eq!((t.first(), t.last(), t.rows()), (Some(1), Some(7), 4));
        assert_eq!(
            back.targets.keys().next().unwrap().target(),
            Target::disk("g", "h", "data/db")
        );
    }

    #[test]
    fn a_foreign_file_is_an_error_naming_it() {
        let e = State::from_json(Path::new("store/MANIFEST.json"), b"{}").unwrap_err();
        assert!(e.to_string().contains("store/MANIFEST.json"), "{e}");
        let e = State::from_json(
            Path::new("m"),
            br#"{"format":99,"generation":0,"next_file":0}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("format 99"), "{e}");
    }

    #[test]
    fn a_format_1_manifest_is_read_without_checksums() {
        let v1 = br#"{"format":1,"generation":2,"next_file":3,"targets":[{"kind":"host",
            "granularity":"PT1H","group_id":"g","host_id":"h","asked_until":7,"last_sync":8,
            "seen":true,"files":[{"name":"kind=host/f.parquet","rows":4,"bytes":9,"first":1,
            "last":7}]}]}"#;
        let s = State::from_json(Path::new("m"), v1).unwrap();
        let t = s.targets.values().next().unwrap();
        assert_eq!(t.files[0].checksum, None);
        assert!(t.holes.is_empty() && s.retired.is_empty());
        // Written back, it is format 2.
        assert!(String::from_utf8(s.to_json())
            .unwrap()
            .contains(r#""format":2"#));
    }

    /// A store interrupted after a sync wrote its checkpoint (generation 4, over a manifest
    /// of 3): a live data file, a stray one and a torn temporary manifest beside them.
    /// Returns the checkpoint's state and the two files.
    pub(in crate::store) fn interrupted_store(
        root: &Path,
    ) -> (State, std::path::PathBuf, std::path::PathBuf) {
        let mut s = sample();
        write(root, MANIFEST, &s).unwrap();
        s.generation = 4;
        let data = root.join("kind=disk/x.parquet");
        std::fs::create_dir_all(data.parent().unwrap()).unwrap();
        std::fs::write(&data, b"live").unwrap();
        let stray = root.join("kind=disk/g/stray.parquet");
        std::fs::create_dir_all(stray.parent().unwrap()).unwrap();
        std::fs::write(&stray, b"x").unwrap();
        std::fs::write(root.join(".MANIFEST.json.tmp"), b"torn").unwrap();
        write(root, CHECKPOINT, &s).unwrap();
        (s, data, stray)
    }

    #[test]
    fn a_newer_checkpoint_becomes_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let (mut s, data, stray) = interrupted_store(root);
        let got = recover(root, 100).unwrap();
        assert_eq!(got, s);
        assert_eq!(load(root).unwrap(), s);
        assert!(!root.join(CHECKPOINT).exists());
        // Nothing else is removed here: that is the writer's start (garbage::recover).
        assert!(data.exists() && stray.exists());
        // An older checkpoint (a sync that finished after writing it) is dropped.
        s.generation = 2;
        write(root, CHECKPOINT, &s).unwrap();
        assert_eq!(recover(root, 100).unwrap().generation, 4);
        assert!(!root.join(CHECKPOINT).exists());
    }

    #[test]
    fn files_a_killed_sync_replaced_are_retired_not_removed() {
        // The manifest lists `a`; the killed sync's checkpoint replaced it by `b`. A reader of
        // the manifest may be reading `a`: it stays, retired, until its grace period is over.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut s = sample();
        s.retired.clear();
        let t = s.targets.values_mut().next().unwrap();
        t.files[0].name = "kind=disk/a.parquet".into();
        write(root, MANIFEST, &s).unwrap();
        let t = s.targets.values_mut().next().unwrap();
        t.files[0].name = "kind=disk/b.parquet".into();
        s.generation += 1;
        write(root, CHECKPOINT, &s).unwrap();
        std::fs::create_dir_all(root.join("kind=disk")).unwrap();
        for f in ["a", "b"] {
            std::fs::write(root.join(format!("kind=disk/{f}.parquet")), b"x").unwrap();
        }
        let got = recover(root, 100).unwrap();
        assert_eq!(
            got.retired,
            [Retired {
                name: "kind=disk/a.parquet".into(),
                since: 100
            }]
        );
        assert_eq!(load(root).unwrap(), got);
        assert!(root.join("kind=disk/a.parquet").exists());
        assert!(root.join("kind=disk/b.parquet").exists());
    }
}
