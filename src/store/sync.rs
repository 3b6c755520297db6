//! A sync: take the lock, recover what a killed sync left, look at every file (dropping those
//! missing or damaged: their spans become holes, asked again), discover the targets, ask each
//! only what is new at each granularity kept (the fleet machinery: `fleet::spawned`,
//! round-robin over projects, the client's pacing), write each target's new points on a
//! blocking thread (compacting its month when it has enough files), checkpoint every few
//! hundred targets, then retire what left the window and commit the manifest.
//!
//! Memory holds one answer per request in flight and one target being written per writer, never
//! the whole fleet's points: what grows with the targets is the manifest (a few hundred bytes
//! each).
//!
//! No single answer decides a removal: the window counts back from the earliest of the
//! server's now, this machine's now and the target's newest stored point; a server whose clock
//! is ahead of this machine's by more than [`CLOCK_TOLERANCE`] removes nothing (and is a
//! warning); an `asked_until` after the server's now is repaired (`plan`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use futures_util::stream::{FuturesUnordered, StreamExt};

use super::manifest::{self, Gap, Hole, Key, State, TargetState, CHECKPOINT, MANIFEST};
use super::options::Tier;
pub use super::options::{LostSpan, SyncOptions, SyncReport, Targets, CLOCK_TOLERANCE};
use super::plan::{self, Plan};
use super::write::{create_root, write_target, Written};
use super::{check, discover, durable, garbage, Store};
use crate::api::measurements::query::{Granularity, MeasurementsQuery};
use crate::api::measurements::target::{target_request, Target};
use crate::api::measurements::MeasurementsApi;
use crate::client::Client;
use crate::error::{Error, Result};
use crate::fleet::{Progress, TargetFailure};
use crate::models::Measurements;

// `client.measurements().sync(..)`: the handle is the API's, the workflow the store's (the
// API layer never imports the store).
impl MeasurementsApi<'_> {
    /// Syncs a measurement store: asks each target only what the store does not hold yet
    /// (from its last stored point, overlapping by one), writes it crash-safely, compacts,
    /// and drops what left the store's window. With `Targets::All` (the default) it first
    /// discovers every project, host, partition and database the key can see. One writer at a
    /// time: it waits for another sync of the same store, or with `wait(false)` fails at once
    /// with [`Error::StoreLocked`]. A target whose request fails is reported in
    /// [`crate::store::SyncReport::failed`] and asked again next time; it fails nothing else.
    /// With [`SyncOptions::keep`], each target is kept at several granularities, each with
    /// its own window.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::store::{Store, SyncOptions};
    /// use opsapi::Granularity;
    /// let store = Store::new("fleet-store");
    /// let options = SyncOptions::new(Granularity::PT1H, "P35D".parse().unwrap());
    /// let report = client.measurements().sync(&store, &options).await?;
    /// println!("{} updated, {} data requests", report.updated.len(), report.data_requests);
    /// # Ok(()) }
    /// ```
    pub async fn sync(&self, store: &Store, options: &SyncOptions) -> Result<SyncReport> {
        run(self.client, store, options).await
    }
}

/// Targets updated between two checkpoints, at most (and a quarter of a smaller sync's).
const CHECKPOINT_EVERY: usize = 256;
/// A sync of fewer targets writes no checkpoint: a crash loses at most their requests, and a
/// checkpoint (three fsyncs) would cost more than asking them again (a daily sync of one
/// target at two granularities took 3 times as long with its two checkpoints).
const CHECKPOINT_MIN: usize = 16;
/// Time between two checkpoints, at most (while targets are being updated).
const CHECKPOINT_SECS: u64 = 10;
/// Targets written at once, each on a blocking thread: their fsyncs overlap (see
/// `durable::sync_dirs`), and each holds one target's new points.
const WRITERS: usize = 16;

/// This machine's clock, in milliseconds.
fn local_now() -> i64 {
    Utc::now().timestamp_millis()
}

/// The two clocks of a sync: the server's (its answers' `Date`) and this machine's.
#[derive(Debug, Clone, Copy)]
struct Clocks {
    server: i64,
    local: i64,
}

