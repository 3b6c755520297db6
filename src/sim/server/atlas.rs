//! The simulator as Cloud Manager and Atlas serve the same world ([`super::SimConfig::flavour`]).
//!
//! Cloud Manager: the Ops Manager API without global alerts and the global access list
//! (404 `RESOURCE_NOT_FOUND`, as for any path it does not have).
//!
//! Atlas (Admin API v2 under `/api/atlas/v2`):
//!
//! - hosts are processes: `/groups/{g}/processes/{hostname:port}`, their disks, databases and
//!   measurements below; a process is Atlas's object (`id` = `hostname:port`, no
//!   `replicaStateName`), measurements carry `hostId` = `processId` = `hostname:port`;
//! - every request names its resource's version in `Accept`
//!   (`application/vnd.atlas.2023-01-01+json`; acknowledging an alert `2024-05-30`, or
//!   `2023-01-01` until its sunset on 2027-07-01, then 410 `VERSION_GONE`); one missing or
//!   unknown is refused 406 `INVALID_VERSION_DATE` ("Invalid accept header or version date.":
//!   the detail Atlas gives; the code is this simulator's choice); a success is in the
//!   versioned media type asked for, an error in `application/json`, as the specification
//!   says;
//! - projects with Atlas's fields (`clusterCount`, `created`, ...; none of Ops Manager's
//!   host counts), `acknowledgingUsername` an email, events' `raw` without extended JSON
//!   (`{"$date": ..}`, `{"$oid": ..}`), acknowledging answered 200;
//! - service accounts: `POST /api/oauth/token` (`Authorization: Basic` of the client id and
//!   secret, the form `grant_type=client_credentials`) answers `access_token`, `expires_in`
//!   ([`super::SimConfig::token_lifetime`]) and `token_type`; the token endpoint has its own
//!   bucket ([`super::SimConfig::token_endpoint_limit`], 10 a minute by default), and a token
//!   is refused 401 from its expiry on, by the simulator's clock. API keys (Digest) work too;
//! - token buckets per endpoint set and project ([`super::SimConfig::token_buckets`]): past
//!   one, 429 `RATE_LIMITED_TOKEN_BUCKET` in the documented words, with `Retry-After` and
//!   `RateLimit-Limit`/`RateLimit-Remaining`;
//! - `PT10S` is refused 400 `INVALID_GRANULARITY` for processes below tier M40 (the tier
//!   follows the host's memory: 8 GB M30, 16 GB M40, 32 GB M50, 64 GB M60, 128 GB M80);
//! - measurements in Atlas's names and units (`sim/metrics.rs`: `SYSTEM_NETWORK_IN` for
//!   `SYSTEM_NETWORK_BYTES_IN`, bytes for megabytes; asked by another flavour's name, 404
//!   `INVALID_METRIC_NAME`, as each server does), at most 10 names a request (the
//!   specification's `maxItems`; more: 400 `VALIDATION_ERROR`, the simulator's choice of code).

use std::collections::HashMap;
use std::time::Duration;

use super::*;
use crate::flavour::{AtlasVersion, EndpointSet, Flavour, Row, OAUTH_TOKEN_PATH};
use crate::sim::TokenBucket;

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Duration,
}

impl Bucket {
    /// Takes a token of a bucket shaped `spec` at `now` (the simulator's clock); `Err(wait)`
    /// when there is none, with the time until there is one.
    fn take(&mut self, spec: TokenBucket, now: Duration) -> Result<(), Duration> {
        // Per minute, then divided: 6 s of a bucket of 10 a minute refill exactly one.
        let refill = now.saturating_sub(self.at).as_secs_f64() * spec.per_minute / 60.0;
        self.tokens = (self.tokens + refill).min(f64::from(spec.capacity));
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else if spec.per_minute > 0.0 {
            let secs = (1.0 - self.tokens) * 60.0 / spec.per_minute;
            Err(Duration::from_secs_f64((secs * 1000.0).round() / 1000.0))
        } else {
            Err(Duration::from_secs(86_400))
        }
    }
}

/// What the Atlas face keeps: access tokens, the token endpoint's bucket and the buckets of
/// the endpoint sets.
#[derive(Default)]
pub(crate) struct AtlasState {
    /// Access token -> when it was issued ([`Clock::elapsed`]).
    tokens: Mutex<HashMap<String, Duration>>,
    token_endpoint: Mutex<Option<Bucket>>,
    buckets: Mutex<HashMap<(EndpointSet, String), Bucket>>,
}

