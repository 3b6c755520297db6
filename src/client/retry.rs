//! Retries and the errors of a failed attempt, for every request a client sends (the API's
//! in `send.rs`, the token endpoint's in `oauth.rs`): which faults may be sent again, the
//! backoff and `Retry-After` waits within the time budget, and the errors that name what
//! failed without the secret.

use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};
use reqwest::Method;
use tokio::time::Instant;

use super::{maskable, redact_url, Client};
use crate::error::Error;
use crate::request::Request;

/// An error and its sources, each once, joined by `: `.
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        let msg = inner.to_string();
        if !s.contains(&msg) {
            s.push_str(": ");
            s.push_str(&msg);
        }
        src = inner.source();
    }
    s
}

/// The wait a `Retry-After` asks for: whole seconds, or an HTTP date.
pub(crate) fn parse_retry_after(headers: &HeaderMap) -> Option<Duration> {
    let v = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    // An HTTP date counts from the answer's own `Date` (RFC 9110, 10.2.3), so that a skew
    // between the clocks does not lengthen or cut the wait.
    let now = super::server::http_date(headers).unwrap_or_else(chrono::Utc::now);
    let delta = when.with_timezone(&chrono::Utc) - now;
    Some(delta.to_std().unwrap_or(Duration::ZERO))
}

/// Why an attempt failed, for the retry rules (see [`Client`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The connection could not be made: nothing reached the server.
    Connect,
    /// 429: the server did not act on the request.
    RateLimited,
    /// A 502/503/504, a reset or a cut body: the server may have acted on the request.
    MaybeApplied,
}

/// Whether `method` may be sent again after `fault`.
fn may_retry(method: &Method, fault: Fault) -> bool {
    match fault {
        Fault::Connect | Fault::RateLimited => true,
        Fault::MaybeApplied => matches!(*method, Method::GET | Method::HEAD | Method::DELETE),
    }
}

impl Client {
    /// Decides whether to try again after `err`, and waits the backoff (or `Retry-After`)
    /// when so. No retry when the rules forbid it, the retries are spent, or the wait would
    /// not end before the time budget (or is longer than `max_retry_wait`).
    pub(crate) async fn retry(
        &self,
        req: &Request,
        fault: Fault,
        retries: &mut u32,
        deadline: Instant,
        retry_after: Option<Duration>,
        err: &Error,
    ) -> bool {
        let allowed = may_retry(&req.method, fault);
        self.retry_as(
            req.method.as_str(),
            &req.path,
            allowed,
            retries,
            deadline,
            retry_after,
            err,
        )
        .await
    }

    /// [`Client::retry`] of any request (the token endpoint's too): `allowed` says whether
    /// the rules let it be sent again after its fault.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn retry_as(
        &self,
        method: &str,
        path: &str,
        allowed: bool,
        retries: &mut u32,
        deadline: Instant,
        retry_after: Option<Duration>,
        err: &Error,
    ) -> bool {
        let config = &self.inner.config;
        if !allowed || *retries >= config.max_retries {
            return false;
        }
        let attempt = *retries + 1;
        let delay = match retry_after {
            Some(d) if d > config.max_retry_wait => return false,
            Some(d) => d,
            None => {
                let base = config.retry_backoff.as_secs_f64() * 2f64.powi(attempt as i32 - 1);
                let capped = base.min(8.0);
                // "Equal jitter": half fixed, half random, so retries of many clients spread.
                Duration::from_secs_f64(capped / 2.0 + fastrand::f64() * capped / 2.0)
            }
        };
        if Instant::now() + delay >= deadline {
            tracing::debug!(
                target: "opsapi",
                method, path, delay_ms = delay.as_millis() as u64,
                "not retrying: the wait would outlast the time budget"
            );
            return false;
        }
        *retries = attempt;
        tracing::warn!(
            target: "opsapi",
            method,
            path,
            attempt,
            max_retries = config.max_retries,
            delay_ms = delay.as_millis() as u64,
            "retrying after {}",
            short_reason(err)
        );
        tokio::time::sleep(delay).await;
        true
    }

    pub(crate) fn timeout_error(&self, req: &Request) -> Error {
        self.timeout_error_of(req.method.as_str(), &req.path)
    }

    /// The request's time budget was spent.
    pub(crate) fn timeout_error_of(&self, method: &str, path: &str) -> Error {
        Error::Timeout {
            method: method.to_string(),
            path: path.to_string(),
            timeout: self.inner.config.timeout,
        }
    }

    pub(crate) fn too_large(&self, req: &Request) -> Error {
        Error::ResponseTooLarge {
            method: req.method.to_string(),
            path: req.path.clone(),
            limit: self.inner.config.max_response_bytes,
        }
    }

    pub(crate) fn transport_error(&self, req: &Request, e: reqwest::Error) -> Error {
        self.transport_error_of(req.method.as_str(), &req.path, e)
    }

    /// The error of an attempt that got no answer (a timeout when its budget ran out): one
    /// sentence that names the URL it was sent to (without its query, user info or secret)
    /// and what went wrong, rather than the chain of the HTTP stack's messages.
    pub(crate) fn transport_error_of(&self, method: &str, path: &str, e: reqwest::Error) -> Error {
        if e.is_timeout() {
            return self.timeout_error_of(method, path);
        }
        let url = e.url().map(|u| {
            let mut u = u.clone();
            u.set_query(None);
            u.set_fragment(None);
            redact_url(u.as_str(), self.secret())
        });
        let url = url.as_deref().unwrap_or("the server");
        let e = e.without_url();
        let message = if crate::tls::is_tls_error(&e) {
            // The TLS refusal and what to do about it (`ca_file`, `verify`).
            crate::tls::with_hint(
                format!("could not connect securely to {url}: {}", cause(&e)),
                &e,
            )
        } else if e.is_connect() {
            format!("could not connect to {url} ({})", cause(&e))
        } else if e.is_body() || e.is_decode() {
            format!("the answer from {url} was cut short ({})", cause(&e))
        } else {
            format!("no answer from {url} ({})", cause(&e))
        };
        Error::Transport {
            method: method.to_string(),
            path: path.to_string(),
            message: match maskable(self.secret()) {
                Some(k) => message.replace(k, "***"),
                None => message,
            },
        }
    }
}

/// What went wrong under a transport error, in a few words: the innermost of its causes (the
/// operating system's, the TLS library's), without the layers above it.
fn cause(e: &(dyn std::error::Error + 'static)) -> String {
    if error_chain(e).contains("dns error") {
        return "its host name did not resolve".into();
    }
    let mut inner = e;
    while let Some(next) = inner.source() {
        inner = next;
    }
    let mut text = inner.to_string();
    if let Some(i) = text.find(" (os error ") {
        text.truncate(i);
    }
    // "Connection refused" reads as the middle of a sentence; "TLS ..." stays.
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && second.is_lowercase() => {
            first.to_lowercase().chain(text.chars().skip(1)).collect()
        }
        _ => text,
    }
}

/// A short reason for a retry's log line.
fn short_reason(err: &Error) -> String {
    match err {
        Error::Api(api) => api.status.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_rules_by_method() {
        for m in [Method::GET, Method::DELETE, Method::PATCH] {
            assert!(may_retry(&m, Fault::Connect));
            assert!(may_retry(&m, Fault::RateLimited));
        }
        assert!(may_retry(&Method::GET, Fault::MaybeApplied));
        assert!(may_retry(&Method::DELETE, Fault::MaybeApplied));
        assert!(!may_retry(&Method::PATCH, Fault::MaybeApplied));
    }
}
