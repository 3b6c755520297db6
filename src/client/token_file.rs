//! The access tokens of Atlas service accounts, shared by the processes of one machine: a cron
//! job's runs, a Dask cluster's workers and a shell's commands take one token between them
//! instead of buying one each from a token endpoint that allows about ten a minute.
//!
//! - The cache is `tokens.json` in the user's cache folder ([`default_dir`]). Per base URL
//!   and client id (a digest of the two: neither is written) it holds the token and its
//!   expiry, by the server's clock and by this machine's. Never the secret.
//! - It is written whole to a new file renamed over the old one, so that a reader never sees
//!   half of one. It and its lock (`tokens.lock`) are created with mode 0600, in a folder of
//!   mode 0700.
//! - A process buys a token while it holds the lock (flock: the kernel releases it when the
//!   process dies). The others wait for the lock, then take the token it wrote.
//! - Nothing is trusted unless it is the user's own and no one else may write it (nor, for
//!   the files, read it). A file that is not, that is not the cache's JSON, or whose token
//!   makes no sense, is ignored; the next purchase replaces it.
//! - The cache never fails a request: where it cannot be read or written, the client buys
//!   and keeps its token as if there were no cache.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use md5::{Digest as _, Md5};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

/// The cache file and its lock, in the folder.
const FILE: &str = "tokens.json";
const LOCK: &str = "tokens.lock";
/// The version of the file's layout: a file of another is ignored (and replaced).
const FORMAT: u32 = 1;
/// A larger file is not the cache's (hundreds of tokens take a few tens of KB).
const MAX_FILE_BYTES: u64 = 1 << 20;
/// The most tokens kept: those expiring soonest go first.
const MAX_ENTRIES: usize = 256;
/// The longest wait for another process's purchase: one takes a round trip, or a token
/// endpoint's `Retry-After`. A process stopped while it holds the lock does not stop the
/// others for longer.
const LOCK_PATIENCE: Duration = Duration::from_secs(15);
/// How often a waiting process tries the lock again.
const LOCK_POLL: Duration = Duration::from_millis(10);

/// The folder of the cache: `$XDG_CACHE_HOME/opsapi` where that variable is set (on every
/// platform, as `XDG_CONFIG_HOME` is for the config file), else `~/.cache/opsapi`,
/// `~/Library/Caches/opsapi` on macOS and `%LOCALAPPDATA%\opsapi` on Windows. `None` where
/// none of these is known (no home folder): then the client keeps its token to itself.
pub(crate) fn default_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if let Some(xdg) = var("XDG_CACHE_HOME") {
        return Some(xdg.join("opsapi"));
    }
    if cfg!(windows) {
        return var("LOCALAPPDATA").map(|p| p.join("opsapi"));
    }
    let home = var("HOME")?;
    Some(if cfg!(target_os = "macos") {
        home.join("Library").join("Caches").join("opsapi")
    } else {
        home.join(".cache").join("opsapi")
    })
}

/// One client's place in the cache: the folder and its key.
#[derive(Clone)]
pub(crate) struct TokenFile {
    dir: PathBuf,
    /// The hex MD5 of the base URL and the client id: a name, not a secret (a key pasted into
    /// the base URL by mistake is not written either).
    key: String,
}

impl std::fmt::Debug for TokenFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenFile").field("dir", &self.dir).finish()
    }
}

/// A token as the cache holds it: the token, when it was issued and when it expires by the
/// server's clock (which judges it), and its expiry by this machine's as it was when the token
/// was bought (for a process that has had no answer of the server's yet, and to drop the
/// tokens that have expired). Its lifetime (issued to expiry) sets when it is bought again,
/// for the processes that take it as for the one that bought it. (No `Debug`: it would show
/// the token.)
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub(crate) access_token: String,
    /// `None` in a cache written before it was kept: the client then assumes Atlas's hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) issued: Option<DateTime<Utc>>,
    pub(crate) expires: DateTime<Utc>,
    pub(crate) expires_here: DateTime<Utc>,
}

impl Entry {
    /// The server's clock minus this machine's when the token was bought.
    pub(crate) fn offset(&self) -> TimeDelta {
        self.expires.signed_duration_since(self.expires_here)
    }