/// The alert types of Ops Manager's agents, which Atlas does not have: its world serves no
/// configuration or alert of them.
const OPS_MANAGER_ONLY_EVENT_TYPES: [&str; 2] = ["MONITORING_AGENT_DOWN", "BACKUP_AGENT_DOWN"];

/// The alert metric names Atlas gives differently (its specification's `HostMetricThreshold`
/// and `HostMetricAlert` mappings): (Ops Manager's, Atlas's).
const ATLAS_ALERT_METRICS: [(&str, &str); 1] =
    [("OPLOG_REPLICATION_LAG_TIME", "OPLOG_SLAVE_LAG_MASTER_TIME")];

impl Ctx<'_> {
    /// Whether the flavour has an alert (or configuration) of `event_type_name`.
    pub(crate) fn has_alert_type(&self, event_type_name: &str) -> bool {
        !self.atlas() || !OPS_MANAGER_ONLY_EVENT_TYPES.contains(&event_type_name)
    }

    /// Whether the flavour has the world's host `h`: Atlas has no standalone processes (every
    /// process of it is a replica set's or a sharded cluster's).
    pub(crate) fn has_host(&self, h: &Host) -> bool {
        !self.atlas() || h.type_name != "STANDALONE"
    }

    /// Whether the flavour has the alert `a` of the world `w`: one of a type it has, about a
    /// host it has (Atlas serves no alert of a process it does not have).
    pub(crate) fn has_alert(&self, w: &World, a: &Alert) -> bool {
        self.has_alert_type(&a.event_type_name)
            && a.host_id.as_ref().is_none_or(|id| {
                w.hosts
                    .iter()
                    .find(|h| &h.id == id)
                    .is_none_or(|h| self.has_host(h))
            })
    }

    /// An alert metric's name as the flavour says it.
    pub(crate) fn alert_metric<'a>(&self, name: &'a str) -> &'a str {
        match ATLAS_ALERT_METRICS.iter().find(|(om, _)| *om == name) {
            Some((_, atlas)) if self.atlas() => atlas,
            _ => name,
        }
    }

    /// A project's name as the flavour allows it: Atlas's names have no spaces (its
    /// specification's pattern), so a space is a `-` there.
    pub(crate) fn project_name(&self, name: &str) -> String {
        if self.atlas() {
            name.replace(' ', "-")
        } else {
            name.to_string()
        }
    }
}

/// An Atlas user name: its email (Atlas's `acknowledgingUsername` is one). A name that is not
/// one (an API key's public key, a service account's client id, the world's users) gets a
/// domain of its own.
pub(crate) fn email(user: &str) -> String {
    if user.contains('@') {
        user.to_string()
    } else {
        format!("{}@users.opsapi-sim.example.com", user.to_ascii_lowercase())
    }
}

/// The version dates `Accept` asks for (`application/vnd.atlas.{date}+json`).
fn accepted_versions(accept: Option<&str>) -> Vec<&str> {
    accept
        .unwrap_or("")
        .split(',')
        .filter_map(|t| {
            let t = t.split(';').next()?.trim();
            t.strip_prefix("application/vnd.atlas.")?
                .strip_suffix("+json")
        })
        .collect()
}

/// Atlas: the version `Accept` names of the operation's (its row's versions, as the
/// specification gives them: acknowledging an alert takes `2024-05-30` and, until 2027-07-01,
/// `2023-01-01`; clusters `2024-08-05` alone, their older versions being of other shapes),
/// which its answer is in; 406 unless it names one, 410 `VERSION_GONE` for one past its
/// sunset (by the simulator's clock). `None` on the other flavours.
pub(crate) fn check_version(
    shared: &Shared,
    row: &'static Row,
    accept: Option<&str>,
) -> Result<Option<&'static AtlasVersion>, Reply> {
    if shared.config.flavour != Flavour::Atlas {
        return Ok(None);
    }
    let asked = accepted_versions(accept);
    let Some(found) = row.atlas_versions.iter().find(|v| asked.contains(&v.date)) else {
        return Err(err(
            406,
            "INVALID_VERSION_DATE",
            "Invalid accept header or version date.",
            vec![],
        ));
    };
    let today = shared.clock.now().format("%Y-%m-%d").to_string();
    if let Some(sunset) = found.sunset.filter(|s| today.as_str() >= *s) {
        return Err(err(
            410,
            "VERSION_GONE",
            format!(
                "Version {} of this resource was sunset on {sunset}.",
                found.date
            ),
            vec![json!(found.date)],
        ));
    }
    Ok(Some(found))
}

