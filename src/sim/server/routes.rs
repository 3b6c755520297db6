//! Paths to routes, which method each route allows, and the authorization of a request for
//! its route (the roles of the API keys) before dispatch.

use super::*;

/// What a measurements request reads: a host, one of its partitions or one of its databases
/// (by index).
#[derive(Clone, Copy)]
pub(crate) enum Of {
    Host,
    Disk(usize),
    Database(usize),
}

pub(crate) enum Route<'a> {
    Groups,
    Group(&'a str),
    Hosts(&'a str),
    Host(&'a str, &'a str),
    HostMeasurements(&'a str, &'a str),
    Disks(&'a str, &'a str),
    Disk(&'a str, &'a str, &'a str),
    DiskMeasurements(&'a str, &'a str, &'a str),
    Databases(&'a str, &'a str),
    Database(&'a str, &'a str, &'a str),
    DatabaseMeasurements(&'a str, &'a str, &'a str),
    AlertConfigs(&'a str),
    AlertConfig(&'a str, &'a str),
    AlertConfigAlerts(&'a str, &'a str),
    GroupAlerts(&'a str),
    GroupAlert(&'a str, &'a str),
    Events(&'a str),
    Event(&'a str, &'a str),
    Clusters(&'a str),
    Cluster(&'a str, &'a str),
    GlobalAlerts,
    GlobalAlert(&'a str),
    AccessList,
    AccessListEntry(&'a str),
}

impl Route<'_> {
    pub(crate) fn group(&self) -> Option<&str> {
        use Route::*;
        match self {
            Group(g)
            | Hosts(g)
            | Host(g, _)
            | HostMeasurements(g, _)
            | Disks(g, _)
            | Disk(g, _, _)
            | DiskMeasurements(g, _, _)
            | Databases(g, _)
            | Database(g, _, _)
            | DatabaseMeasurements(g, _, _)
            | AlertConfigs(g)
            | AlertConfig(g, _)
            | AlertConfigAlerts(g, _)
            | GroupAlerts(g)
            | GroupAlert(g, _)
            | Events(g)
            | Event(g, _)
            | Clusters(g)
            | Cluster(g, _) => Some(g),
            _ => None,
        }
    }

    pub(crate) fn is_global(&self) -> bool {
        matches!(
            self,
            Route::GlobalAlerts
                | Route::GlobalAlert(_)
                | Route::AccessList
                | Route::AccessListEntry(_)
        )
    }

    pub(crate) fn allows(&self, method: &str) -> bool {
        match self {
            Route::GlobalAlert(_) | Route::GroupAlert(..) => method == "GET" || method == "PATCH",
            Route::AccessListEntry(_) => method == "GET" || method == "DELETE",
            _ => method == "GET",
        }
    }
}

pub(crate) fn route<'a>(segs: &'a [String]) -> Option<Route<'a>> {
    let s: Vec<&str> = segs.iter().map(String::as_str).collect();
    Some(match s.as_slice() {
        ["groups"] => Route::Groups,
        ["groups", g] => Route::Group(g),
        ["groups", g, "hosts"] => Route::Hosts(g),
        ["groups", g, "hosts", h] => Route::Host(g, h),
        ["groups", g, "hosts", h, "measurements"] => Route::HostMeasurements(g, h),
        ["groups", g, "hosts", h, "disks"] => Route::Disks(g, h),
        ["groups", g, "hosts", h, "disks", d] => Route::Disk(g, h, d),
        ["groups", g, "hosts", h, "disks", d, "measurements"] => Route::DiskMeasurements(g, h, d),
        ["groups", g, "hosts", h, "databases"] => Route::Databases(g, h),
        ["groups", g, "hosts", h, "databases", d] => Route::Database(g, h, d),
        ["groups", g, "hosts", h, "databases", d, "measurements"] => {
            Route::DatabaseMeasurements(g, h, d)
        }
        ["groups", g, "alertConfigs"] => Route::AlertConfigs(g),
        ["groups", g, "alertConfigs", c] => Route::AlertConfig(g, c),
        ["groups", g, "alertConfigs", c, "alerts"] => Route::AlertConfigAlerts(g, c),
        ["groups", g, "alerts"] => Route::GroupAlerts(g),
        ["groups", g, "alerts", a] => Route::GroupAlert(g, a),
        ["groups", g, "events"] => Route::Events(g),
        ["groups", g, "events", e] => Route::Event(g, e),
        ["groups", g, "clusters"] => Route::Clusters(g),
        ["groups", g, "clusters", c] => Route::Cluster(g, c),
        ["globalAlerts"] => Route::GlobalAlerts,
        ["globalAlerts", a] => Route::GlobalAlert(a),
        ["admin", "accessList"] => Route::AccessList,
        ["admin", "accessList", e] => Route::AccessListEntry(e),
        _ => return None,
    })
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
    let Some(segs) = atlas::segments(shared.config.flavour, segs) else {
        return not_found_resource(path);
    };
    let Some(route) = route(&segs) else {
        return not_found_resource(path);
    };
    let version = match atlas::check_version(shared, &route, method, accept) {
        Ok(v) => v,
        Err(refused) => return refused,
    };
    if let Some(g) = route.group() {
        if let Err(wait) = shared.limiter.take(g, shared.clock.elapsed()) {
            struck.push("rate_limit".into());
            let rate = shared.limiter.rate().unwrap_or(1.0);
            return super::super::limit::rate_limited(path, rate, wait);
        }
        if let Some(limited) = atlas::take_bucket(shared, &route, g) {
            struck.push("token_bucket".into());
            return limited;
        }
    }
    if role == Role::ReadOnly {
        if route.is_global() || method != "GET" {
            return err(
                401,
                "USER_UNAUTHORIZED",
                "Current user is not authorized to perform this action.",
                vec![],
            );
        }
        if let Some(g) = route.group() {
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
    if !route.allows(method) {
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
        q: &q,
        r: &r,
    };
    let mut reply = ctx.dispatch(&route, body);
    // Atlas answers in the versioned media type asked for (its errors in plain JSON).
    if let Some(v) = version.filter(|_| (200..300).contains(&reply.status)) {
        reply.content_type = atlas::media_type(v);
    }
    reply
}
