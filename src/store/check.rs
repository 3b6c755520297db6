//! Integrity: what the manifest records of each file (size, checksum, modification time, rows)
//! checked against the file, in three depths.
//!
//! - [`check`] (`Store::check`, `opsapi store check`): every live file read whole: inside the
//!   store, present, its size, its checksum, a Parquet footer, its row count. Each bad file is
//!   named; nothing is changed (SQLite's `PRAGMA integrity_check`).
//! - [`verify_live`], at the start of every sync: size and modification time of every file (a
//!   `stat`), and the whole file where either changed; a bad or missing file is dropped from
//!   the manifest and its span becomes a *hole* of its target, asked of the server again.
//! - [`for_reading`], before a reader reads: inside, present, its size, the Parquet magic at
//!   both ends, so that a reader gets an error naming the file rather than a decoder's.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::contain::Root;
use super::manifest::{self, FileEntry, Hole, State};
use crate::error::Result;

/// The checksum the manifest records of a file's bytes: `xxh3:` and 16 hex digits.
pub(crate) fn checksum(bytes: &[u8]) -> String {
    format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}

/// A file's modification time, nanoseconds since the epoch.
pub(crate) fn modified_ns(meta: &std::fs::Metadata) -> Option<i64> {
    let t = meta.modified().ok()?;
    let d = t.duration_since(std::time::UNIX_EPOCH).ok()?;
    i64::try_from(d.as_nanos()).ok()
}

/// A file's bytes when they are what the manifest records (size, checksum when recorded, a
/// Parquet footer, the row count); else what is wrong.
pub(crate) fn read_whole(path: &Path, entry: &FileEntry) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "missing".to_string(),
        _ => format!("cannot be read: {e}"),
    })?;
    if bytes.len() as u64 != entry.bytes {
        return Err(size_problem(bytes.len() as u64, entry.bytes));
    }
    if let Some(want) = &entry.checksum {
        let got = checksum(&bytes);
        if &got != want {
            return Err(format!(
                "damaged: its checksum is {got}, the manifest records {want}"
            ));
        }
    }
    let meta = polars_parquet::read::read_metadata(&mut std::io::Cursor::new(&bytes))
        .map_err(|e| format!("not a Parquet file: {e}"))?;
    if meta.num_rows as u64 != entry.rows {
        return Err(format!(
            "holds {} rows, the manifest records {}",
            meta.num_rows, entry.rows
        ));
    }
    Ok(bytes)
}

fn size_problem(got: u64, want: u64) -> String {
    if got < want {
        format!("truncated: {got} bytes, the manifest records {want}")
    } else {
        format!("{got} bytes, the manifest records {want}")
    }
}

/// What a reader checks before reading a file: inside the store, present, of its size, and
/// Parquet at both ends (`PAR1`). Cheap: a `stat` and 8 bytes.
pub(crate) fn for_reading(root: &mut Root, entry: &FileEntry) -> Result<PathBuf, String> {
    let path = root.resolve(&entry.name)?;
    let mut f = std::fs::File::open(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "missing".to_string(),
        _ => format!("cannot be read: {e}"),
    })?;
    let len = f
        .metadata()
        .map_err(|e| format!("cannot be read: {e}"))?
        .len();
    if len != entry.bytes {
        return Err(size_problem(len, entry.bytes));
    }
    let mut head = [0u8; 4];
    let mut tail = [0u8; 4];
    let magic = (|| {
        f.read_exact(&mut head)?;
        f.seek(SeekFrom::End(-4))?;
        f.read_exact(&mut tail)
    })();
    if magic.is_err() || &head != b"PAR1" || &tail != b"PAR1" {
        return Err("damaged: not a Parquet file (no PAR1 at its start and end)".into());
    }
    Ok(path)
}

/// One bad file that [`Store::check`](super::Store::check) found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    /// The file: the store's folder joined with the manifest's name for it.
    pub path: PathBuf,
    /// What is wrong: `missing`, `truncated: ...`, `damaged: ...`, `outside the store ...`.
    pub problem: String,
}

/// What [`crate::store::Store::check`] found: every live file checked whole.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let store = opsapi::store::Store::new(dir.path().join("never-synced"));
/// let check = store.check().unwrap();
/// assert!(check.ok() && check.files == 0);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreCheck {
    /// Live files checked (as the manifest lists them).
    pub files: usize,
    /// Their bytes, as the manifest records them.
    pub bytes: u64,
    /// One entry per bad file, in the manifest's order.
    pub problems: Vec<FileProblem>,
}