/// Atlas: a token of the operation's endpoint set (its row's) in project `group`, or the 429
/// past it.
pub(crate) fn take_bucket(shared: &Shared, row: &Row, group: &str) -> Option<Reply> {
    if shared.config.flavour != Flavour::Atlas {
        return None;
    }
    let set = row.endpoint_set;
    let spec = shared
        .config
        .token_buckets
        .iter()
        .find(|(s, _)| *s == set)
        .map(|(_, b)| *b)?;
    let now = shared.clock.elapsed();
    let mut buckets = lock(&shared.atlas.buckets);
    let bucket = buckets.entry((set, group.to_owned())).or_insert(Bucket {
        tokens: f64::from(spec.capacity),
        at: now,
    });
    let wait = bucket.take(spec, now).err()?;
    let resource = format!("api/atlas/v2/groups/{group}/{set}");
    Some(bucket_exceeded(&resource, spec, wait))
}

/// Atlas's 429 of an empty token bucket, in the documented words.
fn bucket_exceeded(resource: &str, spec: TokenBucket, wait: Duration) -> Reply {
    let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
    let per = if spec.per_minute.fract() == 0.0 {
        json!(spec.per_minute as u64)
    } else {
        json!(spec.per_minute)
    };
    let mut reply = err(
        429,
        "RATE_LIMITED_TOKEN_BUCKET",
        format!(
            "Rate limit exceeded for {resource}. Please retry after {secs} seconds. Request \
             capacity: {}. Refill rate: {per} per 60 seconds.",
            spec.capacity
        ),
        vec![
            json!(resource),
            json!(secs),
            json!(spec.capacity),
            per,
            json!(60),
        ],
    );
    reply.headers.push(("retry-after", secs.to_string()));
    reply
        .headers
        .push(("ratelimit-limit", spec.capacity.to_string()));
    reply.headers.push(("ratelimit-remaining", "0".into()));
    reply
}

/// Whether `path` is the token endpoint of this simulator (Atlas only).
pub(crate) fn is_token_endpoint(shared: &Shared, path: &str) -> bool {
    shared.config.flavour == Flavour::Atlas && path == OAUTH_TOKEN_PATH
}

/// `POST /api/oauth/token`: the endpoint's own bucket, the client credentials, the grant.
/// Returns whether the credentials were the service account's, and the answer.
pub(crate) fn token_endpoint(
    shared: &Shared,
    method: &str,
    authz: Option<&str>,
    body: &[u8],
) -> (bool, Reply) {
    if method != "POST" {
        return (
            false,
            err(
                405,
                "METHOD_NOT_ALLOWED",
                format!("Method {method} is not allowed for {OAUTH_TOKEN_PATH}."),
                vec![json!(method)],
            ),
        );
    }
    if let Some(spec) = shared.config.token_endpoint_limit {
        let now = shared.clock.elapsed();
        let mut slot = lock(&shared.atlas.token_endpoint);
        let bucket = slot.get_or_insert(Bucket {
            tokens: f64::from(spec.capacity),
            at: now,
        });
        if let Err(wait) = bucket.take(spec, now) {
            return (false, bucket_exceeded("api/oauth/token", spec, wait));
        }
    }
    let keys = &shared.keys;
    let expected = format!(
        "Basic {}",
        base64(format!("{}:{}", keys.client_id, keys.client_secret).as_bytes())
    );
    let oauth_error = |status: u16, code: &str, description: &str| {
        let body = json!({"error": code, "error_description": description});
        Reply::json(status, body.to_string().into_bytes())
    };
    if authz.map(str::trim) != Some(expected.as_str()) {
        return (
            false,
            oauth_error(401, "invalid_client", "Invalid client credentials."),
        );
    }
    let grant = url::form_urlencoded::parse(body)
        .any(|(k, v)| k == "grant_type" && v == "client_credentials");
    if !grant {
        return (
            true,
            oauth_error(
                400,
                "unsupported_grant_type",
                "The grant_type must be client_credentials.",
            ),
        );
    }
    let token = {
        let mut r = lock(&shared.rng);
        format!(
            "{:016x}{:016x}{:016x}",
            r.next_u64(),
            r.next_u64(),
            r.next_u64()
        )
    };
    lock(&shared.atlas.tokens).insert(token.clone(), shared.clock.elapsed());
    let body = json!({
        "access_token": token,
        "expires_in": shared.config.token_lifetime.as_secs(),
        "token_type": "Bearer",
    });
    (true, Reply::json(200, body.to_string().into_bytes()))
}