    /// Whether it can be a token at all: text, that has not expired by this machine's clock,
    /// does not expire more than 366 days from now, and was bought from a server whose clock
    /// was less than a century from this machine's. A token that passes and is still refused
    /// is answered by buying another (see `oauth.rs`).
    fn sane(&self) -> bool {
        let now = Utc::now();
        !self.access_token.is_empty()
            && self.expires_here > now
            && self.expires_here <= now + TimeDelta::days(366)
            && self.offset().abs() <= TimeDelta::days(36_525)
    }
}

/// The file's layout.
#[derive(Default, Serialize, Deserialize)]
struct Contents {
    format: u32,
    tokens: BTreeMap<String, Entry>,
}

/// The cache's lock, held until dropped (closing the file releases it).
pub(crate) struct FileLock {
    _file: File,
}

impl TokenFile {
    /// The place in the cache under `dir` of the client of `base` (the normalized base URL)
    /// with `client_id`.
    pub(crate) fn new(dir: PathBuf, base: &str, client_id: &str) -> Self {
        let digest = Md5::new()
            .chain_update(base.as_bytes())
            .chain_update(b"\n")
            .chain_update(client_id.as_bytes())
            .finalize();
        let key = digest.iter().map(|b| format!("{b:02x}")).collect();
        Self { dir, key }
    }

    /// The folder of the cache.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The client's token in the cache, if the cache can be trusted and holds a sane one.
    pub(crate) fn read(&self) -> Option<Entry> {
        let dir = self.trusted_dir()?;
        let contents = read_contents(&dir.join(FILE))?;
        contents.tokens.get(&self.key).filter(|e| e.sane()).cloned()
    }

    /// Takes the cache's lock, waiting (polled) while another process holds it, until
    /// `deadline` or for [`LOCK_PATIENCE`]. `None`: not taken (no folder that can be trusted,
    /// no lock file, or waited long enough); the caller buys without it.
    pub(crate) async fn lock(&self, deadline: Instant) -> Option<FileLock> {
        let dir = self.prepared_dir()?;
        let path = dir.join(LOCK);
        let file = match private_file()
            .read(true)
            .write(true)
            .create(true)
            .open(&path)
        {
            Ok(file) => file,
            Err(e) => {
                tracing::debug!(target: "opsapi", path = %path.display(), error = %e,
                    "cannot open the token cache's lock; buying a token without it");
                return None;
            }
        };
        if !file.metadata().is_ok_and(|m| m.is_file() && ours(&m, true)) {
            tracing::warn!(target: "opsapi", path = %path.display(),
                "ignoring the token cache's lock: it is not this user's own, or others may \
                 read or write it");
            return None;
        }
        let give_up = deadline.min(Instant::now() + LOCK_PATIENCE);
        loop {
            // Fully qualified: Rust 1.89's std::fs::File::try_lock has the same name.
            match fs4::FileExt::try_lock(&file) {
                Ok(()) => return Some(FileLock { _file: file }),
                Err(fs4::TryLockError::WouldBlock) if Instant::now() + LOCK_POLL < give_up => {
                    tokio::time::sleep(LOCK_POLL).await;
                }
                Err(fs4::TryLockError::WouldBlock) => {
                    tracing::debug!(target: "opsapi",
                        "another process holds the token cache's lock; buying without it");
                    return None;
                }
                Err(fs4::TryLockError::Error(e)) => {
                    tracing::debug!(target: "opsapi", error = %e,
                        "cannot lock the token cache; buying without it");
                    return None;
                }
            }
        }
    }