impl StoreCheck {
    /// Whether every file is whole.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Checks every live file of the store at `root`, read whole. A bad file is a problem in the
/// result, never an error; an unreadable manifest is an error.
pub(crate) fn check(root: &Path) -> Result<StoreCheck> {
    let state = manifest::load(root)?;
    let mut resolver = Root::new(root);
    let mut out = StoreCheck::default();
    for t in state.targets.values() {
        for f in &t.files {
            out.files += 1;
            out.bytes += f.bytes;
            let problem = match resolver.resolve(&f.name) {
                Err(why) => Some(why),
                Ok(path) => read_whole(&path, f).err(),
            };
            if let Some(problem) = problem {
                out.problems.push(FileProblem {
                    path: root.join(&f.name),
                    problem,
                });
            }
        }
    }
    Ok(out)
}

/// The sync's look at every live file (see the module's documentation): a bad one is dropped
/// from `state` and becomes a hole of its target; files without a checksum (format 1) or
/// changed since they were written get theirs recorded when they are whole. Returns the bad
/// files: their name and what is wrong.
pub(crate) fn verify_live(root: &Path, state: &mut State) -> Vec<(String, String)> {
    let mut resolver = Root::new(root);
    let mut bad = Vec::new();
    for t in state.targets.values_mut() {
        let mut holes = Vec::new();
        t.files.retain_mut(|f| {
            let problem = match resolver.resolve(&f.name) {
                Err(why) => Some(why),
                Ok(path) => quick(&path, f).err(),
            };
            match problem {
                None => true,
                Some(problem) => {
                    holes.push(Hole {
                        first: f.first,
                        last: f.last,
                        rows: f.rows,
                    });
                    bad.push((f.name.clone(), problem));
                    false
                }
            }
        });
        t.holes.extend(holes);
    }
    bad
}

/// One file's quick look: its size and modification time against the manifest's, and the
/// whole file read where they differ (or no checksum is recorded yet), recording them then.
fn quick(path: &Path, f: &mut FileEntry) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "missing".to_string(),
        _ => format!("cannot be read: {e}"),
    })?;
    if meta.len() != f.bytes {
        return Err(size_problem(meta.len(), f.bytes));
    }
    let modified = modified_ns(&meta);
    if f.checksum.is_some() && modified.is_some() && modified == f.modified {
        return Ok(());
    }
    let bytes = read_whole(path, f)?;
    f.checksum = Some(checksum(&bytes));
    f.modified = modified;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parquet(rows: usize) -> Vec<u8> {
        use polars::prelude::*;
        let mut df = df!("value" => vec![1.0f64; rows]).unwrap();
        let mut out = Vec::new();
        ParquetWriter::new(&mut out).finish(&mut df).unwrap();
        out
    }

    fn entry(name: &str, bytes: &[u8], rows: u64) -> FileEntry {
        FileEntry {
            name: name.into(),
            rows,
            bytes: bytes.len() as u64,
            first: 0,
            last: 1,
            checksum: Some(checksum(bytes)),
            modified: None,
        }
    }

    #[test]
    fn every_kind_of_damage_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let good = parquet(3);
        let p = dir.path().join("f.parquet");
        std::fs::write(&p, &good).unwrap();
        let e = entry("f.parquet", &good, 3);
        assert!(read_whole(&p, &e).is_ok());
        // Another row count than recorded.
        let mut wrong_rows = e.clone();
        wrong_rows.rows = 4;
        assert!(read_whole(&p, &wrong_rows)
            .unwrap_err()
            .contains("holds 3 rows"));
        // The same size, other bytes.
        let mut noise = good.clone();
        noise[good.len() / 2] ^= 0xff;
        std::fs::write(&p, &noise).unwrap();
        assert!(read_whole(&p, &e)
            .unwrap_err()
            .starts_with("damaged: its checksum"));
        // Truncated, and a reader's look says so too.
        std::fs::write(&p, &good[..good.len() - 10]).unwrap();
        assert!(read_whole(&p, &e).unwrap_err().starts_with("truncated"));
        let mut root = Root::new(dir.path());
        assert!(for_reading(&mut root, &e)
            .unwrap_err()
            .starts_with("truncated"));
        // Noise of the same size: no Parquet magic.
        std::fs::write(&p, vec![7u8; good.len()]).unwrap();
        assert!(for_reading(&mut root, &e)
            .unwrap_err()
            .contains("not a Parquet"));
        // No checksum recorded (format 1): the footer still counts.
        let mut v1 = e.clone();
        v1.checksum = None;
        assert!(read_whole(&p, &v1).unwrap_err().contains("not a Parquet"));
        std::fs::remove_file(&p).unwrap();
        assert_eq!(read_whole(&p, &e).unwrap_err(), "missing");
        assert_eq!(for_reading(&mut root, &e).unwrap_err(), "missing");
    }

    #[test]
    fn a_sync_reads_again_only_what_changed_and_drops_what_is_bad() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let good = parquet(2);
        std::fs::write(root.join("a.parquet"), &good).unwrap();
        std::fs::write(root.join("b.parquet"), &good[..20]).unwrap();
        let mut state = State::default();
        let key = manifest::Key::new(
            &crate::api::measurements::target::Target::host("g", "h"),
            crate::api::measurements::query::Granularity::PT1H,
        );
        let mut a = entry("a.parquet", &good, 2);
        a.checksum = None; // as a format-1 manifest has it
        let b = entry("b.parquet", &good, 2);
        let outside = entry("../x.parquet", &good, 2);
        state.targets.entry(key.clone()).or_default().files = vec![a, b, outside];
        let bad = verify_live(root, &mut state);
        let names: Vec<&str> = bad.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["b.parquet", "../x.parquet"]);
        let t = &state.targets[&key];
        assert_eq!(t.files.len(), 1);
        assert_eq!(
            t.files[0].checksum.as_deref(),
            Some(checksum(&good).as_str())
        );
        assert!(t.files[0].modified.is_some());
        assert_eq!(t.holes.len(), 2);
        assert_eq!(t.holes[0].rows, 2);
    }
}