/// A `Bearer` token: the service account's while it has not expired (Atlas only).
pub(crate) fn verify_bearer(shared: &Shared, token: &str) -> Auth {
    if shared.config.flavour != Flavour::Atlas {
        return Auth::Challenge { stale: false };
    }
    let issued = lock(&shared.atlas.tokens).get(token.trim()).copied();
    match issued {
        Some(at) if shared.clock.elapsed().saturating_sub(at) < shared.config.token_lifetime => {
            Auth::Ok(Role::Owner, shared.keys.client_id.clone())
        }
        _ => Auth::Challenge { stale: false },
    }
}

/// Standard base64 with padding (RFC 4648), for the client credentials' Basic header.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The Atlas tier of a host, by its memory (a cluster's processes have its tier's:
/// `world/clusters.rs`).
pub(crate) fn tier(h: &Host) -> &'static str {
    crate::sim::TIERS
        .iter()
        .find(|t| h.mem_size_mb as f64 <= t.memory_gib * 1024.0)
        .map_or("M80", |t| t.name)
}

impl Ctx<'_> {
    pub(crate) fn atlas(&self) -> bool {
        self.shared.config.flavour == Flavour::Atlas
    }

    /// How the flavour names a host in paths and bodies: its id, or on Atlas its process
    /// (`hostname:port`).
    pub(crate) fn host_ref(&self, h: &Host) -> String {
        if self.atlas() {
            h.process_id()
        } else {
            h.id.clone()
        }
    }

    /// Whether `h` is the host a path names (`id`, or `hostname:port` on Atlas).
    pub(crate) fn names_host(&self, h: &Host, id: &str) -> bool {
        if self.atlas() {
            h.process_id() == id
        } else {
            h.id == id
        }
    }

    /// The path of a host below the API (`/groups/{g}/hosts/{id}`, on Atlas
    /// `/groups/{g}/processes/{hostname:port}`), encoded.
    pub(crate) fn host_base(&self, h: &Host) -> String {
        let segment = if self.atlas() { "processes" } else { "hosts" };
        format!(
            "/groups/{}/{segment}/{}",
            h.group_id,
            enc(&self.host_ref(h))
        )
    }

    /// Atlas: `PT10S` only for tier M40 and larger.
    pub(crate) fn granularity_allowed(&self, h: &Host, granularity: &str) -> Result<(), Reply> {
        let tier = tier(h);
        if !self.atlas() || granularity != "PT10S" || !matches!(tier, "M10" | "M20" | "M30") {
            return Ok(());
        }
        Err(err(
            400,
            "INVALID_GRANULARITY",
            format!(
                "Granularity PT10S is available on clusters of tier M40 and larger; {} is {tier}.",
                h.process_id()
            ),
            vec![json!(granularity)],
        ))
    }

    /// A process as Atlas shows it.
    pub(crate) fn process_json(&self, h: &Host) -> Value {
        let mut m = Map::new();
        m.insert("created".into(), json!(iso(&h.created)));
        m.insert("groupId".into(), json!(h.group_id));
        m.insert("hostname".into(), json!(h.hostname));
        m.insert("id".into(), json!(h.process_id()));
        m.insert("lastPing".into(), json!(iso(&h.last_ping)));
        let base = self.host_base(h);
        m.insert(
            "links".into(),
            json!([
                link(self.url(&base), "self"),
                link(
                    self.url(&format!("{base}/measurements")),
                    "http://mms.mongodb.com/measurements"
                ),
            ]),
        );
        m.insert("port".into(), json!(h.port));
        if let Some(rs) = &h.replica_set_name {
            m.insert("replicaSetName".into(), json!(rs));
        }
        if let Some(s) = &h.shard_name {
            m.insert("shardName".into(), json!(s));
        }
        m.insert("typeName".into(), json!(h.type_name));
        m.insert(
            "userAlias".into(),
            json!(h.alias.as_deref().unwrap_or(&h.hostname)),
        );
        m.insert("version".into(), json!(h.version));
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_rfc_4648() {
        for (input, want) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), want);
        }
    }

    #[test]
    fn accept_names_versions() {
        assert_eq!(
            accepted_versions(Some("application/vnd.atlas.2023-01-01+json; charset=utf-8")),
            vec!["2023-01-01"]
        );
        assert!(accepted_versions(Some("application/json")).is_empty());
        assert!(accepted_versions(None).is_empty());
    }
}