    /// Keeps `entry` as the client's token, drops the tokens that have expired, and writes
    /// the cache whole (a new file renamed over the old). A failure is logged and otherwise
    /// ignored: the client has its token either way.
    pub(crate) fn write(&self, entry: &Entry) {
        let Some(dir) = self.prepared_dir() else {
            return;
        };
        let path = dir.join(FILE);
        let mut contents = read_contents(&path).unwrap_or_default();
        contents.format = FORMAT;
        contents.tokens.retain(|_, e| e.sane());
        contents.tokens.insert(self.key.clone(), entry.clone());
        while contents.tokens.len() > MAX_ENTRIES {
            let soonest = contents
                .tokens
                .iter()
                .filter(|(k, _)| **k != self.key)
                .min_by_key(|(_, e)| e.expires_here)
                .map(|(k, _)| k.clone());
            match soonest {
                Some(k) => contents.tokens.remove(&k),
                None => break,
            };
        }
        let tmp = dir.join(format!(
            ".{FILE}.{}.{:016x}.tmp",
            std::process::id(),
            fastrand::u64(..)
        ));
        let written = serde_json::to_vec(&contents)
            .map_err(std::io::Error::other)
            .and_then(|bytes| {
                let mut f = private_file().write(true).create_new(true).open(&tmp)?;
                f.write_all(&bytes)?;
                drop(f);
                std::fs::rename(&tmp, &path)
            });
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            tracing::debug!(target: "opsapi", path = %path.display(), error = %e,
                "cannot write the token cache");
        }
    }

    /// The folder, created (mode 0700) if missing, when it can be trusted.
    fn prepared_dir(&self) -> Option<&Path> {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        if let Err(e) = builder.create(&self.dir) {
            tracing::debug!(target: "opsapi", dir = %self.dir.display(), error = %e,
                "cannot create the token cache's folder");
            return None;
        }
        self.trusted_dir()
    }

    /// The folder, when it is this user's own and no one else may write in it.
    fn trusted_dir(&self) -> Option<&Path> {
        let meta = std::fs::metadata(&self.dir).ok()?;
        if meta.is_dir() && ours(&meta, false) {
            Some(&self.dir)
        } else {
            tracing::warn!(target: "opsapi", dir = %self.dir.display(),
                "not using the token cache: its folder is not this user's own, or others may \
                 write in it");
            None
        }
    }
}

/// The options of a file of the cache: never through a link, created with mode 0600.
fn private_file() -> OpenOptions {
    #[allow(unused_mut)]
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .mode(0o600);
    }
    options
}

/// Whether a file (`private`: others may neither read nor write it) or a folder (others may
/// not write in it) can be trusted: this user's own, closed to others. (Windows: the user's
/// profile folders are closed to others by their ACLs.)
#[cfg(unix)]
fn ours(meta: &std::fs::Metadata, private: bool) -> bool {
    use std::os::unix::fs::MetadataExt;
    let others = if private { 0o077 } else { 0o022 };
    meta.uid() == rustix::process::geteuid().as_raw() && meta.mode() & others == 0
}

#[cfg(not(unix))]
fn ours(_: &std::fs::Metadata, _: bool) -> bool {
    true
}

