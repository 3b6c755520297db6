//! How a request is authenticated: one trait, [`Authenticate`], with HTTP Digest (an API key:
//! Ops Manager, Cloud Manager, Atlas) and OAuth 2 client credentials (an Atlas service
//! account, `oauth.rs`) behind it. The send path (`send.rs`) asks it for each attempt's
//! `Authorization` and tells it of each 401; the scheme decides whether the request goes
//! out again.

use futures_util::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderValue, WWW_AUTHENTICATE};
use tokio::time::Instant;

use super::Client;
use crate::auth::{Challenge, Credentials, DigestSession};
use crate::error::Result;

/// One request on its way, as the scheme sees it.
pub(crate) struct Sending<'a> {
    pub(crate) client: &'a Client,
    pub(crate) method: &'a str,
    pub(crate) path: &'a str,
    /// The end of the request's time budget.
    pub(crate) deadline: Instant,
}

/// The `Authorization` of one attempt.
pub(crate) struct Authorization {
    /// The header value (marked sensitive: never logged).
    pub(crate) header: HeaderValue,
    /// Which credential signed it (the Digest nonce's session, the token's serial), so that a
    /// 401 is put down to that credential and not to a newer one.
    pub(crate) serial: u64,
}

/// The 401s one request has had, signed and unsigned (each scheme answers a refusal once).
#[derive(Debug, Default)]
pub(crate) struct Refusals {
    pub(crate) signed: u32,
    pub(crate) unsigned: u32,
}

/// A 401 answer to one attempt: the request, the `Authorization` it was sent with (`None`:
/// unsigned) and the answer's headers.
#[derive(Clone, Copy)]
pub(crate) struct Refusal<'a> {
    pub(crate) cx: &'a Sending<'a>,
    pub(crate) sent: Option<&'a Authorization>,
    pub(crate) headers: &'a HeaderMap,
}

/// What the first request of a fresh client holds until its answer (Digest's handshake).
pub(crate) type Handshake<'a> = Option<tokio::sync::MutexGuard<'a, ()>>;

/// An authentication scheme: what the send path asks of it for each request.
pub(crate) trait Authenticate: Send + Sync {
    /// Before the first attempt: what the request must hold until its first answer (Digest:
    /// the first request of a fresh client fetches the challenge while the others wait, so
    /// that they go out signed instead of each collecting a 401 of its own).
    fn begin<'a>(&'a self, cx: &'a Sending<'a>) -> BoxFuture<'a, Result<Handshake<'a>>>;

    /// The `Authorization` of one attempt to `target` (the request target as sent, which
    /// Digest signs); `None`: sent without one.
    fn authorization<'a>(
        &'a self,
        cx: &'a Sending<'a>,
        target: &'a str,
    ) -> BoxFuture<'a, Result<Option<Authorization>>>;

    /// A 401 answer to an attempt: whether the request goes out again, the scheme having
    /// learned what it needs (a new challenge; a token found expired, to be bought again by
    /// the next [`Authenticate::authorization`]).
    fn refused(&self, refusal: Refusal<'_>, refusals: &mut Refusals) -> bool;
}

/// HTTP Digest (RFC 7616, MD5, `qop=auth`) with the session of `crate::auth`: requests are
/// signed up front with the last challenge and an increasing nonce count.
pub(super) struct Digest {
    session: DigestSession,
    /// Held by the one request that fetches the first challenge of a fresh client.
    handshake: tokio::sync::Mutex<()>,
}

impl Digest {
    pub(super) fn new(credentials: Credentials) -> Self {
        Self {
            session: DigestSession::new(credentials),
            handshake: tokio::sync::Mutex::new(()),
        }
    }
}

impl Authenticate for Digest {
    fn begin<'a>(&'a self, cx: &'a Sending<'a>) -> BoxFuture<'a, Result<Handshake<'a>>> {
        Box::pin(async move {
            if self.session.has_challenge() {
                return Ok(None);
            }
            let guard = tokio::time::timeout_at(cx.deadline, self.handshake.lock())
                .await
                .map_err(|_| cx.client.timeout_error_of(cx.method, cx.path))?;
            Ok((!self.session.has_challenge()).then_some(guard))
        })
    }

    fn authorization<'a>(
        &'a self,
        cx: &'a Sending<'a>,
        target: &'a str,
    ) -> BoxFuture<'a, Result<Option<Authorization>>> {
        let signed = self.session.sign(cx.method, target).and_then(|s| {
            let mut header = HeaderValue::from_str(&s.header).ok()?;
            header.set_sensitive(true);
            Some(Authorization { header, serial: 0 })
        });
        Box::pin(std::future::ready(Ok(signed)))
    }

    fn refused(&self, refusal: Refusal<'_>, refusals: &mut Refusals) -> bool {
        let Refusal { cx, sent, headers } = refusal;
        let challenge = headers
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .filter_map(|h| h.to_str().ok())
            .find_map(|h| Challenge::parse(h).ok());
        // A signed request refused right after this request's own handshake is tried again
        // only for a stale nonce: a plain refusal then means wrong credentials.
        let fresh_challenge_refused =
            sent.is_some() && refusals.unsigned > 0 && !challenge.as_ref().is_some_and(|c| c.stale);
        let count = if sent.is_some() {
            &mut refusals.signed
        } else {
            &mut refusals.unsigned
        };
        let (Some(challenge), 0, false) = (challenge, *count, fresh_challenge_refused) else {
            return false;
        };
        tracing::debug!(
            target: "opsapi",
            method = cx.method, path = cx.path, stale = challenge.stale,
            signed = sent.is_some(), "digest challenge"
        );
        self.session.update(challenge);
        *count += 1;
        true
    }
}
