//! The request pipeline: the flavour's form of the request, signing (`authenticate.rs`),
//! same-origin redirects, a 401 answered by the scheme (a new challenge, a new token), retries
//! by the rules documented on [`Client`] (`retry.rs`), the time budget, and bodies read under
//! the size cap.

use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{HeaderMap, ACCEPT, AUTHORIZATION, CONTENT_TYPE, LOCATION, USER_AGENT};
use reqwest::{Method, StatusCode};
use tokio::time::Instant;
use url::Url;

use super::authenticate::{Refusal, Refusals, Sending};
use super::retry::{parse_retry_after, Fault};
use super::{redact_url, Client, ServiceVersion};
use crate::error::{ApiError, Error, Result};
use crate::request::{build_url, request_target, Request};

/// Same-origin redirects followed for one request before giving up.
const MAX_REDIRECTS: u32 = 5;

/// An error body is kept up to this size (an HTML page from a proxy fits); the rest is not read.
const MAX_ERROR_BODY: usize = 1 << 20;

/// An answer with a success status.
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) body: Bytes,
}

fn service_version(headers: &HeaderMap) -> Option<ServiceVersion> {
    let h = headers
        .get("x-vendor-service-version")
        .or_else(|| headers.get("x-mongodb-service-version"))?;
    Some(ServiceVersion::parse(h.to_str().ok()?))
}

/// Whether the origin (scheme, host, port) of two URLs is the same.
fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// A body that could not be read whole.
enum BodyError {
    TooLarge,
    Transport(reqwest::Error),
}

