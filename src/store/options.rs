//! What a sync is asked to do ([`SyncOptions`]: targets, granularities and how long each is
//! kept, measurement names, the lock, the grace period of replaced files) and what it did
//! ([`SyncReport`]).

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::plan;
use super::Kind;
use crate::api::measurements::query::{Granularity, MeasurementsQuery};
use crate::api::measurements::target::Target;
use crate::error::{Error, Result};
use crate::fleet::{Progress, ProgressFn, TargetFailure};
use crate::iso8601::IsoDuration;

/// How far the server's clock (its answers' `Date`) may be ahead of this machine's: a sync
/// that finds it further ahead removes nothing by the window, asks each known target from its
/// last stored point whatever that clock says, and says so in [`SyncReport::warnings`] (5
/// minutes: Kerberos's default bound on clock skew). A server clock behind needs no bound:
/// the window counts from the earliest of the two clocks and the newest stored point, so it
/// removes less, never more.
pub const CLOCK_TOLERANCE: Duration = Duration::from_secs(300);

/// How long a file that left the store (replaced by a compaction, or out of the window) stays
/// on disk for the readers of older manifests, by default: a day. [`super::Store::vacuum`]
/// removes them sooner.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(86_400);

/// Which targets a sync asks.
#[derive(Debug, Clone, Default)]
pub enum Targets {
    /// Every project, host, partition and database the key can see, discovered at each sync.
    #[default]
    All,
    /// These targets (as a fleet pull takes them), and no discovery.
    List(Vec<Target>),
}

