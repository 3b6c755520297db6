//! A sync: take the lock, recover what a killed sync left, discover the targets, ask each only
//! what is new (the fleet machinery: `fleet::spawned`, round-robin over projects, the client's
//! pacing), write each target's new points on a blocking thread (compacting its month when it
//! has enough files), checkpoint every few hundred targets, then drop what left the window and
//! commit the manifest.
//!
//! Memory holds one answer per request in flight and one target being written per writer, never
//! the whole fleet's points: what grows with the targets is the manifest (a few hundred bytes
//! each).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::stream::{FuturesUnordered, StreamExt};

use super::manifest::{self, FileEntry, Key, State, TargetState, CHECKPOINT, MANIFEST};
use super::write::{create_root, write_target, Written};
use super::{discover, durable, plan, Kind, Store};
use crate::api::measurements::{target_request, Granularity, MeasurementsQuery, Target};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::fleet::{Progress, ProgressFn, TargetFailure};
use crate::iso8601::IsoDuration;
use crate::models::Measurements;

/// Which targets a sync asks.
#[derive(Debug, Clone, Default)]
pub enum Targets {
    /// Every project, host, partition and database the key can see, discovered at each sync.
    #[default]
    All,
    /// These targets (as a fleet pull takes them), and no discovery.
    List(Vec<Target>),
}

/// How a sync runs: what to ask, at which granularity, how far back the store keeps data.
///
/// ```
/// use opsapi::store::{Kind, SyncOptions};
/// use opsapi::Granularity;
/// let o = SyncOptions::new(Granularity::PT1H, "P35D".parse().unwrap())
///     .kinds([Kind::Disk])
///     .metrics(Kind::Disk, ["DISK_PARTITION_SPACE_USED"]);
/// assert_eq!(o.kinds, [Kind::Disk]);
/// assert!(o.wait);
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct SyncOptions {
    /// `Targets::All` (the default) or a list.
    pub targets: Targets,
    /// With `Targets::All`, only these projects (`None`: every project the key can see). The
    /// store's targets of other projects are left as they are.
    pub projects: Option<Vec<String>>,
    /// The kinds of measurements discovery looks for (all three by default).
    pub kinds: Vec<Kind>,
    /// The granularity asked and stored.
    pub granularity: Granularity,
    /// How far back the store keeps data (whole days or hours: `P35D`).
    pub window: IsoDuration,
    /// Measurement names per kind; a kind not named gets every measurement.
    pub metrics: Vec<(Kind, Vec<String>)>,
    /// Wait for another sync of the same store to finish (`true`, the default), or fail at
    /// once with [`Error::StoreLocked`].
    pub wait: bool,
    /// How often discovery lists a known host's partitions and databases again (a day by
    /// default; new hosts are always listed).
    pub rediscover: Duration,
    /// Called after each target's data request.
    pub progress: Option<ProgressFn>,
}

