//! Writes that survive a crash, the one-writer lock, and the test hook at every write.
//!
//! A file is written under a temporary name next to its final one, fsynced, renamed over the
//! final name, and its folder fsynced: after a crash the name holds either the old file or the
//! whole new one (the shape SQLite, LMDB and Delta Lake's log rest on). Temporary names start
//! with a dot and end in `.tmp`: no reader's glob (`**/*.parquet`) matches them, and the next
//! sync removes the ones a crash left.
//!
//! The lock is an OS file lock (`flock` on Unix, `LockFileEx` on Windows) on `.lock` in the
//! store's folder: the kernel releases it when its process dies, so a killed sync never leaves
//! the store locked.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use crate::error::{Error, Result};

/// The environment variable of the write hook (tests only): `count` prints one line per write
/// step to stderr (`opsapi-store-write N LABEL`); `pause:N` prints
/// `opsapi-store-pause N LABEL` just before the N-th step and waits there (at most a minute,
/// then aborts) for the test to kill the process. Any other value, or none: nothing.
pub const WRITE_HOOK_ENV: &str = "OPSAPI_STORE_WRITES";

enum Hook {
    Count,
    PauseAt(u64),
}

fn hook() -> Option<&'static Hook> {
    static HOOK: OnceLock<Option<Hook>> = OnceLock::new();
    HOOK.get_or_init(|| {
        let v = std::env::var(WRITE_HOOK_ENV).ok()?;
        match v.trim() {
            "count" => Some(Hook::Count),
            other => other
                .strip_prefix("pause:")
                .and_then(|n| n.parse().ok())
                .map(Hook::PauseAt),
        }
    })
    .as_ref()
}

/// One write step (a file's bytes, an fsync, a rename, a deletion, a manifest): the point
/// where a test's hook can stop the process to be killed. A no-op without the hook.
pub(crate) fn step(label: impl FnOnce() -> String) {
    static STEPS: AtomicU64 = AtomicU64::new(0);
    let Some(hook) = hook() else { return };
    let n = STEPS.fetch_add(1, Ordering::SeqCst) + 1;
    match hook {
        Hook::Count => eprintln!("opsapi-store-write {n} {}", label()),
        Hook::PauseAt(at) if *at == n => {
            eprintln!("opsapi-store-pause {n} {}", label());
            let _ = std::io::stderr().flush();
            // The test kills the process here; never going on past the point it asked for.
            std::thread::sleep(Duration::from_secs(60));
            std::process::abort();
        }
        Hook::PauseAt(_) => {}
    }
}

fn io(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::io(path, e)
}

/// The temporary name of `path`: `.NAME.tmp` in the same folder.
pub(crate) fn temp_name(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp"))
}

/// Whether a file name is a temporary one ([`temp_name`]).
pub(crate) fn is_temp(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}

/// Writes `bytes` to `path` through a temporary file: written, fsynced, renamed over `path`.
/// The folder is not fsynced here ([`sync_dir`]), so that many files of one folder cost one.
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temp_name(path);
    step(|| format!("create {}", tmp.display()));
    let mut f = File::create(&tmp).map_err(|e| io(&tmp, e))?;
    // In two halves, with a step between: a kill there leaves a torn temporary file, which
    // nothing may ever read.
    let half = bytes.len() / 2;
    f.write_all(&bytes[..half]).map_err(|e| io(&tmp, e))?;
    step(|| format!("write-half {}", tmp.display()));
    f.write_all(&bytes[half..]).map_err(|e| io(&tmp, e))?;
    step(|| format!("fsync {}", tmp.display()));
    f.sync_all().map_err(|e| io(&tmp, e))?;
    drop(f);
    step(|| format!("rename {}", path.display()));
    std::fs::rename(&tmp, path).map_err(|e| io(path, e))?;
    Ok(())
}

/// Fsyncs a folder, so that the renames and creations in it survive a crash. (On Windows a
/// folder cannot be opened as a file; NTFS journals renames itself.)
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    step(|| format!("fsync-dir {}", dir.display()));
    #[cfg(unix)]
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io(dir, e))?;
    Ok(())
}