/// How a sync runs: what to ask, at which granularities, how far back the store keeps each.
///
/// ```
/// use opsapi::store::{Kind, SyncOptions};
/// use opsapi::Granularity;
/// let o = SyncOptions::new(Granularity::PT1H, "P35D".parse().unwrap())
///     .kinds([Kind::Disk])
///     .metrics(Kind::Disk, ["DISK_PARTITION_SPACE_USED"]);
/// assert_eq!(o.kinds, [Kind::Disk]);
/// assert!(o.wait);
/// // Minutes for two days, hours for 13 months, days for good: one sync keeps all three.
/// let tiers = SyncOptions::new(Granularity::PT1M, "P2D".parse().unwrap())
///     .keep(Granularity::PT1H, "P395D".parse().unwrap())
///     .keep_for_good(Granularity::P1D);
/// assert_eq!(tiers.keep.len(), 2);
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
    /// How far back the store keeps data at `granularity` (whole days or hours: `P35D`).
    pub window: IsoDuration,
    /// More granularities the same sync keeps, each with its own window (`None`: for good),
    /// so that the store holds what the server is about to drop: `[(PT1H, P395D), (P1D,
    /// None)]` beside `PT1M` for `P2D`.
    pub keep: Vec<(Granularity, Option<IsoDuration>)>,
    /// Measurement names per kind; a kind not named gets every measurement.
    pub metrics: Vec<(Kind, Vec<String>)>,
    /// Wait for another sync of the same store to finish (`true`, the default), or fail at
    /// once with [`Error::StoreLocked`].
    pub wait: bool,
    /// How often discovery lists a known host's partitions and databases again (a day by
    /// default; new hosts are always listed).
    pub rediscover: Duration,
    /// How long a file that left the store stays on disk for readers of older manifests
    /// ([`DEFAULT_GRACE`]).
    pub grace: Duration,
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
            .field("keep", &self.keep)
            .field("metrics", &self.metrics)
            .field("wait", &self.wait)
            .field("rediscover", &self.rediscover)
            .field("grace", &self.grace)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// One granularity a sync keeps, checked: its window and how far back a first request goes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tier {
    pub granularity: Granularity,
    /// Milliseconds kept (`None`: for good).
    pub window_ms: Option<i64>,
    /// How far back a request goes at most: the window, or for a granularity kept for good
    /// the longest window of the sync.
    pub lookback_ms: i64,
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
            keep: Vec::new(),
            metrics: Vec::new(),
            wait: true,
            rediscover: Duration::from_secs(86_400),
            grace: DEFAULT_GRACE,
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
    /// Also keeps `granularity`, for `window`.
    pub fn keep(mut self, granularity: Granularity, window: IsoDuration) -> Self {
        self.keep.push((granularity, Some(window)));
        self
    }
    /// Also keeps `granularity`, for good (a first sync asks it as far back as the longest
    /// window of the sync).
    pub fn keep_for_good(mut self, granularity: Granularity) -> Self {
        self.keep.push((granularity, None));
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
    /// How long files that left the store stay for readers of older manifests.
    pub fn grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }
    /// A callback after each target's data request.
    pub fn progress(mut self, f: impl Fn(Progress<'_>) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }

    /// The granularities kept, finest first, checked: each window a fixed duration of at
    /// least one step, no granularity twice.
    pub(crate) fn tiers(&self) -> Result<Vec<Tier>> {
        let mut kept = vec![(self.granularity, Some(self.window), "window")];
        kept.extend(self.keep.iter().map(|(g, w)| (*g, *w, "keep")));
        let mut out: Vec<Tier> = Vec::new();
        for (granularity, window, argument) in kept {
            if out.iter().any(|t| t.granularity == granularity) {
                return Err(Error::invalid_argument(
                    "keep",
                    format!("names {granularity} twice (each granularity is kept once)"),
                ));
            }
            let window_ms = match window {
                None => None,
                Some(w) => Some(window_ms(argument, granularity, w)?),
            };
            out.push(Tier {
                granularity,
                window_ms,
                lookback_ms: 0,
            });
        }
        let longest = out.iter().filter_map(|t| t.window_ms).max().unwrap_or(0);
        for t in &mut out {
            t.lookback_ms = t.window_ms.unwrap_or(longest);
        }
        out.sort_by_key(|t| t.granularity.seconds());
        Ok(out)
    }

    pub(crate) fn query(
        &self,
        granularity: Granularity,
        kind: Kind,
        ask: plan::Ask,
    ) -> MeasurementsQuery {
        let at = |ms| DateTime::<Utc>::from_timestamp_millis(ms).unwrap_or_default();
        let q = MeasurementsQuery::range(granularity, at(ask.start), at(ask.end));
        match self.metrics.iter().find(|(k, _)| *k == kind) {
            Some((_, names)) => q.metrics(names.clone()),
            None => q,
        }
    }
}

/// A window in milliseconds, checked: a fixed duration of at least one step.
fn window_ms(argument: &str, granularity: Granularity, window: IsoDuration) -> Result<i64> {
    let which = if argument == "keep" {
        format!(" (kept for {granularity})")
    } else {
        String::new()
    };
    let secs = window
        .fixed_seconds()
        .filter(|s| *s >= granularity.seconds() as f64)
        .ok_or_else(|| {
            Error::invalid_argument(
                argument,
                format!(
                    "`{window}`{which} is not a fixed duration of at least one {granularity} \
                     step: use days or hours, e.g. P35D"
                ),
            )
        })?;
    Ok((secs * 1000.0) as i64)
}

/// A span of a target's points that the store lost (a file found missing or damaged) and the
/// server no longer had when asked again.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LostSpan {
    /// The target.
    pub target: Target,
    /// Its granularity.
    pub granularity: Granularity,
    /// The first and last point of the lost file.
    pub first: DateTime<Utc>,
    /// See `first`.
    pub last: DateTime<Utc>,
    /// Points lost: those the file held that the server did not answer again.
    pub points: u64,
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
    /// Targets whose request failed (404, 5xx after retries, an identifier that cannot be
    /// sent, ...): nothing of theirs changed, and the next sync asks them again.
    pub failed: Vec<TargetFailure>,
    /// Listings of discovery that failed (their path), and why.
    pub listings_failed: Vec<(String, Error)>,
    /// Targets discovery no longer sees (removed from the server); their data is kept.
    pub no_longer_seen: Vec<Target>,
    /// Spans the store lost (files found missing or damaged) that the server no longer had:
    /// also in `Store::targets()`'s `gaps` and `points_lost`.
    pub gaps: Vec<LostSpan>,
    /// What the sync noticed and did not stop for: a server clock too far ahead of this
    /// machine's (nothing left the window), files found missing or damaged (dropped, their
    /// span asked again), targets asked up to a time after the server's now (repaired).
    pub warnings: Vec<String>,
    /// API requests sent (pages of listings and data requests; retries not counted).
    pub requests: u64,
    /// Of which measurement requests.
    pub data_requests: u64,
    /// Data points added to the store.
    pub points_added: u64,
    /// Bytes of data files written (compactions included).
    pub bytes_written: u64,
    /// Data files that left the store: replaced by a compaction, or out of the window (kept
    /// on disk for the grace period, for readers of older manifests).
    pub files_removed: u64,
    /// Wall time of the sync.
    pub seconds: f64,
}
