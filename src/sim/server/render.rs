//! Answers as the service gives them: `Reply`, the error body, the rendering options every
//! response honours (`pretty`, `envelope`), links, and the error constructors shared by handlers.

use super::*;

/// The options every response honours.
pub(crate) struct Render {
    pub(crate) pretty: bool,
    pub(crate) envelope: bool,
}

impl Render {
    pub(crate) fn entity(&self, status: u16, v: Value) -> Reply {
        let v = if self.envelope {
            json!({"status": status, "content": v})
        } else {
            v
        };
        self.value(status, &v)
    }

    pub(crate) fn list(&self, status: u16, mut v: Value) -> Reply {
        if self.envelope {
            if let Value::Object(m) = &mut v {
                m.insert("status".into(), json!(status));
            }
        }
        self.value(status, &v)
    }

    pub(crate) fn value(&self, status: u16, v: &Value) -> Reply {
        let body = if self.pretty {
            serde_json::to_vec_pretty(v)
        } else {
            serde_json::to_vec(v)
        };
        Reply::json(status, body.unwrap_or_default())
    }
}

pub(crate) fn link(href: String, rel: &str) -> Value {
    json!({"href": href, "rel": rel})
}

pub(crate) fn enc(s: &str) -> String {
    utf8_percent_encode(s, SEGMENT).to_string()
}

impl Reply {
    pub(crate) fn with_body(mut self, body: Bytes) -> Self {
        self.body = body;
        self
    }
}

pub(crate) fn invalid_query(name: &str, v: &str) -> Reply {
    err(
        400,
        "INVALID_QUERY_PARAMETER",
        format!("An invalid value {v} was specified for query parameter {name}."),
        vec![json!(name), json!(v)],
    )
}

pub(crate) fn missing(name: &str) -> Reply {
    err(
        400,
        "MISSING_QUERY_PARAMETER",
        format!("The required query parameter {name} was not specified."),
        vec![json!(name)],
    )
}

pub(crate) fn invalid_period() -> Reply {
    err(
        400,
        "INVALID_PERIOD",
        "An invalid period was specified.",
        vec![],
    )
}

pub(crate) fn alert_not_found(id: &str) -> Reply {
    err(
        404,
        "ALERT_NOT_FOUND",
        format!("No alert with ID {id} exists."),
        vec![json!(id)],
    )
}

pub(crate) fn device_not_found(h: &str, d: &str) -> Reply {
    err(
        404,
        "DEVICE_NOT_FOUND",
        format!("No disk partition named {d} exists on host {h}."),
        vec![json!(d), json!(h)],
    )
}

pub(crate) fn database_not_found(h: &str, d: &str) -> Reply {
    err(
        404,
        "DATABASE_NOT_FOUND",
        format!("No database named {d} exists on host {h}."),
        vec![json!(d), json!(h)],
    )
}

pub(crate) fn config_not_found(g: &str, c: &str) -> Reply {
    err(
        404,
        "ALERT_CONFIG_NOT_FOUND",
        format!("No alert configuration with ID {c} exists in group {g}."),
        vec![json!(c), json!(g)],
    )
}