/// Reads a body of at most `limit` bytes. A larger one is not read further; memory grows to
/// about the limit, never to the size the server announces or sends.
async fn read_body(
    resp: &mut reqwest::Response,
    limit: usize,
    process: &super::PerProcess,
) -> std::result::Result<Bytes, BodyError> {
    let announced = resp.content_length();
    if announced.is_some_and(|n| n > limit as u64) {
        return Err(BodyError::TooLarge);
    }
    let mut buf: Vec<u8> = process.body_buffer(announced.unwrap_or(0) as usize);
    while let Some(chunk) = resp.chunk().await.map_err(BodyError::Transport)? {
        let needed = buf.len() + chunk.len();
        if needed > limit {
            return Err(BodyError::TooLarge);
        }
        if needed > buf.capacity() {
            // Doubling, but never past the limit.
            let target = needed.max(buf.capacity() * 2).min(limit);
            buf.reserve_exact(target - buf.len());
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(buf))
}

/// Reads up to `limit` bytes of a body that matters only as text for a message (an error
/// body, a 401 drained for connection reuse); the rest is left unread.
async fn read_some(resp: &mut reqwest::Response, limit: usize) -> Bytes {
    let mut buf = Vec::new();
    while let Ok(Some(chunk)) = resp.chunk().await {
        let room = limit - buf.len();
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if buf.len() >= limit {
            break;
        }
    }
    Bytes::from(buf)
}

impl Client {
    /// Sends a request: signs it, follows same-origin redirects, re-challenges on 401,
    /// retries transient faults (see [`Client`] for the rules), all within the time budget,
    /// and turns error statuses into [`Error::Api`].
    pub(crate) async fn execute(&self, req: &Request) -> Result<Response> {
        let config = &self.inner.config;
        // The request as the server's flavour takes it (its path, its versioned media type),
        // or `Unsupported` before anything is sent.
        let resolved;
        let req = if req.needs_flavour(config.flavour) {
            resolved = req.clone().for_flavour(config.flavour)?;
            &resolved
        } else {
            req
        };
        let deadline = Instant::now() + config.timeout;
        let process = self.process()?;
        let mut url = build_url(&config.base, &req.path, &req.query)?;
        let method = req.method.clone();
        let pace = super::pace::key(
            &req.path,
            (config.flavour == crate::Flavour::Atlas).then(|| req.operation.endpoint_set()),
        );
        let rate = config.rate_limit.of(Some(req.operation.endpoint_set()));
        let accept = reqwest::header::HeaderValue::from_str(&req.accept())
            .map_err(|e| Error::Internal(format!("an Accept header: {e}")))?;
        let mut retries: u32 = 0;
        let mut redirects: u32 = 0;
        // An attempt that may have reached the server was made (for DELETE's 404 rule).
        let mut reached = false;
        // A signed request refused with a new challenge (or an expired token) is sent once
        // more; so is the unsigned first request of a fresh client (the handshake).
        let mut refusals = Refusals::default();
        let sending = Sending {
            client: self,
            method: method.as_str(),
            path: &req.path,
            deadline,
        };
        let auth = process.auth.as_deref();
        let mut handshake = match auth {
            Some(a) => a.begin(&sending).await?,
            None => None,
        };
        loop {
            // The request's slot of its project's pace, then its turn on the wire (a permit,
            // released before any wait for a retry, `permit.take()`, and at the end of the
            // attempt). A 429 that taught the pace meanwhile makes the slot stale: take
            // another.
            let (sent, mut permit) = loop {
                let (at, generation) = self.inner.pacer.slot(&pace, rate);
                if at > deadline {
                    return Err(self.timeout_error(req));
                }
                if at > Instant::now() {
                    tokio::time::sleep_until(at).await;
                }
                let permit = tokio::time::timeout_at(deadline, process.in_flight.acquire())
                    .await
                    .map_err(|_| self.timeout_error(req))?
                    .map_err(|_| self.timeout_error(req))?;
                if self.inner.pacer.still(&pace, generation) {
                    break (at, Some(permit));
                }
            };
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(self.timeout_error(req));
            }
            let target = request_target(&url);
            let signed = match auth {
                Some(a) => a.authorization(&sending, &target).await?,
                None => None,
            };
            let mut rb = process
                .http
                .request(method.clone(), url.clone())
                .timeout(remaining)
                .header(ACCEPT, accept.clone())
                .header(USER_AGENT, config.user_agent.clone());
            if let Some(s) = &signed {
                rb = rb.header(AUTHORIZATION, s.header.clone());
            }
            let body = match &req.timed_body {
                Some(timed) => Some(timed.at(self.server_time())?),
                None => req.body.clone(),
            };
            if let Some(body) = body {
                // Atlas takes a body in the operation's versioned media type too.
                rb = rb.header(CONTENT_TYPE, accept.clone()).body(body);
            }
            let started = std::time::Instant::now();
            let mut resp = match rb.send().await {
                Ok(resp) => resp,
                Err(e) => {
                    let fault = if e.is_connect() {
                        Fault::Connect
                    } else {
                        Fault::MaybeApplied
                    };
                    reached |= fault == Fault::MaybeApplied;
                    // A refused certificate gets the same answer on every attempt.
                    let no_retry = e.is_timeout() || crate::tls::is_tls_error(&e);
                    let err = self.transport_error(req, e);
                    permit.take();
                    if !no_retry
                        && self
                            .retry(req, fault, &mut retries, deadline, None, &err)
                            .await
                    {
                        continue;
                    }
                    return Err(err);
                }
            };
            let status = resp.status();
            self.inner
                .server_clock
                .observe(resp.headers(), chrono::Utc::now());

            if status.is_redirection() {
                if let Some(next) = self.redirect(req, &url, &resp, &mut redirects)? {
                    let _ = read_some(&mut resp, 64 << 10).await;
                    url = next;
                    continue;
                }
            }

            if status == StatusCode::UNAUTHORIZED {
                let again = auth.is_some_and(|a| {
                    let refusal = Refusal {
                        cx: &sending,
                        sent: signed.as_ref(),
                        headers: resp.headers(),
                    };
                    a.refused(refusal, &mut refusals)
                });
                if again {
                    drop(handshake.take());
                    // Read the 401 body so that the connection can be reused.
                    let _ = read_some(&mut resp, 64 << 10).await;
                    continue;
                }
            }
            drop(handshake.take());
            // The server took the signature (anything but a 401): a nonce (or token) that
            // expires again while this request waits for a retry is answered again.
            if status != StatusCode::UNAUTHORIZED {
                refusals.signed = 0;
            }

            let headers = std::mem::take(resp.headers_mut());
            let retry_after = parse_retry_after(&headers);
            if status.is_success() {
                let body = match read_body(&mut resp, config.max_response_bytes, &process).await {
                    Ok(body) => body,
                    Err(BodyError::TooLarge) => return Err(self.too_large(req)),
                    Err(BodyError::Transport(e)) => {
                        reached = true;
                        let timed_out = e.is_timeout();
                        let err = self.transport_error(req, e);
                        let fault = Fault::MaybeApplied;
                        permit.take();
                        if !timed_out
                            && self
                                .retry(req, fault, &mut retries, deadline, None, &err)
                                .await
                        {
                            continue;
                        }
                        return Err(err);
                    }
                };
                self.log_request(req, status, started, body.len());
                self.inner.pacer.succeeded(&pace);
                if let Some(v) = service_version(&headers) {
                    *self
                        .inner
                        .server_version
                        .write()
                        .unwrap_or_else(|e| e.into_inner()) = Some(v);
                }
                return Ok(Response { body });
            }

            let body = read_some(&mut resp, MAX_ERROR_BODY).await;
            self.log_request(req, status, started, body.len());
            if status == StatusCode::NOT_FOUND && method == Method::DELETE && reached {
                // An earlier attempt may have reached the server and deleted the entry: its
                // absence now is that attempt's success, not a wrong id.
                tracing::info!(
                    target: "opsapi",
                    method = %method, path = %req.path,
                    "404 on a retried DELETE: the first attempt deleted it"
                );
                return Ok(Response { body: Bytes::new() });
            }
            let mut api = ApiError::from_response(status.as_u16(), &body, retry_after);
            api.request = format!("{method} {}", req.path);
            // A 429 that states a rate of two requests a second or more, with a `Retry-After`
            // of at most 1 s: the next request is due within half a second, which the header's
            // whole seconds cannot say, so its 1 is rounding, not a wait the server needs. The
            // project's pace now spaces the retry as the server allows (a full second would
            // hold up a listing or a fleet pull: 1.3x the minimum instead of 1.06x).
            let mut retry_after = retry_after;
            if status == StatusCode::TOO_MANY_REQUESTS {
                self.inner.pacer.limited(&pace, &api, sent);
                let stated = crate::client::pace::stated_limit(&api);
                if stated.is_some_and(|r| r >= 2.0)
                    && retry_after.is_none_or(|d| d <= Duration::from_secs(1))
                {
                    retry_after = Some(Duration::ZERO);
                }
            }
            let err = Error::Api(Box::new(api));
            let fault = match status.as_u16() {
                429 => Some(Fault::RateLimited),
                502..=504 => Some(Fault::MaybeApplied),
                _ => None,
            };
            if let Some(fault) = fault {
                reached |= fault == Fault::MaybeApplied;
                permit.take();
                if self
                    .retry(req, fault, &mut retries, deadline, retry_after, &err)
                    .await
                {
                    continue;
                }
            }
            return Err(err);
        }
    }

    /// The next URL of a redirect, when it is to be followed; an error for one that is not.
    fn redirect(
        &self,
        req: &Request,
        from: &Url,
        resp: &reqwest::Response,
        redirects: &mut u32,
    ) -> Result<Option<Url>> {
        let Some(location) = resp.headers().get(LOCATION) else {
            return Ok(None);
        };
        let secret = self.secret();
        let location = String::from_utf8_lossy(location.as_bytes()).into_owned();
        let transport = |message: String| Error::Transport {
            method: req.method.to_string(),
            path: req.path.clone(),
            message,
        };
        let next = from.join(&location).map_err(|e| {
            transport(format!(
                "the server redirected to `{}`, which is not a URL: {e}",
                redact_url(&location, secret)
            ))
        })?;
        if !same_origin(from, &next) {
            return Err(transport(format!(
                "the server answered {} with a redirect to another origin, `{}`; it was not \
                 followed, because credentials are never sent to another origin (if that \
                 server is the API, make it the base_url)",
                resp.status().as_u16(),
                redact_url(next.as_str(), secret)
            )));
        }
        let keeps_method = matches!(resp.status().as_u16(), 307 | 308);
        if req.method != Method::GET && !keeps_method {
            return Err(transport(format!(
                "the server answered {} with a redirect to `{}`; a {} is only re-sent to \
                 another URL on 307 or 308",
                resp.status().as_u16(),
                redact_url(next.path(), secret),
                req.method
            )));
        }
        *redirects += 1;
        if *redirects > MAX_REDIRECTS {
            return Err(transport(format!(
                "more than {MAX_REDIRECTS} redirects (the last to `{}`)",
                redact_url(next.path(), secret)
            )));
        }
        Ok(Some(next))
    }

    fn log_request(
        &self,
        req: &Request,
        status: StatusCode,
        started: std::time::Instant,
        n: usize,
    ) {
        tracing::debug!(
            target: "opsapi",
            method = %req.method,
            path = %req.path,
            status = status.as_u16(),
            duration_ms = started.elapsed().as_secs_f64() * 1000.0,
            bytes = n,
            "request"
        );
    }

    /// Sends a request and decodes the answer (a model or measurements).
    pub(crate) async fn send_decoded<T: crate::decode::Decode>(&self, req: Request) -> Result<T> {
        let resp = self.execute(&req).await?;
        let decoded = T::decode_at(&req.path, &resp.body);
        // A body nothing decoded keeps (a fleet pull's measurements) reads the next one.
        if let Ok(process) = self.process() {
            process.recycle(resp.body);
        }
        decoded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_compare_scheme_host_and_port() {
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(same_origin(&u("https://om/a"), &u("https://om:443/b?c")));
        assert!(!same_origin(&u("https://om/a"), &u("http://om/a")));
        assert!(!same_origin(&u("https://om/a"), &u("https://om:8443/a")));
        assert!(!same_origin(&u("https://om/a"), &u("https://evil/a")));
    }
}
