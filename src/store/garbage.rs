//! What leaves the store's folder, and when: files no manifest or checkpoint refers to (a
//! killed sync's, never seen by a reader) at the start of every sync; files retired (replaced
//! by a compaction, out of the window) once their grace period is over, or at once by
//! [`vacuum`]. Symbolic links are neither followed nor removed, and a retired name that
//! resolves outside the store is forgotten, never removed (`contain`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::contain::Root;
use super::durable;
use super::manifest::{self, State, MANIFEST};
use crate::error::{Error, Result};

/// The writer's start (under the lock): the state a killed sync left
/// ([`manifest::recover`]), then every file that no state refers to removed ([`collect`]).
pub(crate) fn recover(root: &Path, now: i64) -> Result<State> {
    let state = manifest::recover(root, now)?;
    collect(root, &state)?;
    Ok(state)
}

/// Removes the files under the store's data folders that `state` does not refer to, live or
/// retired (and the temporary files a crash left), then the folders left empty. Symbolic links
/// are neither followed nor removed: nothing outside the store is touched.
pub(crate) fn collect(root: &Path, state: &State) -> Result<()> {
    let live: BTreeSet<PathBuf> = state
        .file_names()
        .into_iter()
        .map(|n| root.join(n))
        .collect();
    if let Ok(entries) = std::fs::read_dir(root) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            let Ok(kind) = e.file_type() else { continue };
            if name.starts_with("kind=") && kind.is_dir() {
                sweep(&path, &live)?;
            } else if durable::is_temp(&name) && kind.is_file() {
                durable::remove(&path)?;
            }
        }
    }
    Ok(())
}

/// [`collect`] below one folder; returns whether the folder is left empty (and so
/// removed).
fn sweep(dir: &Path, live: &BTreeSet<PathBuf>) -> Result<bool> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut empty = true;
    for e in entries.flatten() {
        let path = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => {
                if !sweep(&path, live)? {
                    empty = false;
                }
            }
            Ok(t) if t.is_file() && !live.contains(&path) => durable::remove(&path)?,
            // Live files, symbolic links (never followed nor removed), and what cannot be
            // told.
            _ => empty = false,
        }
    }
    if empty {
        durable::step(|| format!("rmdir {}", dir.display()));
        let _ = std::fs::remove_dir(dir);
    }
    Ok(empty)
}

/// Retired files whose grace period is over: dropped from the state, to be removed once the
/// manifest no longer lists them.
pub(crate) struct Expired {
    pub(crate) remove: Vec<PathBuf>,
    pub(crate) warnings: Vec<String>,
}

/// Drops from `state` the retired files retired more than `grace_ms` before `now`; those
/// inside the store are to be removed, one that resolves outside is only forgotten (and
/// said).
pub(crate) fn expire_retired(root: &Path, state: &mut State, now: i64, grace_ms: i64) -> Expired {
    let mut out = Expired {
        remove: Vec::new(),
        warnings: Vec::new(),
    };
    let mut resolver = Root::new(root);
    state.retired.retain(|r| {
        if now.saturating_sub(r.since) < grace_ms {
            return true;
        }
        match resolver.resolve(&r.name) {
            Ok(path) => out.remove.push(path),
            Err(why) => out.warnings.push(format!(
                "{} (a retired file) {why}: left where it is, and no longer listed",
                root.join(&r.name).display()
            )),
        }
        false
    });
    out
}

/// Removes every retired file now (`Store::vacuum`), under the writer's lock; returns how many.
pub(crate) fn vacuum(root: &Path) -> Result<usize> {
    if !root.join(MANIFEST).exists() {
        return Ok(0);
    }
    let _lock = durable::lock_blocking(root)?;
    let mut state = manifest::recover(root, chrono::Utc::now().timestamp_millis())?;
    if state.retired.is_empty() {
        return Ok(0);
    }
    let expired = expire_retired(root, &mut state, i64::MAX, 0);
    state.generation += 1;
    manifest::write(root, MANIFEST, &state)?;
    for path in &expired.remove {
        durable::remove(path)?;
    }
    collect(root, &state)?;
    Ok(expired.remove.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::manifest::load;

    #[test]
    fn the_writers_start_removes_strays_and_a_torn_temporary_keeps_the_live() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let (s, data, stray) = manifest::tests::interrupted_store(root);
        assert_eq!(recover(root, 100).unwrap(), s);
        assert_eq!(load(root).unwrap(), s);
        assert!(data.exists() && !stray.exists() && !stray.parent().unwrap().exists());
        assert!(!root.join(".MANIFEST.json.tmp").exists());
    }

    #[cfg(unix)]
    #[test]
    fn garbage_collection_never_follows_a_symbolic_link() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("store");
        let outside = dir.path().join("home");
        std::fs::create_dir_all(root.join("kind=host")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("precious.txt"), b"x").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("kind=disk")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("kind=host/link")).unwrap();
        collect(&root, &State::default()).unwrap();
        assert!(outside.join("precious.txt").exists());
        assert!(root.join("kind=host/link").exists());
    }
}
