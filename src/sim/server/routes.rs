//! Requests to their operation by the flavour table's rows (`crate::flavour::Row`: the path
//! template of each flavour, the method), and the authorization of a request for its
//! operation before dispatch: the project's rate limit and Atlas's token bucket of the row's
//! endpoint set, the roles of the API keys by the row's scope, the version of Atlas's
//! versioned media type among the row's. Nothing here names an operation: a new row is
//! routed, limited and authorized as its row says.

use super::*;
use crate::flavour::{Operation, Scope, Segment};

/// What a measurements request reads: a host, one of its partitions or one of its databases
/// (by index).
#[derive(Clone, Copy)]
pub(crate) enum Of {
    Host,
    Disk(usize),
    Database(usize),
}

/// The identifiers of a request's path, by the names of its row's placeholders (decoded).
pub(crate) struct Params {
    names: Vec<&'static str>,
    values: Vec<String>,
}

impl Params {
    /// The identifier named `name` (a placeholder of the row's template).
    pub(crate) fn get(&self, name: &str) -> &str {
        let i = self.names.iter().position(|n| *n == name);
        debug_assert!(i.is_some(), "no placeholder {name} in {:?}", self.names);
        i.map_or("", |i| self.values[i].as_str())
    }

    /// The project, for a row below one.
    pub(crate) fn group(&self) -> &str {
        self.get("group_id")
    }
}

/// A request's operation by the flavour table: the row of `flavour` whose template its path
/// matches (decoded segments below the API prefix), with the identifiers; `allowed` is false
/// where a row has the path but none has the method (a 405 after the checks of the first
/// such row). `None`: no row of the flavour has the path.
pub(crate) fn route(
    flavour: crate::Flavour,
    method: &str,
    segs: &[String],
) -> Option<(Operation, Params, bool)> {
    let mut found = None;
    for op in Operation::ALL {
        let row = op.row();
        if !row.on(flavour) {
            continue;
        }
        let Some(params) = matches(row.path(flavour), segs) else {
            continue;
        };
        if row.method.as_str() == method {
            return Some((op, params, true));
        }
        found.get_or_insert((op, params, false));
    }
    found
}

/// The identifiers of `segs` if they are a path of `template`.
fn matches(template: &'static str, segs: &[String]) -> Option<Params> {
    let mut params = Params {
        names: Vec::new(),
        values: Vec::new(),
    };
    let mut given = segs.iter();
    for segment in crate::flavour::segments(template) {
        let got = given.next()?;
        match segment {
            Segment::Literal(s) if s != got => return None,
            Segment::Literal(_) => {}
            Segment::Param(name) => {
                params.names.push(name);
                params.values.push(got.clone());
            }
        }
    }
    given.next().is_none().then_some(params)
}

pub(crate) fn not_found_resource(path: &str) -> Reply {
    err(
        404,
        "RESOURCE_NOT_FOUND",
        format!("Cannot find resource {path}."),
        vec![json!(path)],
    )
}

/// An authorized request, as the handler sees it.
pub(crate) struct Handled<'a> {
    pub(crate) role: Role,
    pub(crate) user: &'a str,
    pub(crate) method: &'a str,
    pub(crate) path: &'a str,
    pub(crate) query: Option<&'a str>,
    pub(crate) body: &'a [u8],
    /// The `Accept` header (Atlas's versioned media type).
    pub(crate) accept: Option<&'a str>,
}

pub(crate) fn authorized(
    shared: &Shared,
    faults: &Faults,
    request: &Handled<'_>,
    struck: &mut Vec<String>,
) -> Reply {
    let Handled {
        role,
        user,
        method,
        path,
        query,
        body,
        accept,
    } = *request;
    // Injected or random error statuses, instead of the handler.
    if let Some(f) = shared.take_fault(
        &Arrival {
            method,
            path,
            query,
        },
        |f| f.stage() == Stage::Instead,
    ) {
        struck.push(f.label());
        if let Fault::Status {
            status,
            retry_after,
        } = f
        {
            return fault_status(path, status, retry_after);
        }
    }
    for (rate, status, retry_after, label) in [
        (
            faults.rate_429,
            429,
            Some(faults.retry_after_secs),
            "rate_429",
        ),
        (faults.rate_500, 500, None, "rate_500"),
        (
            faults.rate_503,
            503,
            Some(faults.retry_after_secs),
            "rate_503",
        ),
    ] {
        if shared.roll(rate) {
            struck.push(label.into());
            return fault_status(path, status, retry_after);
        }
    }

    let Some(rest) = path.strip_prefix(shared.config.flavour.api_path()) else {
        return not_found_resource(path);
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let rest = rest.strip_prefix('/').unwrap_or(rest);
    let segs: Vec<String> = rest
        .split('/')
        .map(|s| percent_decode_str(s).decode_utf8_lossy().into_owned())
        .collect();
    let Some((op, params, allowed)) = route(shared.config.flavour, method, &segs) else {
        return not_found_resource(path);
    };
    let row = op.row();
    let version = match atlas::check_version(shared, row, accept) {
        Ok(v) => v,
        Err(refused) => return refused,
    };
    let group = (row.scope() == Scope::Project).then(|| params.group());
    if let Some(g) = group {
        if let Err(wait) = shared.limiter.take(g, shared.clock.elapsed()) {
            struck.push("rate_limit".into());
            let rate = shared.limiter.rate().unwrap_or(1.0);
            return super::super::limit::rate_limited(path, rate, wait);
        }
        if let Some(limited) = atlas::take_bucket(shared, row, g) {
            struck.push("token_bucket".into());
            return limited;
        }
    }
    if role == Role::ReadOnly {
        if row.scope() == Scope::Global || method != "GET" {
            return err(
                401,
                "USER_UNAUTHORIZED",
                "Current user is not authorized to perform this action.",
                vec![],
            );
        }
        if let Some(g) = group {
            if g != shared.keys.ro_group {
                return err(
                    401,
                    "NOT_IN_GROUP",
                    format!("User {user} is not a member of group {g}."),
                    vec![json!(user), json!(g)],
                );
            }
        }
    }
    if !allowed {
        return err(
            405,
            "METHOD_NOT_ALLOWED",
            format!("Method {method} is not allowed for {path}."),
            vec![json!(method)],
        );
    }
    let q = Query::parse(query);
    let r = Render {
        pretty: q.flag("pretty"),
        envelope: q.flag("envelope"),
    };
    let ctx = Ctx {
        shared,
        method,
        role,
        user,
        path,
        row,
        q: &q,
        r: &r,
    };
    let mut reply = ctx.dispatch(op, &params, body);
    // Atlas answers in the versioned media type asked for (its errors in plain JSON).
    if let Some(v) = version.filter(|_| (200..300).contains(&reply.status)) {
        reply.content_type = v.media_type;
    }
    reply
}
