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
//! Files that neither refers to (written after the last checkpoint of a killed sync, or
//! replaced by a compaction whose sync died before deleting them) are removed when the next
//! sync starts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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
/// The manifest's format.
const FORMAT: u32 = 1;

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
                })
                .collect(),
            hosts: self.hosts.values().cloned().collect(),
        };
        serde_json::to_vec(&m).unwrap_or_default()
    }

    /// A manifest's state; `path` names the file in the error.
    pub(crate) fn from_json(path: &Path, bytes: &[u8]) -> Result<Self> {
        let bad = |m: String| Error::io(path, format!("not an opsapi store manifest: {m}"));
        let m: ManifestJson = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
        if m.format != FORMAT {
            return Err(bad(format!(
                "format {} (this opsapi reads {FORMAT})",
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
        })
    }

    /// Every file the state refers to.
    pub(crate) fn file_names(&self) -> BTreeSet<&str> {
        self.targets
            .values()
            .flat_map(|t| t.files.iter().map(|f| f.name.as_str()))
            .collect()
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

/// The writer's start (under the lock): the state a killed sync left (its checkpoint, when
/// newer than the manifest, becomes the manifest), with every file that state does not refer
/// to removed.
pub(crate) fn recover(root: &Path) -> Result<State> {
    let manifest = read(&root.join(MANIFEST))?.unwrap_or_default();
    let checkpoint_path = root.join(CHECKPOINT);
    let state = match read(&checkpoint_path)? {
        Some(c) if c.generation > manifest.generation => {
            durable::step(|| format!("rename {}", root.join(MANIFEST).display()));
            std::fs::rename(&checkpoint_path, root.join(MANIFEST))
                .map_err(|e| Error::io(&checkpoint_path, e))?;
            durable::sync_dir(root)?;
            c
        }
        Some(_) => {
            durable::remove(&checkpoint_path)?;
            manifest
        }
        None => manifest,
    };
    collect_garbage(root, &state)?;
    Ok(state)
}

/// Removes the files under the store's data folders that `state` does not refer to (and the
/// temporary files a crash left), then the folders left empty.
pub(crate) fn collect_garbage(root: &Path, state: &State) -> Result<()> {
    let live: BTreeSet<PathBuf> = state
        .file_names()
        .into_iter()
        .map(|n| root.join(n))
        .collect();
    if let Ok(entries) = std::fs::read_dir(root) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            if name.starts_with("kind=") && path.is_dir() {
                sweep(&path, &live)?;
            } else if durable::is_temp(&name) {
                durable::remove(&path)?;
            }
        }
    }
    Ok(())
}

/// [`collect_garbage`] below one folder; returns whether the folder is left empty (and so
/// removed).
fn sweep(dir: &Path, live: &BTreeSet<PathBuf>) -> Result<bool> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut empty = true;
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            if !sweep(&path, live)? {
                empty = false;
            }
        } else if live.contains(&path) {
            empty = false;
        } else {
            durable::remove(&path)?;
        }
    }
    if empty {
        durable::step(|| format!("rmdir {}", dir.display()));
        let _ = std::fs::remove_dir(dir);
    }
    Ok(empty)
}

#[cfg(test)]
mod tests {
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
                }],
            },
        );
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
    fn a_newer_checkpoint_becomes_the_manifest_and_strays_go() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
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
        let got = recover(root).unwrap();
        assert_eq!(got, s);
        assert_eq!(load(root).unwrap(), s);
        assert!(!root.join(CHECKPOINT).exists());
        assert!(data.exists() && !stray.exists() && !stray.parent().unwrap().exists());
        assert!(!root.join(".MANIFEST.json.tmp").exists());
        // An older checkpoint (a sync that finished after writing it) is dropped.
        s.generation = 2;
        write(root, CHECKPOINT, &s).unwrap();
        assert_eq!(recover(root).unwrap().generation, 4);
        assert!(!root.join(CHECKPOINT).exists());
    }
}