/// Creates `root/rel` and the folders above it that are missing; the folders each new one was
/// created in go to `dirty`, to be fsynced ([`sync_dirs`]) before anything refers to them.
pub(crate) fn ensure_dir(root: &Path, rel: &Path, dirty: &mut Vec<PathBuf>) -> Result<PathBuf> {
    let mut dir = root.to_path_buf();
    for part in rel.components() {
        let next = dir.join(part);
        if !next.is_dir() {
            step(|| format!("mkdir {}", next.display()));
            match std::fs::create_dir(&next) {
                Ok(()) => dirty.push(dir.clone()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(io(&next, e)),
            }
        }
        dir = next;
    }
    Ok(dir)
}

/// Fsyncs many folders at once, on up to 16 threads: a disk's journal commits concurrent
/// fsyncs together (on this project's 2-core VM, 16 at once cost 0.35 ms a file where one at
/// a time cost 7.6 ms).
pub(crate) fn sync_dirs(dirs: &[PathBuf]) -> Result<()> {
    let per = dirs.len().div_ceil(16).max(1);
    std::thread::scope(|s| {
        let tasks: Vec<_> = dirs
            .chunks(per)
            .map(|chunk| s.spawn(move || chunk.iter().try_for_each(|d| sync_dir(d))))
            .collect();
        tasks
            .into_iter()
            .try_for_each(|t| t.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    })
}

/// Removes a file that no manifest refers to any more; one already gone is fine.
pub(crate) fn remove(path: &Path) -> Result<()> {
    step(|| format!("delete {}", path.display()));
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(path, e)),
        _ => Ok(()),
    }
}

/// The store's writer lock, held until dropped (or until its process dies).
#[derive(Debug)]
pub(crate) struct Lock {
    _file: File,
}

/// The lock file, opened (created when missing).
fn lock_file(root: &Path) -> Result<(PathBuf, File)> {
    let path = root.join(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| io(&path, e))?;
    Ok((path, file))
}

/// One try at the lock: `true` when taken, `false` when another process holds it.
fn try_lock(path: &Path, file: &File) -> Result<bool> {
    // Fully qualified: Rust 1.89's std::fs::File::try_lock has the same name.
    match fs4::FileExt::try_lock(file) {
        Ok(()) => Ok(true),
        Err(fs4::TryLockError::WouldBlock) => Ok(false),
        Err(fs4::TryLockError::Error(e)) => Err(io(path, e)),
    }
}

/// Takes the store's writer lock: waiting for it (polled, so that cancelling the sync ends
/// the wait), or failing at once with [`Error::StoreLocked`].
pub(crate) async fn lock(root: &Path, wait: bool) -> Result<Lock> {
    let (path, file) = lock_file(root)?;
    while !try_lock(&path, &file)? {
        if !wait {
            return Err(Error::StoreLocked {
                path: root.to_path_buf(),
            });
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(Lock { _file: file })
}

/// Takes the store's writer lock from a thread that may block (`Store::vacuum`): waits for
/// it, polling as [`lock`] does.
pub(crate) fn lock_blocking(root: &Path) -> Result<Lock> {
    let (path, file) = lock_file(root)?;
    while !try_lock(&path, &file)? {
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(Lock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_hidden_and_recognised() {
        let t = temp_name(Path::new("a/b/host.2026-03.7.parquet"));
        assert_eq!(t, Path::new("a/b/.host.2026-03.7.parquet.tmp"));
        assert!(is_temp(".host.2026-03.7.parquet.tmp"));
        assert!(!is_temp("host.2026-03.7.parquet"));
    }

    #[test]
    fn a_file_is_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        write_file(&p, b"first").unwrap();
        write_file(&p, b"second").unwrap();
        sync_dir(dir.path()).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"second");
        assert!(!temp_name(&p).exists());
        remove(&p).unwrap();
        remove(&p).unwrap(); // already gone: fine
        let mut dirty = Vec::new();
        let made = ensure_dir(dir.path(), Path::new("a/b"), &mut dirty).unwrap();
        assert_eq!(made, dir.path().join("a/b"));
        assert_eq!(dirty, [dir.path().to_path_buf(), dir.path().join("a")]);
        sync_dirs(&dirty).unwrap();
    }

    #[tokio::test]
    async fn one_writer_at_a_time_and_the_lock_goes_with_its_holder() {
        let dir = tempfile::tempdir().unwrap();
        let held = lock(dir.path(), false).await.unwrap();
        match lock(dir.path(), false).await {
            Err(Error::StoreLocked { path }) => assert_eq!(path, dir.path()),
            other => panic!("{other:?}"),
        }
        drop(held);
        lock(dir.path(), false).await.unwrap();
    }
}