impl std::fmt::Debug for SyncOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyncOptions")
            .field("targets", &self.targets)
            .field("projects", &self.projects)
            .field("kinds", &self.kinds)
            .field("granularity", &self.granularity)
            .field("window", &self.window)
            .field("metrics", &self.metrics)
            .field("wait", &self.wait)
            .field("rediscover", &self.rediscover)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl SyncOptions {
    /// Every target the key can see, every measurement, at `granularity`, keeping `window`.
    pub fn new(granularity: Granularity, window: IsoDuration) -> Self {
        Self {
            targets: Targets::All,
            projects: None,
            kinds: Kind::ALL.to_vec(),
            granularity,
            window,
            metrics: Vec::new(),
            wait: true,
            rediscover: Duration::from_secs(86_400),
            progress: None,
        }
    }
    /// Only these targets (no discovery).
    pub fn targets(mut self, targets: Vec<Target>) -> Self {
        self.targets = Targets::List(targets);
        self
    }
    /// With `Targets::All`, only these projects.
    pub fn projects<I, S>(mut self, group_ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.projects = Some(group_ids.into_iter().map(Into::into).collect());
        self
    }
    /// The kinds discovery looks for.
    pub fn kinds(mut self, kinds: impl IntoIterator<Item = Kind>) -> Self {
        self.kinds = kinds.into_iter().collect();
        self
    }
    /// Only these measurements of `kind`.
    pub fn metrics<I, S>(mut self, kind: Kind, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.metrics.retain(|(k, _)| *k != kind);
        self.metrics
            .push((kind, names.into_iter().map(Into::into).collect()));
        self
    }
    /// Waits for the lock (`true`) or fails at once.
    pub fn wait(mut self, wait: bool) -> Self {
        self.wait = wait;
        self
    }
    /// How often known hosts' partitions and databases are listed again.
    pub fn rediscover(mut self, every: Duration) -> Self {
        self.rediscover = every;
        self
    }
    /// A callback after each target's data request.
    pub fn progress(mut self, f: impl Fn(Progress<'_>) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }

    /// The window in milliseconds, checked: whole seconds, at least one step.
    fn window_ms(&self) -> Result<i64> {
        let secs = self
            .window
            .fixed_seconds()
            .filter(|s| *s >= self.granularity.seconds() as f64)
            .ok_or_else(|| {
                Error::invalid_argument(
                    "window",
                    format!(
                        "`{}` is not a fixed duration of at least one {} step: use days or \
                         hours, e.g. P35D",
                        self.window, self.granularity
                    ),
                )
            })?;
        Ok((secs * 1000.0) as i64)
    }

    fn query(&self, kind: Kind, ask: plan::Ask) -> MeasurementsQuery {
        let at = |ms| chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default();
        let q = MeasurementsQuery::range(self.granularity, at(ask.start), at(ask.end));
        match self.metrics.iter().find(|(k, _)| *k == kind) {
            Some((_, names)) => q.metrics(names.clone()),
            None => q,
        }
    }
}

/// What a sync did.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct SyncReport {
    /// Targets the store met for the first time.
    pub new: Vec<Target>,
    /// Known targets that got new points.
    pub updated: Vec<Target>,
    /// Known targets with nothing new (not asked, or answered with nothing new).
    pub unchanged: Vec<Target>,
    /// Targets whose request failed (404, 5xx after retries, ...): nothing of theirs changed,
    /// and the next sync asks them again.
    pub failed: Vec<TargetFailure>,
    /// Listings of discovery that failed (their path), and why.
    pub listings_failed: Vec<(String, Error)>,
    /// Targets discovery no longer sees (removed from the server); their data is kept.
    pub no_longer_seen: Vec<Target>,
    /// API requests sent (pages of listings and data requests; retries not counted).
    pub requests: u64,
    /// Of which measurement requests.
    pub data_requests: u64,
    /// Data points added to the store.
    pub points_added: u64,
    /// Bytes of data files written (compactions included).
    pub bytes_written: u64,
    /// Data files removed: replaced by a compaction, or out of the window.
    pub files_removed: u64,
    /// Wall time of the sync.
    pub seconds: f64,
}

/// What the store asks of one target in this sync.
pub(super) struct Plan {
    pub(super) key: Key,
    pub(super) target: Target,
    pub(super) ask: plan::Ask,
    /// Its files before this sync.
    pub(super) files: Vec<FileEntry>,
    pub(super) is_new: bool,
}

/// Targets updated between two checkpoints, at most (and a quarter of a smaller sync's).
const CHECKPOINT_EVERY: usize = 256;
/// Time between two checkpoints, at most (while targets are being updated).
const CHECKPOINT_SECS: u64 = 10;
/// Targets written at once, each on a blocking thread: their fsyncs overlap (see
/// `durable::sync_dirs`), and each holds one target's new points.
const WRITERS: usize = 16;

/// The sync behind [`crate::api::measurements::MeasurementsApi::sync`].
pub(crate) async fn run(
    client: &Client,
    store: &Store,
    options: &SyncOptions,
) -> Result<SyncReport> {
    let started = Instant::now();
    let window_ms = options.window_ms()?;
    if options.kinds.is_empty() {
        return Err(Error::invalid_argument(
            "kind",
            "names no kind of measurement",
        ));
    }
    // Every measurement name is one the server's flavour has, before anything is sent.
    for (kind, names) in &options.metrics {
        crate::api::measurements::check_metric_names(client.flavour(), kind.as_str(), names)?;
    }
    if let Targets::List(list) = &options.targets {
        // Every identifier checked before anything is sent or written.
        let q = MeasurementsQuery::period(options.granularity, options.window);
        for t in list {
            target_request(t, &q)?;
        }
    }
    let root = store.path().to_path_buf();
    blocking({
        let root = root.clone();
        move || create_root(&root)
    })
    .await?;
    let _lock = durable::lock(&root, options.wait).await?;
    let mut state = blocking({
        let root = root.clone();
        move || manifest::recover(&root)
    })
    .await?;
    let mut report = SyncReport::default();
    let step = options.granularity.seconds();

    let keys: Vec<Key> = match &options.targets {
        Targets::All => {
            let rediscover = i64::try_from(options.rediscover.as_millis()).unwrap_or(i64::MAX);
            let scope = discover::Scope {
                kinds: &options.kinds,
                granularity: options.granularity,
                projects: options.projects.as_deref(),
                rediscover_ms: rediscover,
            };
            discover::discover(client, &mut state, &scope, &mut report).await?
        }
        Targets::List(list) => {
            // One request before the windows are computed: they end at the server's now.
            if let Some(t) = list.first() {
                report.requests += 1;
                let _ = client.groups().get(t.group_id()).await;
            }
            let mut keys: Vec<Key> = list
                .iter()
                .map(|t| Key::new(t, options.granularity))
                .collect();
            keys.sort();
            keys.dedup();
            keys
        }
    };
    let now = client.server_time().timestamp_millis();
    let now_grid = plan::grid_floor(now, step);

    let mut plans = Vec::new();
    for key in keys {
        let known = state.targets.get(&key);
        match plan::ask(known, now_grid, window_ms, step) {
            Some(ask) => plans.push(Plan {
                target: key.target(),
                files: known.map(|k| k.files.clone()).unwrap_or_default(),
                is_new: known.is_none(),
                key,
                ask,
            }),
            None => {
                report.unchanged.push(key.target());
                if let Some(t) = state.targets.get_mut(&key) {
                    t.last_sync = Some(now);
                }
            }
        }
    }

    let dirty = fetch_and_write(
        client,
        &root,
        options,
        &mut state,
        plans,
        now,
        now_grid,
        &mut report,
    )
    .await?;

    // What left the window: whole files older than its start.
    let cutoff = now_grid - window_ms;
    let mut gone: Vec<String> = Vec::new();
    for (key, t) in state.targets.iter_mut() {
        if key.granularity != options.granularity.as_str() {
            continue;
        }
        for i in plan::expired(&t.files, cutoff).into_iter().rev() {
            gone.push(t.files.remove(i).name);
        }
    }
    report.files_removed += gone.len() as u64;
    state.generation += 1;
    blocking(move || {
        durable::sync_dirs(&dirty)?;
        manifest::write(&root, MANIFEST, &state)?;
        durable::remove(&root.join(CHECKPOINT))?;
        for name in &gone {
            durable::remove(&root.join(name))?;
        }
        // Folders left empty, and files a compaction replaced.
        manifest::collect_garbage(&root, &state)
    })
    .await?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Asks every planned target (round-robin over projects, `max_concurrency` at once, paced),
/// writes the new points of each on a blocking thread, and applies each result to `state`,
/// checkpointing as it goes. Returns the folders written since the last checkpoint (to fsync
/// before the manifest refers to their files).
#[allow(clippy::too_many_arguments)]
async fn fetch_and_write(
    client: &Client,
    root: &Path,
    options: &SyncOptions,
    state: &mut State,
    plans: Vec<Plan>,
    now: i64,
    now_grid: i64,
    report: &mut SyncReport,
) -> Result<Vec<PathBuf>> {
    let requests = plans
        .iter()
        .map(|p| target_request(&p.target, &options.query(p.key.kind, p.ask)))
        .collect::<Result<Vec<_>>>()?;
    report.requests += requests.len() as u64;
    report.data_requests += requests.len() as u64;
    let targets: Vec<Target> = plans.iter().map(|p| p.target.clone()).collect();
    let order = crate::fleet::fetch_order(&targets);
    let plans = Arc::new(plans);
    let lasts: Vec<(Option<i64>, plan::Ask)> = plans
        .iter()
        .map(|p| (p.files.iter().map(|f| f.last).max(), p.ask))
        .collect();
    // Decoding and keeping the new points run in the request's own task.
    let results = crate::fleet::spawned(client, requests, order, move |i, mut m: Measurements| {
        let (last, ask) = lasts[i];
        let n = plan::new_points(&mut m, last, ask);
        Ok((m, n))
    });
    let mut results = std::pin::pin!(results);
    let seq = Arc::new(AtomicU64::new(state.next_file));
    let mut writers = FuturesUnordered::new();
    let mut dirty: BTreeSet<PathBuf> = BTreeSet::new();
    let mut since_checkpoint = 0;
    let mut last_checkpoint = Instant::now();
    let total = plans.len();
    let every = (total / 4).clamp(1, CHECKPOINT_EVERY);
    let mut done = 0;
    while let Some((i, result)) = results.next().await {
        done += 1;
        if let Some(progress) = &options.progress {
            progress(Progress {
                done,
                total,
                target: &plans[i].target,
                ok: result.is_ok(),
            });
        }
        match result {
            Err(error) => report.failed.push(TargetFailure {
                target: plans[i].target.clone(),
                error,
            }),
            Ok((_, 0)) => {
                apply(
                    state,
                    &plans[i],
                    Written::default(),
                    now,
                    report,
                    &mut dirty,
                );
                since_checkpoint += 1;
            }
            Ok((m, _)) => {
                if writers.len() >= WRITERS {
                    if let Some((j, w)) = writers.next().await {
                        settle(state, &plans, j, w, now, report, &mut dirty);
                        since_checkpoint += 1;
                    }
                }
                let (root, plans, seq) = (root.to_path_buf(), plans.clone(), seq.clone());
                writers.push(async move {
                    let w = blocking(move || write_target(&root, &plans[i], m, &seq, now_grid));
                    (i, w.await)
                });
            }
        }
        if since_checkpoint >= every
            || (since_checkpoint > 0
                && last_checkpoint.elapsed() >= Duration::from_secs(CHECKPOINT_SECS))
        {
            state.next_file = seq.load(Ordering::SeqCst);
            checkpoint(root, state, std::mem::take(&mut dirty)).await?;
            since_checkpoint = 0;
            last_checkpoint = Instant::now();
        }
    }
    while let Some((j, w)) = writers.next().await {
        settle(state, &plans, j, w, now, report, &mut dirty);
    }
    state.next_file = seq.load(Ordering::SeqCst);
    Ok(dirty.into_iter().collect())
}

/// Applies a writer's result; a failed write is reported as its target's failure (nothing of
/// it is in the state, and the next sync asks it again).
fn settle(
    state: &mut State,
    plans: &[Plan],
    i: usize,
    written: Result<Written>,
    now: i64,
    report: &mut SyncReport,
    dirty: &mut BTreeSet<PathBuf>,
) {
    match written {
        Ok(w) => apply(state, &plans[i], w, now, report, dirty),
        Err(error) => report.failed.push(TargetFailure {
            target: plans[i].target.clone(),
            error,
        }),
    }
}

/// One target's answer in the state: its files, how far it was asked, when.
fn apply(
    state: &mut State,
    plan: &Plan,
    w: Written,
    now: i64,
    report: &mut SyncReport,
    dirty: &mut BTreeSet<PathBuf>,
) {
    dirty.extend(w.dirs);
    let t = state
        .targets
        .entry(plan.key.clone())
        .or_insert_with(TargetState::fresh);
    t.files.retain(|f| !w.removed.contains(&f.name));
    t.files.extend(w.added);
    t.files
        .sort_by(|a, b| (a.first, &a.name).cmp(&(b.first, &b.name)));
    t.asked_until = Some(t.asked_until.unwrap_or(plan.ask.end).max(plan.ask.end));
    t.last_sync = Some(now);
    report.points_added += w.points;
    report.bytes_written += w.bytes;
    report.files_removed += w.removed.len() as u64;
    if plan.is_new {
        report.new.push(plan.target.clone());
    } else if w.points > 0 {
        report.updated.push(plan.target.clone());
    } else {
        report.unchanged.push(plan.target.clone());
    }
}

/// Writes the state as the checkpoint, once the folders of the files it refers to are fsynced.
async fn checkpoint(root: &Path, state: &mut State, dirty: BTreeSet<PathBuf>) -> Result<()> {
    state.generation += 1;
    let (root, snapshot) = (root.to_path_buf(), state.clone());
    blocking(move || {
        durable::sync_dirs(&dirty.into_iter().collect::<Vec<_>>())?;
        manifest::write(&root, CHECKPOINT, &snapshot)
    })
    .await
}

/// Runs blocking file work off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(Error::Internal(format!("a store write failed: {e}"))))
}
