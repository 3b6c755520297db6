//! Writing one target's new points: month by month, each file whole under a temporary name,
//! a month's files compacted when it has enough.
//!
//! A target with holes (spans it lost, answered again) is written in repair mode: each month
//! the answer touches is rewritten whole with the answer, each point once (the stored one kept
//! where both have it). A hole is the span of the lost file, and a file's span may enclose
//! another file's points (a compaction merges a month's small files around its big one), so
//! the answer to a hole may hold points the store still has.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::manifest::FileEntry;
use super::plan::{self, Plan};
use super::{check, durable, files};
use crate::error::{Error, Result};
use crate::models::Measurements;

/// What writing one target's new points did.
#[derive(Default)]
pub(super) struct Written {
    pub(super) added: Vec<FileEntry>,
    pub(super) removed: Vec<String>,
    pub(super) points: u64,
    pub(super) bytes: u64,
    /// For each hole of the plan, the points it got back (new to the store, inside its span).
    pub(super) hole_points: Vec<u64>,
    /// Folders whose entries changed (to fsync before a manifest refers to them).
    pub(super) dirs: Vec<PathBuf>,
}

/// Creates the store's folder (and its parent's entry, durably) on first use.
pub(super) fn create_root(root: &Path) -> Result<()> {
    if root.is_dir() {
        return Ok(());
    }
    let parent = match root.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
    let name = root.file_name().map(PathBuf::from).unwrap_or_default();
    let mut dirty = Vec::new();
    durable::ensure_dir(&parent, &name, &mut dirty)?;
    durable::sync_dirs(&dirty)
}

/// Writes one target's new points, month by month: a file of their own, or merged with the
/// month's small files (or all of them) when the month has enough; a past month still in
/// several files is merged into one. Every file is written whole under a temporary name,
/// fsynced and renamed; the folder is fsynced later, with the others of the same checkpoint.
pub(super) fn write_target(
    root: &Path,
    plan: &Plan,
    m: Measurements,
    seq: &AtomicU64,
    now_grid: i64,
) -> Result<Written> {
    let rel = super::target_dir(&plan.key);
    let mut w = Written::default();
    let dir = durable::ensure_dir(root, &rel, &mut w.dirs)?;
    let stem = super::file_stem(&plan.key);
    // Never written through a symbolic link that leaves the store: this target fails alone.
    super::contain::Root::new(root)
        .resolve(&format!("{}/{stem}", rel_str(&rel)))
        .map_err(|problem| Error::StoreFile {
            path: dir.clone(),
            problem,
        })?;
    let out = |frame: &mut polars::prelude::DataFrame, month: &str, w: &mut Written| {
        let Some((first, last)) = files::time_range(frame)? else {
            return Ok::<(), Error>(());
        };
        let bytes = files::encode(frame)?;
        let n = seq.fetch_add(1, Ordering::SeqCst);
        let name = format!("{stem}.{month}.{n:06}.parquet");
        let path = dir.join(&name);
        durable::write_file(&path, &bytes)?;
        let meta = std::fs::metadata(&path).map_err(|e| Error::io(&path, e))?;
        w.bytes += bytes.len() as u64;
        w.added.push(FileEntry {
            name: format!("{}/{name}", rel_str(&rel)),
            rows: frame.height() as u64,
            bytes: bytes.len() as u64,
            first,
            last,
            checksum: Some(check::checksum(&bytes)),
            modified: check::modified_ns(&meta),
        });
        Ok(())
    };
    let parts = files::by_month(&m)?;
    let current = plan::month_of(now_grid);
    let mut written_months = Vec::new();
    w.hole_points = vec![0; plan.holes.len()];
    for mut part in parts {
        let rows = part.frame.height() as u64;
        let in_month: Vec<&FileEntry> = plan
            .files
            .iter()
            .filter(|f| plan::month_of(f.first) == part.month)
            .collect();
        if !plan.holes.is_empty() {
            // Repair mode (see the module's documentation): the month rewritten whole.
            let mut frames = Vec::with_capacity(in_month.len() + 1);
            for f in &in_month {
                frames.push(read_checked(root, f)?);
                w.removed.push(f.name.clone());
            }
            let before: u64 = frames.iter().map(|f| f.height() as u64).sum();
            let held = |frames: &[polars::prelude::DataFrame], h: &super::manifest::Hole| {
                frames
                    .iter()
                    .map(|f| files::count_between(f, h.first, h.last))
                    .sum::<Result<u64>>()
            };
            let held_before: Vec<u64> = plan
                .holes
                .iter()
                .map(|h| held(&frames, h))
                .collect::<Result<_>>()?;
            frames.push(part.frame);
            let mut merged = files::merge_unique(frames)?;
            for (i, h) in plan.holes.iter().enumerate() {
                let now_held = files::count_between(&merged, h.first, h.last)?;
                w.hole_points[i] += now_held.saturating_sub(held_before[i]);
            }
            w.points += (merged.height() as u64).saturating_sub(before);
            out(&mut merged, &part.month, &mut w)?;
            written_months.push(part.month);
            continue;
        }
        w.points += rows;
        let merge = plan::to_merge(&in_month, rows);
        if merge.is_empty() {
            out(&mut part.frame, &part.month, &mut w)?;
        } else {
            let mut frames = Vec::with_capacity(merge.len() + 1);
            for &k in &merge {
                frames.push(read_checked(root, in_month[k])?);
                w.removed.push(in_month[k].name.clone());
            }
            frames.push(part.frame);
            let mut merged = files::merge(frames)?;
            out(&mut merged, &part.month, &mut w)?;
        }
        written_months.push(part.month);
    }
    // A month that is over and still in several files becomes one file.
    let mut past: Vec<String> = plan
        .files
        .iter()
        .map(|f| plan::month_of(f.first))
        .filter(|mo| *mo < current && !written_months.contains(mo))
        .collect();
    past.sort();
    past.dedup();
    for month in past {
        let in_month: Vec<&FileEntry> = plan
            .files
            .iter()
            .filter(|f| plan::month_of(f.first) == month)
            .collect();
        if in_month.len() < 2 {
            continue;
        }
        let mut frames = Vec::with_capacity(in_month.len());
        for f in &in_month {
            frames.push(read_checked(root, f)?);
            w.removed.push(f.name.clone());
        }
        let mut merged = files::merge(frames)?;
        out(&mut merged, &month, &mut w)?;
    }
    // Its folder is fsynced with the others' before the next checkpoint refers to its files.
    w.dirs.push(dir);
    Ok(w)
}

/// A file to compact, read whole and checked against its manifest entry first (a damaged
/// file fails its target's write, naming it; the next sync drops it and asks its span again).
fn read_checked(root: &Path, f: &FileEntry) -> Result<polars::prelude::DataFrame> {
    let path = root.join(&f.name);
    let bytes = check::read_whole(&path, f).map_err(|problem| Error::StoreFile {
        path: path.clone(),
        problem,
    })?;
    files::from_bytes(&path, bytes)
}

fn rel_str(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}
