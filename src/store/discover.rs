//! Discovery for `targets = "all"`: every project the key can see, their hosts, and the
//! hosts' partitions and databases, compared with what the store knew.
//!
//! - Every sync lists the projects and their hosts (one request per project and 500 hosts):
//!   a new host starts filling at once, and a host no longer listed is marked no longer seen
//!   (its data is kept, and it is not asked any more).
//! - A host's partitions and databases are listed when the host is new (or seen again), and
//!   otherwise once per `rediscover` interval (a day by default): two requests per host at
//!   every sync would cost more than the data requests of a sync an hour after the last.
//! - A listing that fails is reported; what the store knew of that project or host is kept
//!   and synced as it was.

use futures_util::stream::{self, StreamExt};

use super::manifest::{HostState, Key, State};
use super::options::SyncReport;
use super::Kind;
use crate::api::measurements::query::Granularity;
use crate::api::measurements::target::Target;
use crate::client::Client;
use crate::error::Result;
use crate::paging::ITEMS_PER_PAGE;

/// Requests a listing of `n` items took (one page at least).
fn pages(n: usize) -> u64 {
    (n as u64).div_ceil(u64::from(ITEMS_PER_PAGE)).max(1)
}

/// What one host's partitions or databases listing found.
enum Listed {
    /// Not asked this time: the store's list holds.
    Kept,
    Found(Vec<String>),
    Failed,
}

/// What discovery looks for.
pub(crate) struct Scope<'a> {
    pub kinds: &'a [Kind],
    /// The granularities the sync keeps: a target is one key at each.
    pub granularities: &'a [Granularity],
    /// Only these projects (`None`: all).
    pub projects: Option<&'a [String]>,
    /// How often a known host's partitions and databases are listed again (ms).
    pub rediscover_ms: i64,
}