impl Clocks {
    fn skew(&self) -> i64 {
        self.server - self.local
    }
    /// Whether the server's clock is ahead by more than the tolerance: removals by the window
    /// are suspended (a clock behind only removes less: the window counts from the earliest).
    fn server_ahead(&self) -> bool {
        self.skew() > CLOCK_TOLERANCE.as_millis() as i64
    }
    /// The warning of a server clock too far ahead. One behind is not warned of: the window
    /// then counts from the server's earlier now, and removes less, never more.
    fn warning(&self) -> Option<String> {
        let tolerance = CLOCK_TOLERANCE.as_millis() as u64;
        self.server_ahead().then(|| {
            format!(
                "the server's clock is {} ahead of this machine's (more than the {} \
                 tolerated): nothing left the store's window in this sync",
                human_duration(self.skew().unsigned_abs()),
                human_duration(tolerance)
            )
        })
    }
}

/// `3 d 4 h`, `12 min`, `40 s`: a duration for people.
fn human_duration(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..=119 => format!("{s} s"),
        120..=7199 => format!("{} min", s / 60),
        7200..=172_799 => format!("{} h", s / 3600),
        _ => format!("{} d {} h", s / 86_400, s % 86_400 / 3600),
    }
}

/// The sync behind [`MeasurementsApi::sync`].
pub(crate) async fn run(
    client: &Client,
    store: &Store,
    options: &SyncOptions,
) -> Result<SyncReport> {
    let started = Instant::now();
    let tiers = options.tiers()?;
    if options.kinds.is_empty() {
        return Err(Error::invalid_argument(
            "kind",
            "names no kind of measurement",
        ));
    }
    // Every measurement name is one the server's flavour has, before anything is sent.
    for (kind, names) in &options.metrics {
        crate::api::measurements::target::check_metric_names(
            client.flavour(),
            kind.as_str(),
            names,
        )?;
    }
    if let Targets::List(list) = &options.targets {
        // Every identifier given checked before anything is sent or written.
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
    let (mut state, bad) = blocking({
        let root = root.clone();
        move || {
            let mut state = garbage::recover(&root, local_now())?;
            let bad = check::verify_live(&root, &mut state);
            Ok((state, bad))
        }
    })
    .await?;
    let mut report = SyncReport::default();
    for (name, problem) in bad {
        report.warnings.push(format!(
            "{}: {problem}; dropped from the manifest, its span asked of the server again \
             (where the store's window still holds it)",
            root.join(name).display()
        ));
    }

    let granularities: Vec<Granularity> = tiers.iter().map(|t| t.granularity).collect();
    let keys: Vec<Key> = match &options.targets {
        Targets::All => {
            let rediscover = i64::try_from(options.rediscover.as_millis()).unwrap_or(i64::MAX);
            let scope = discover::Scope {
                kinds: &options.kinds,
                granularities: &granularities,
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
            let mut keys: Vec<Key> = granularities
                .iter()
                .flat_map(|g| list.iter().map(|t| Key::new(t, *g)))
                .collect();
            keys.sort();
            keys.dedup();
            keys
        }
    };
    let clocks = Clocks {
        server: client.server_time().timestamp_millis(),
        local: local_now(),
    };
    report.warnings.extend(clocks.warning());

    let by_granularity: BTreeMap<&'static str, Tier> =
        tiers.iter().map(|t| (t.granularity.as_str(), *t)).collect();
    let mut plans = Vec::new();
    let mut repaired = 0;
    for key in keys {
        let Some(tier) = by_granularity.get(key.granularity) else {
            continue;
        };
        let step = tier.granularity.seconds();
        let now_grid = plan::grid_floor(clocks.server, step);
        let known = state.targets.get_mut(&key);
        let is_new = known.is_none();
        let holes = match known {
            Some(t) => {
                let limit = clocks.server + CLOCK_TOLERANCE.as_millis() as i64;
                if plan::repair_asked_until(t, limit) {
                    repaired += 1;
                }
                // Holes that left the window are dropped, by the rule of every removal (and
                // none while the server's clock is too far ahead to be trusted).
                if let (Some(w), false) = (tier.window_ms, clocks.server_ahead()) {
                    let cutoff = plan::removal_cutoff(now_grid, clocks.local, t.last(), w);
                    t.holes = plan::holes_in_window(&t.holes, cutoff);
                }
                t.holes.clone()
            }
            None => Vec::new(),
        };
        let known = state.targets.get(&key);
        match plan::ask(
            known,
            now_grid,
            tier.lookback_ms,
            step,
            !clocks.server_ahead(),
        ) {
            Some(ask) => plans.push(Plan {
                target: key.target(),
                granularity: tier.granularity,
                files: known.map(|k| k.files.clone()).unwrap_or_default(),
                holes,
                is_new,
                key,
                ask,
            }),
            None => {
                report.unchanged.push(key.target());
                if let Some(t) = state.targets.get_mut(&key) {
                    t.last_sync = Some(clocks.server);
                }
            }
        }
    }
    if repaired > 0 {
        report.warnings.push(format!(
            "{repaired} targets had been asked up to a time after the server's now (a clock \
             that was wrong): asked again from their last stored point"
        ));
    }

    let dirty = fetch_and_write(
        client,
        &root,
        options,
        &mut state,
        plans,
        clocks,
        &mut report,
    )
    .await?;

    // What left the window: whole files older than its start, retired (kept for the readers
    // of older manifests), unless the server's clock is too far ahead to be trusted.
    let mut gone: Vec<String> = Vec::new();
    if !clocks.server_ahead() {
        for (key, t) in state.targets.iter_mut() {
            let Some(window_ms) = by_granularity
                .get(key.granularity)
                .and_then(|t| t.window_ms)
            else {
                continue;
            };
            let step = by_granularity[key.granularity].granularity.seconds();
            let server = plan::grid_floor(clocks.server, step);
            let cutoff = plan::removal_cutoff(server, clocks.local, t.last(), window_ms);
            for i in plan::expired(&t.files, cutoff).into_iter().rev() {
                gone.push(t.files.remove(i).name);
            }
            t.gaps.retain(|g| g.last >= cutoff);
        }
    }
    report.files_removed += gone.len() as u64;
    state.retire(gone, clocks.local);
    // A target no longer seen is so at each granularity: said once.
    let mut said = BTreeSet::new();
    report
        .no_longer_seen
        .retain(|t| said.insert(Key::new(t, Granularity::PT1H)));
    state.generation += 1;
    let grace = i64::try_from(options.grace.as_millis()).unwrap_or(i64::MAX);
    let warnings = blocking(move || {
        let expired = garbage::expire_retired(&root, &mut state, clocks.local, grace);
        durable::sync_dirs(&dirty)?;
        manifest::write(&root, MANIFEST, &state)?;
        durable::remove(&root.join(CHECKPOINT))?;
        for path in &expired.remove {
            durable::remove(path)?;
        }
        // Folders left empty, and files no manifest refers to.
        garbage::collect(&root, &state)?;
        Ok(expired.warnings)
    })
    .await?;
    report.warnings.extend(warnings);
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Asks every planned target (round-robin over projects, `max_concurrency` at once, paced),
/// writes the new points of each on a blocking thread, and applies each result to `state`,
/// checkpointing as it goes. A target whose identifiers cannot be sent fails alone. Returns the
/// folders written since the last checkpoint (to fsync before the manifest refers to their
/// files).
async fn fetch_and_write(
    client: &Client,
    root: &Path,
    options: &SyncOptions,
    state: &mut State,
    plans: Vec<Plan>,
    clocks: Clocks,
    report: &mut SyncReport,
) -> Result<Vec<PathBuf>> {
    let mut requests = Vec::with_capacity(plans.len());
    let mut sendable = Vec::with_capacity(plans.len());
    for p in plans {
        match target_request(&p.target, &options.query(p.granularity, p.key.kind, p.ask)) {
            Ok(r) => {
                requests.push(r);
                sendable.push(p);
            }
            Err(error) => report.failed.push(TargetFailure {
                target: p.target,
                error,
            }),
        }
    }
    let plans = sendable;
    report.requests += requests.len() as u64;
    report.data_requests += requests.len() as u64;
    let targets: Vec<Target> = plans.iter().map(|p| p.target.clone()).collect();
    let order = crate::fleet::fetch_order(&targets);
    let plans = Arc::new(plans);
    let asked: Vec<(Option<i64>, plan::Ask, Vec<Hole>)> = plans
        .iter()
        .map(|p| (p.files.iter().map(|f| f.last).max(), p.ask, p.holes.clone()))
        .collect();
    // Decoding and keeping the new points run in the request's own task.
    let results = crate::fleet::spawned(client, requests, order, move |i, mut m: Measurements| {
        let (last, ask, holes) = &asked[i];
        let n = plan::new_points(&mut m, *last, *ask, holes);
        Ok((m, n))
    });
    let mut results = std::pin::pin!(results);
    let seq = Arc::new(AtomicU64::new(state.next_file));
    let mut writers = FuturesUnordered::new();
    let mut dirty: BTreeSet<PathBuf> = BTreeSet::new();
    let mut since_checkpoint = 0;
    let mut last_checkpoint = Instant::now();
    let total = plans.len();
    let every = if total < CHECKPOINT_MIN {
        usize::MAX
    } else {
        (total / 4).clamp(1, CHECKPOINT_EVERY)
    };
    let mut done = 0;
    let cx = Settle {
        plans: &plans,
        clocks,
    };
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
                let w = Written {
                    hole_points: vec![0; plans[i].holes.len()],
                    ..Written::default()
                };
                cx.apply(state, i, w, report, &mut dirty);
                since_checkpoint += 1;
            }
            Ok((m, _)) => {
                if writers.len() >= WRITERS {
                    if let Some((j, w)) = writers.next().await {
                        cx.settle(state, j, w, report, &mut dirty);
                        since_checkpoint += 1;
                    }
                }
                let (root, plans, seq) = (root.to_path_buf(), plans.clone(), seq.clone());
                let now_grid = plans[i].ask.end;
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
        cx.settle(state, j, w, report, &mut dirty);
    }
    state.next_file = seq.load(Ordering::SeqCst);
    Ok(dirty.into_iter().collect())
}

/// What applying a target's result needs besides the result.
struct Settle<'a> {
    plans: &'a [Plan],
    clocks: Clocks,
}

impl Settle<'_> {
    /// Applies a writer's result; a failed write is reported as its target's failure (nothing
    /// of it is in the state, and the next sync asks it again).
    fn settle(
        &self,
        state: &mut State,
        i: usize,
        written: Result<Written>,
        report: &mut SyncReport,
        dirty: &mut BTreeSet<PathBuf>,
    ) {
        match written {
            Ok(w) => self.apply(state, i, w, report, dirty),
            Err(error) => report.failed.push(TargetFailure {
                target: self.plans[i].target.clone(),
                error,
            }),
        }
    }

    /// One target's answer in the state: its files (those replaced retired), how far it was
    /// asked, when, and its holes answered: a hole the server no longer had (fully) is a gap.
    fn apply(
        &self,
        state: &mut State,
        i: usize,
        w: Written,
        report: &mut SyncReport,
        dirty: &mut BTreeSet<PathBuf>,
    ) {
        let plan = &self.plans[i];
        dirty.extend(w.dirs);
        state.retire(w.removed.iter().cloned(), self.clocks.local);
        let t = state
            .targets
            .entry(plan.key.clone())
            .or_insert_with(TargetState::fresh);
        t.files.retain(|f| !w.removed.contains(&f.name));
        t.files.extend(w.added);
        t.files
            .sort_by(|a, b| (a.first, &a.name).cmp(&(b.first, &b.name)));
        // How far the target is known to be asked: the request's end, or, when the server's
        // clock is too far ahead to be trusted, only as far as the points it answered (an
        // empty span up to a wrong now is not taken as empty).
        let end = if self.clocks.server_ahead() {
            t.last()
        } else {
            Some(plan.ask.end)
        };
        if let Some(end) = end {
            t.asked_until = Some(t.asked_until.unwrap_or(end).max(end));
        }
        t.last_sync = Some(self.clocks.server);
        for (hole, got) in plan.holes.iter().zip(&w.hole_points) {
            if *got < hole.rows {
                let gap = Gap {
                    first: hole.first,
                    last: hole.last,
                    points: hole.rows - got,
                };
                t.gaps.push(gap);
                let at = |ms| DateTime::<Utc>::from_timestamp_millis(ms).unwrap_or_default();
                report.gaps.push(LostSpan {
                    target: plan.target.clone(),
                    granularity: plan.granularity,
                    first: at(gap.first),
                    last: at(gap.last),
                    points: gap.points,
                });
            }
        }
        t.holes.retain(|h| !plan.holes.contains(h));
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