/// The cache at `path`, if it is there, can be trusted and is the cache's JSON.
fn read_contents(path: &Path) -> Option<Contents> {
    let file = private_file().read(true).open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || !ours(&meta, true) || meta.len() > MAX_FILE_BYTES {
        tracing::warn!(target: "opsapi", path = %path.display(),
            "ignoring the token cache: it is not this user's own, others may read or write \
             it, or it is too large to be one");
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES).read_to_end(&mut bytes).ok()?;
    match serde_json::from_slice::<Contents>(&bytes) {
        Ok(c) if c.format == FORMAT => Some(c),
        _ => {
            // Its text is not shown: it may hold tokens.
            tracing::debug!(target: "opsapi", path = %path.display(),
                "ignoring the token cache: not the cache's JSON");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A token expiring `lifetime` seconds from now, bought from a server `offset_ms` ahead.
    fn entry(token: &str, lifetime: i64, offset_ms: i64) -> Entry {
        let expires_here = Utc::now() + TimeDelta::seconds(lifetime);
        let expires = expires_here + TimeDelta::milliseconds(offset_ms);
        Entry {
            access_token: token.into(),
            issued: expires.checked_sub_signed(TimeDelta::seconds(3600)),
            expires,
            expires_here,
        }
    }

    fn cache(dir: &Path) -> TokenFile {
        TokenFile::new(
            dir.join("opsapi"),
            "https://cloud.mongodb.com/api/atlas/v2",
            "id",
        )
    }

    #[test]
    fn a_token_written_is_read_by_its_key_only_and_the_file_holds_no_key_in_clear() {
        let tmp = tempfile::tempdir().unwrap();
        let mine = cache(tmp.path());
        assert!(mine.read().is_none(), "nothing yet");
        mine.write(&entry("tok-1", 3600, -86_400_000));
        let got = mine.read().expect("the token written");
        assert_eq!(got.access_token, "tok-1");
        assert_eq!(got.offset(), TimeDelta::days(-1), "a server a day behind");
        let other = TokenFile::new(mine.dir().into(), "https://other/api/atlas/v2", "id");
        assert!(other.read().is_none(), "another server's key");
        other.write(&entry("tok-2", 3600, 0));
        assert_eq!(mine.read().unwrap().access_token, "tok-1", "both kept");
        let text = std::fs::read_to_string(mine.dir().join(FILE)).unwrap();
        assert!(
            !text.contains("cloud.mongodb.com") && !text.contains("\"id\""),
            "{text}"
        );
        let names: Vec<_> = std::fs::read_dir(mine.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, [FILE], "no temporary file left");
    }

    #[test]
    fn tokens_that_make_no_sense_are_not_read_and_expired_ones_are_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let c = cache(tmp.path());
        for bad in [
            entry("", 3600, 0),
            entry("t", 400 * 86_400, 0),
            entry("t", -1, 0),
            entry("t", -1, 3_600_000), // expired here, though not yet by the server's clock
        ] {
            c.write(&bad);
            assert!(c.read().is_none());
        }
        // Nor a server clock at the end (or the start) of time.
        for expires in [DateTime::<Utc>::MAX_UTC, DateTime::<Utc>::MIN_UTC] {
            c.write(&Entry {
                expires,
                ..entry("t", 3600, 0)
            });
            assert!(c.read().is_none());
        }
        assert!(c.read().is_none());
        c.write(&entry("ahead", 3600, 30 * 86_400_000));
        assert_eq!(
            c.read().unwrap().offset(),
            TimeDelta::days(30),
            "a month ahead"
        );
        c.write(&entry("old", -1, 0));
        let other = TokenFile::new(c.dir().into(), "b", "id");
        other.write(&entry("new", 3600, 0));
        let text = std::fs::read_to_string(c.dir().join(FILE)).unwrap();
        assert!(
            !text.contains("old"),
            "the expired one dropped by the next write: {text}"
        );
    }

    #[test]
    fn a_corrupt_or_foreign_file_is_ignored_and_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let c = cache(tmp.path());
        c.write(&entry("tok", 3600, 0));
        let path = c.dir().join(FILE);
        for junk in [
            &b"{\"format\": 1, \"tokens\": {"[..],
            b"\x00\xff garbage",
            br#"{"format": 2, "tokens": {}}"#,
            br#"{"format": 1, "tokens": {"k": 5}}"#,
            b"[]",
        ] {
            std::fs::write(&path, junk).unwrap();
            assert!(c.read().is_none());
        }
        c.write(&entry("tok-2", 3600, 0));
        assert_eq!(c.read().unwrap().access_token, "tok-2");
    }

    #[cfg(unix)]
    #[test]
    fn files_and_folders_others_may_touch_are_not_trusted() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let set = |p: &Path, m: u32| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
        };
        let tmp = tempfile::tempdir().unwrap();
        let c = cache(tmp.path());
        c.write(&entry("tok", 3600, 0));
        let path = c.dir().join(FILE);
        assert_eq!((mode(c.dir()), mode(&path)), (0o700, 0o600));
        for m in [0o644, 0o620, 0o602] {
            set(&path, m);
            assert!(c.read().is_none(), "a file of mode {m:o}");
        }
        set(&path, 0o600);
        assert!(c.read().is_some());
        set(c.dir(), 0o777);
        assert!(c.read().is_none(), "a folder anyone may write in");
        c.write(&entry("tok-2", 3600, 0));
        set(c.dir(), 0o700);
        assert_eq!(
            c.read().unwrap().access_token,
            "tok",
            "nothing written there"
        );
        // A link in the file's place is not followed.
        let elsewhere = tmp.path().join("elsewhere.json");
        std::fs::rename(&path, &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        assert!(c.read().is_none());
        c.write(&entry("tok-3", 3600, 0));
        assert_eq!(c.read().unwrap().access_token, "tok-3", "the link replaced");
        assert!(std::fs::read_to_string(&elsewhere).unwrap().contains("tok"));
        assert!(!std::fs::read_to_string(&elsewhere)
            .unwrap()
            .contains("tok-3"));
    }

    #[tokio::test]
    async fn one_lock_at_a_time_across_open_files() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (cache(tmp.path()), cache(tmp.path()));
        let far = Instant::now() + Duration::from_secs(60);
        let held = a.lock(far).await.expect("the lock");
        // flock belongs to the open file: a second opening, in this process too, waits.
        let soon = Instant::now() + Duration::from_millis(50);
        assert!(b.lock(soon).await.is_none(), "held by the first");
        drop(held);
        assert!(b.lock(far).await.is_some(), "released with its file");
    }
}