/// Discovers the targets of the scope's kinds at its granularities, updating what `state`
/// knows of hosts and which targets are seen, and returns the targets to sync (every one seen,
/// at each granularity).
pub(crate) async fn discover(
    client: &Client,
    state: &mut State,
    scope: &Scope<'_>,
    report: &mut SyncReport,
) -> Result<Vec<Key>> {
    let (kinds, rediscover_ms) = (scope.kinds, scope.rediscover_ms);
    let groups = client.groups().list().await?;
    report.requests += pages(groups.len());
    let now = client.server_time().timestamp_millis();
    let in_scope = |g: &str| scope.projects.is_none_or(|p| p.iter().any(|x| x == g));
    let group_ids: Vec<String> = groups
        .iter()
        .filter_map(|g| g.id.clone())
        .filter(|g| in_scope(g))
        .collect();
    let width = client.max_concurrency();

    // The hosts of every project, concurrently.
    let listings: Vec<(String, Result<Vec<String>>)> = stream::iter(group_ids.iter().cloned())
        .map(|g| async move {
            let hosts = client.hosts().list(&g).await;
            let ids = hosts.map(|l| l.iter().filter_map(|h| h.id.clone()).collect());
            (g, ids)
        })
        .buffered(width)
        .collect()
        .await;
    // Projects whose listing answered: what they hold is known now.
    let mut listed_projects = std::collections::BTreeSet::new();
    let mut listed_hosts: Vec<(String, String)> = Vec::new();
    for (g, result) in listings {
        match result {
            Ok(ids) => {
                report.requests += pages(ids.len());
                listed_projects.insert(g.clone());
                listed_hosts.extend(ids.into_iter().map(|h| (g.clone(), h)));
            }
            Err(e) => {
                report.requests += 1;
                report
                    .listings_failed
                    .push((format!("/groups/{g}/hosts"), e));
            }
        }
    }
    let visible: std::collections::BTreeSet<&str> = group_ids.iter().map(String::as_str).collect();
    let listed_set: std::collections::BTreeSet<(String, String)> =
        listed_hosts.iter().cloned().collect();
    // Hosts the store knew that their project's listing (or the project list) no longer has.
    for (key, h) in state.hosts.iter_mut() {
        if !in_scope(&key.0) {
            continue;
        }
        let project_known = listed_projects.contains(&key.0) || !visible.contains(key.0.as_str());
        if project_known && !listed_set.contains(key) {
            h.seen = false;
        }
    }

    // Partitions and databases of new hosts, and of known ones once per `rediscover` (and
    // whenever the last listing is dated after the server's now, beyond the `Date` header's
    // jitter: a clock that was wrong must not keep them from being listed until then).
    let future = now + super::CLOCK_TOLERANCE.as_millis() as i64;
    let due = |listed: Option<i64>, was_seen: bool| {
        !was_seen || listed.is_none_or(|t| now - t >= rediscover_ms || t > future)
    };
    let mut asks: Vec<(String, String, Kind)> = Vec::new();
    for (g, h) in &listed_hosts {
        let known = state.hosts.get(&(g.clone(), h.clone()));
        let was_seen = known.is_some_and(|k| k.seen);
        if kinds.contains(&Kind::Disk) && due(known.and_then(|k| k.partitions_listed), was_seen) {
            asks.push((g.clone(), h.clone(), Kind::Disk));
        }
        if kinds.contains(&Kind::Database) && due(known.and_then(|k| k.databases_listed), was_seen)
        {
            asks.push((g.clone(), h.clone(), Kind::Database));
        }
    }
    let order = round_robin(&asks);
    let answers: Vec<(usize, Result<Vec<String>>)> = stream::iter(order)
        .map(|i| {
            let (g, h, kind) = &asks[i];
            async move {
                let r = match kind {
                    Kind::Disk => client.hosts().partitions(g, h).await,
                    _ => client.hosts().databases(g, h).await,
                };
                (i, r)
            }
        })
        // Wider than the wire (the client holds `max_concurrency` requests on it): a project
        // whose requests wait for their pace leaves room for the others'.
        .buffer_unordered(width * 4)
        .collect()
        .await;
    let mut found: std::collections::HashMap<(String, String, Kind), Listed> = Default::default();
    for (i, r) in answers {
        let (g, h, kind) = &asks[i];
        let listed = match r {
            Ok(names) => {
                report.requests += pages(names.len());
                Listed::Found(names)
            }
            Err(e) => {
                report.requests += 1;
                let what = if *kind == Kind::Disk {
                    "disks"
                } else {
                    "databases"
                };
                report
                    .listings_failed
                    .push((format!("/groups/{g}/hosts/{h}/{what}"), e));
                Listed::Failed
            }
        };
        found.insert(asks[i].clone(), listed);
    }
    let mut answer = |g: &str, h: &str, kind: Kind| -> Listed {
        found
            .remove(&(g.to_string(), h.to_string(), kind))
            .unwrap_or(Listed::Kept)
    };

    // The hosts' states and the targets to sync.
    let mut out = Vec::new();
    for (g, h) in &listed_hosts {
        let hs = state
            .hosts
            .entry((g.clone(), h.clone()))
            .or_insert_with(|| HostState {
                group_id: g.clone(),
                host_id: h.clone(),
                ..HostState::default()
            });
        hs.seen = true;
        if let Listed::Found(names) = answer(g, h, Kind::Disk) {
            hs.partitions = names;
            hs.partitions_listed = Some(now);
        }
        if let Listed::Found(names) = answer(g, h, Kind::Database) {
            hs.databases = names;
            hs.databases_listed = Some(now);
        }
        let mut found: Vec<Target> = Vec::new();
        for kind in kinds {
            match kind {
                Kind::Host => found.push(Target::host(g, h)),
                Kind::Disk => found.extend(hs.partitions.iter().map(|p| Target::disk(g, h, p))),
                Kind::Database => {
                    found.extend(hs.databases.iter().map(|d| Target::database(g, h, d)))
                }
            }
        }
        for granularity in scope.granularities {
            out.extend(found.iter().map(|t| Key::new(t, *granularity)));
        }
    }

    // Which of the store's targets of these kinds and granularity are seen: those found now,
    // and those of projects or hosts whose listing failed (kept as they were, and synced).
    let wanted: std::collections::BTreeSet<&Key> = out.iter().collect();
    let mut kept = Vec::new();
    for (key, t) in state.targets.iter_mut() {
        if !scope
            .granularities
            .iter()
            .any(|g| g.as_str() == key.granularity)
            || !kinds.contains(&key.kind)
            || !in_scope(&key.group_id)
        {
            continue;
        }
        let host = (key.group_id.clone(), key.host_id.clone());
        let unknown_project =
            !listed_projects.contains(&key.group_id) && visible.contains(key.group_id.as_str());
        let listing_failed = report.listings_failed.iter().any(|(path, _)| {
            path.starts_with(&format!("/groups/{}/hosts/{}/", key.group_id, key.host_id))
        }) && key.kind != Kind::Host;
        let seen = if wanted.contains(key) {
            true
        } else if unknown_project || (listing_failed && listed_set.contains(&host)) {
            if t.seen {
                kept.push(key.clone());
            }
            t.seen
        } else {
            false
        };
        if t.seen && !seen {
            report.no_longer_seen.push(key.target());
        }
        t.seen = seen;
    }
    out.extend(kept);
    // A listing that names a partition twice must not make two writers of one target.
    out.sort();
    out.dedup();
    Ok(out)
}

/// The order listings are sent in: round-robin over projects, so that a project's pace does
/// not hold up the others (as `fleet::fetch_order` does for data requests).
fn round_robin(asks: &[(String, String, Kind)]) -> Vec<usize> {
    let targets: Vec<Target> = asks.iter().map(|(g, h, _)| Target::host(g, h)).collect();
    crate::fleet::fetch_order(&targets)
}
