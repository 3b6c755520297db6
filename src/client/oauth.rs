//! Atlas service accounts (OAuth 2 client credentials): the client's one access token, bought
//! at the token endpoint (`POST /api/oauth/token`, `Authorization: Basic`, the form
//! `grant_type=client_credentials`) and sent as `Authorization: Bearer`.
//!
//! The token endpoint is itself rate limited (about 10 requests a minute), so a token is
//! bought once and shared by every request of the client, its clones, threads and tasks:
//! requests that find no usable token wait for the one purchase under way instead of making
//! their own. It is shared with the other processes of the machine too, through the cache
//! of `token_file.rs`: a client with no usable token takes the one the cache holds, and buys
//! one (and leaves it there) only while it holds the cache's lock, so that the others wait
//! for it rather than buy their own.
//!
//! A token is bought again once, shortly before it expires ([`margin`]), by the server's
//! clock (the `Date` of its answers; for a token from the cache and a client that has had no
//! answer yet, the offset of that clock when the token was bought). A request refused 401
//! because its token expired by that clock is sent once more with a new one. A 401 of a token
//! that has not expired is the answer (the key may not do this), unless the token came from
//! the cache: the server may not know it (revoked, or a server restarted on the same
//! address), so the request is sent once more with a token bought anew. A 429 of the token
//! endpoint is waited out within the request's time budget, as any 429.

use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use futures_util::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, CONTENT_TYPE, USER_AGENT};
use reqwest::StatusCode;
use serde::Deserialize;

use super::authenticate::{Authenticate, Authorization, Handshake, Refusal, Refusals, Sending};
use super::retry::parse_retry_after;
use super::server::{http_date, ServerClock};
use super::token_file::{Entry, TokenFile};
use crate::auth::ServiceAccount;
use crate::error::{ApiError, Error, Result};
use crate::flavour::OAUTH_TOKEN_PATH;

/// The token a request goes out with, or the failure of the last purchase.
#[derive(Default)]
pub(crate) struct TokenCache {
    state: Mutex<TokenState>,
}

#[derive(Default)]
struct TokenState {
    token: Option<Token>,
    /// Bumped by every token bought or taken from the shared cache, and by every failed
    /// purchase.
    serials: u64,
    /// The error of the last purchase, if it failed: requests that waited for it get it too,
    /// rather than each asking the rate-limited endpoint again.
    failed: Option<(u64, Error)>,
    /// The last token the server refused (expired by its clock, or unknown to it): not taken
    /// from the shared cache again. Judged by this client's estimate of the server's clock, a
    /// refused token can look usable still: an answer older than the refusal may set the
    /// estimate back.
    refused: Option<HeaderValue>,
}

struct Token {
    /// `Bearer …`, marked sensitive.
    header: HeaderValue,
    /// Which purchase bought it (or which taking from the cache took it).
    serial: u64,
    /// Issued and expiring, by the server's clock.
    issued: DateTime<Utc>,
    expires: DateTime<Utc>,
    /// The server's clock minus this machine's when it was bought: its "now" for a client
    /// that has had no answer of its own yet.
    offset: TimeDelta,
    /// Taken from the cache shared with other processes, not bought by this client.
    shared: bool,
}

impl Token {
    /// Whether it is still to be used at `now` (the server's): not within [`margin`] of its
    /// expiry.
    fn usable(&self, now: DateTime<Utc>) -> bool {
        now < self.expires - margin(self.expires - self.issued)
    }

    /// The server's now as `clock` tells it, else as it was when the token was bought.
    fn now(&self, clock: &ServerClock) -> DateTime<Utc> {
        Utc::now() + clock.offset().unwrap_or(self.offset)
    }
}

/// The lifetime of Atlas's access tokens (an hour: "Access tokens are valid for 1 hour",
/// Atlas's service-account documentation), assumed for a cached token whose cache did not
/// keep when it was issued.
const ATLAS_TOKEN_LIFETIME: TimeDelta = TimeDelta::hours(1);

/// How long before its expiry a token is bought again: a minute, or a tenth of a shorter
/// lifetime (a request in flight must still arrive with a valid token; the server's `Date`
/// is known to the second). One rule for every token, bought or taken from the cache.
fn margin(lifetime: TimeDelta) -> TimeDelta {
    (lifetime / 10).min(TimeDelta::seconds(60))
}

impl TokenCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, TokenState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The token to send now, if there is one still to be used.
    fn usable(&self, clock: &ServerClock) -> Option<Authorization> {
        let state = self.lock();
        let t = state.token.as_ref().filter(|t| t.usable(t.now(clock)))?;
        Some(Authorization {
            header: t.header.clone(),
            serial: t.serial,
        })
    }

    /// Takes the token of the shared cache, if it is one still to be used and not one the
    /// server refused.
    fn adopt(&self, entry: Option<Entry>, clock: &ServerClock) -> Option<Authorization> {
        let entry = entry?;
        let mut header = HeaderValue::from_str(&format!("Bearer {}", entry.access_token)).ok()?;
        header.set_sensitive(true);
        let mut state = self.lock();
        if state.refused.as_ref() == Some(&header) {
            return None;
        }
        // Judged as its buyer judges it: by its lifetime (a token of a cache that did not
        // keep when it was issued: Atlas's hour), whatever is left of it now.
        let offset = entry.offset();
        let issued = entry
            .issued
            .or_else(|| entry.expires.checked_sub_signed(ATLAS_TOKEN_LIFETIME))
            .unwrap_or(entry.expires);
        let mut token = Token {
            header,
            serial: 0,
            issued,
            expires: entry.expires,
            offset,
            shared: true,
        };
        if !token.usable(token.now(clock)) {
            return None;
        }
        state.serials += 1;
        token.serial = state.serials;
        tracing::debug!(
            target: "opsapi", serial = token.serial, expires = %token.expires,
            "took the access token of the cache shared with other processes"
        );
        let a = Authorization {
            header: token.header.clone(),
            serial: token.serial,
        };
        state.token = Some(token);
        Some(a)
    }
}

/// A token as the token endpoint sold it.
struct Bought {
    /// `Bearer …`, marked sensitive.
    header: HeaderValue,
    /// The token itself, for the shared cache.
    access_token: String,
    /// Issued and expiring, by the server's clock.
    issued: DateTime<Utc>,
    expires: DateTime<Utc>,
}

impl std::fmt::Debug for Bought {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bought")
            .field("expires", &self.expires)
            .finish_non_exhaustive()
    }
}

/// The scheme of a service account.
pub(crate) struct OAuth {
    account: ServiceAccount,
    url: url::Url,
    http: reqwest::Client,
    /// The cache shared with the other processes of the machine, unless it is off.
    shared: Option<TokenFile>,
    /// Held by the one request that buys a token; the others wait for it.
    purchase: tokio::sync::Mutex<()>,
}

impl OAuth {
    pub(crate) fn new(
        account: ServiceAccount,
        url: url::Url,
        http: reqwest::Client,
        shared: Option<TokenFile>,
    ) -> Self {
        Self {
            account,
            url,
            http,
            shared,
            purchase: tokio::sync::Mutex::new(()),
        }
    }

    /// The token to send: the one held while it is usable, else the shared cache's, else a
    /// new one, bought by one request (of one process, where the cache's lock can be taken)
    /// while the others wait.
    async fn token(&self, cx: &Sending<'_>) -> Result<Authorization> {
        let client = cx.client;
        let (cache, clock) = (&client.inner.tokens, &client.inner.server_clock);
        if let Some(a) = cache.usable(clock) {
            return Ok(a);
        }
        let seen = cache.lock().serials;
        let _turn = tokio::time::timeout_at(cx.deadline, self.purchase.lock())
            .await
            .map_err(|_| client.timeout_error_of(cx.method, cx.path))?;
        if let Some(a) = cache.usable(clock) {
            return Ok(a);
        }
        {
            let state = cache.lock();
            if let Some((n, e)) = &state.failed {
                if *n > seen {
                    return Err(same_error(e));
                }
            }
        }
        let Some(shared) = &self.shared else {
            return self.buy_and_keep(cx, None).await;
        };
        if let Some(a) = cache.adopt(shared.read(), clock) {
            return Ok(a);
        }
        // Another process may be buying one: its token is there once it lets go.
        let _held = shared.lock(cx.deadline).await;
        if let Some(a) = cache.adopt(shared.read(), clock) {
            return Ok(a);
        }
        self.buy_and_keep(cx, Some(shared)).await
    }

    /// Buys a token, and keeps it for the client's requests (and in the shared cache).
    async fn buy_and_keep(
        &self,
        cx: &Sending<'_>,
        shared: Option<&TokenFile>,
    ) -> Result<Authorization> {
        let client = cx.client;
        let bought = self.buy(cx).await;
        let offset = client.inner.server_clock.offset().unwrap_or_default();
        if let (Ok(b), Some(shared)) = (&bought, shared) {
            if let Some(expires_here) = b.expires.checked_sub_signed(offset) {
                shared.write(&Entry {
                    access_token: b.access_token.clone(),
                    issued: Some(b.issued),
                    expires: b.expires,
                    expires_here,
                });
            }
        }
        let mut state = client.inner.tokens.lock();
        state.serials += 1;
        let serial = state.serials;
        match bought {
            Ok(Bought {
                header,
                issued,
                expires,
                ..
            }) => {
                tracing::debug!(target: "opsapi", serial, %expires, "bought an access token");
                state.token = Some(Token {
                    header: header.clone(),
                    serial,
                    issued,
                    expires,
                    offset,
                    shared: false,
                });
                state.failed = None;
                Ok(Authorization { header, serial })
            }
            Err(e) => {
                state.failed = Some((serial, same_error(&e)));
                Err(e)
            }
        }
    }

    /// One purchase at the token endpoint, retried as the client's rules say (connect errors,
    /// 429 with its `Retry-After`, 502/503/504) within the request's time budget.
    async fn buy(&self, cx: &Sending<'_>) -> Result<Bought> {
        let client = cx.client;
        let config = &client.inner.config;
        let mut retries = 0;
        loop {
            let remaining = cx
                .deadline
                .saturating_duration_since(tokio::time::Instant::now());
            if remaining.is_zero() {
                return Err(client.timeout_error_of("POST", OAUTH_TOKEN_PATH));
            }
            let sent = self
                .http
                .post(self.url.clone())
                .timeout(remaining)
                .basic_auth(self.account.client_id(), Some(self.account.client_secret()))
                .header(ACCEPT, "application/json")
                .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
                .header(USER_AGENT, config.user_agent.clone())
                .body("grant_type=client_credentials")
                .send()
                .await;
            // Buying a token again after a fault changes nothing but the token: every fault
            // that can pass (connect errors, resets, 429, 502/503/504) may be retried.
            let (err, retry_after) = match sent {
                Err(e) => {
                    let no_retry = e.is_timeout() || crate::tls::is_tls_error(&e);
                    let err = client.transport_error_of("POST", OAUTH_TOKEN_PATH, e);
                    if no_retry {
                        return Err(err);
                    }
                    (err, None)
                }
                Ok(resp) => {
                    let status = resp.status();
                    let headers = resp.headers().clone();
                    client.inner.server_clock.observe(&headers, Utc::now());
                    let body = resp
                        .bytes()
                        .await
                        .map_err(|e| client.transport_error_of("POST", OAUTH_TOKEN_PATH, e))?;
                    if status.is_success() {
                        return token_of(&body, &headers, client.server_time());
                    }
                    let retry_after = parse_retry_after(&headers);
                    let mut api = token_error(status.as_u16(), &body, retry_after);
                    api.request = format!("POST {OAUTH_TOKEN_PATH}");
                    let err = Error::Api(Box::new(api));
                    if !matches!(
                        status,
                        StatusCode::TOO_MANY_REQUESTS
                            | StatusCode::BAD_GATEWAY
                            | StatusCode::SERVICE_UNAVAILABLE
                            | StatusCode::GATEWAY_TIMEOUT
                    ) {
                        return Err(err);
                    }
                    (err, retry_after)
                }
            };
            if !client
                .retry_as(
                    "POST",
                    OAUTH_TOKEN_PATH,
                    true,
                    &mut retries,
                    cx.deadline,
                    retry_after,
                    &err,
                )
                .await
            {
                return Err(err);
            }
        }
    }
}

impl Authenticate for OAuth {
    fn begin<'a>(&'a self, _: &'a Sending<'a>) -> BoxFuture<'a, Result<Handshake<'a>>> {
        Box::pin(std::future::ready(Ok(None)))
    }

    fn authorization<'a>(
        &'a self,
        cx: &'a Sending<'a>,
        _target: &'a str,
    ) -> BoxFuture<'a, Result<Option<Authorization>>> {
        Box::pin(async move { self.token(cx).await.map(Some) })
    }

    fn refused(&self, refusal: Refusal<'_>, refusals: &mut Refusals) -> bool {
        let Refusal { cx, sent, headers } = refusal;
        let Some(sent) = sent else {
            return false;
        };
        if refusals.signed > 0 {
            return false;
        }
        // The server's time by this 401's own `Date`: the shared clock estimate is the last
        // answer's, and an answer of another request, older than this refusal, may have set it
        // since (a fleet pull has many in flight when a token expires).
        let now = http_date(headers).unwrap_or_else(|| cx.client.server_time());
        let mut state = cx.client.inner.tokens.lock();
        let again = match &state.token {
            Some(t) if t.serial == sent.serial => {
                let expired = !t.usable(now);
                // A token of the shared cache the server does not know: bought anew, once.
                let unknown = t.shared && !expired;
                if expired || unknown {
                    state.token = None;
                }
                expired || unknown
            }
            // Another request has bought a newer token since: this one goes out with it.
            Some(_) => true,
            // Another request found it expired already: the next attempt buys (or waits for)
            // the new one.
            None => true,
        };
        if again {
            // The cache shared with other processes may still hold it: never taken again.
            state.refused = Some(sent.header.clone());
            tracing::debug!(
                target: "opsapi",
                method = cx.method, path = cx.path, "access token expired or refused: another"
            );
            refusals.signed += 1;
        }
        again
    }
}

#[derive(Deserialize)]
struct TokenBody {
    access_token: String,
    expires_in: f64,
    #[serde(default)]
    token_type: Option<String>,
}

/// The token of a 200 answer: `Bearer <access_token>` and its issue and expiry instants by the
/// server's clock (its `Date`, else `now`). A body that is not the documented JSON is a decode
/// error naming the field; its text is not shown (it may hold a token).
fn token_of(body: &[u8], headers: &HeaderMap, now: DateTime<Utc>) -> Result<Bought> {
    let decode = |field: &str, message: String| Error::Decode {
        path: OAUTH_TOKEN_PATH.into(),
        field: field.into(),
        message,
        body_start: "(a token response: not shown)".into(),
    };
    let de = &mut serde_json::Deserializer::from_slice(body);
    let t: TokenBody = serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e.path().to_string();
        decode(&field, e.into_inner().to_string())
    })?;
    if let Some(kind) = t.token_type.as_deref() {
        if !kind.eq_ignore_ascii_case("bearer") {
            return Err(decode("token_type", format!("`{kind}` is not Bearer")));
        }
    }
    let lifetime = Duration::try_from_secs_f64(t.expires_in)
        .ok()
        .filter(|d| !d.is_zero() && *d <= Duration::from_secs(366 * 86_400))
        .and_then(|d| TimeDelta::from_std(d).ok())
        .ok_or_else(|| decode("expires_in", "not a positive number of seconds".into()))?;
    let mut header = HeaderValue::from_str(&format!("Bearer {}", t.access_token))
        .ok()
        .filter(|_| !t.access_token.is_empty())
        .ok_or_else(|| decode("access_token", "not a token that fits a header".into()))?;
    header.set_sensitive(true);
    let issued = super::server::http_date(headers).unwrap_or(now);
    Ok(Bought {
        header,
        access_token: t.access_token,
        issued,
        expires: issued + lifetime,
    })
}

/// The error of the token endpoint: the API's error body, or OAuth's (`error`,
/// `error_description`: RFC 6749 5.2), whose `error` becomes the `error_code`.
fn token_error(status: u16, body: &[u8], retry_after: Option<Duration>) -> ApiError {
    let mut api = ApiError::from_response(status, body, retry_after);
    if api.error_code.is_none() {
        #[derive(Deserialize)]
        struct OAuthError {
            error: String,
            #[serde(default)]
            error_description: Option<String>,
        }
        if let Ok(e) = serde_json::from_slice::<OAuthError>(body) {
            api.error_code = Some(e.error);
            api.detail = api.detail.or(e.error_description);
        }
    }
    api
}

/// A copy of an error of a purchase, for the requests that waited for it.
fn same_error(e: &Error) -> Error {
    match e {
        Error::Api(a) => Error::Api(a.clone()),
        Error::Transport {
            method,
            path,
            message,
        } => Error::Transport {
            method: method.clone(),
            path: path.clone(),
            message: message.clone(),
        },
        Error::Timeout {
            method,
            path,
            timeout,
        } => Error::Timeout {
            method: method.clone(),
            path: path.clone(),
            timeout: *timeout,
        },
        Error::Decode {
            path,
            field,
            message,
            body_start,
        } => Error::Decode {
            path: path.clone(),
            field: field.clone(),
            message: message.clone(),
            body_start: body_start.clone(),
        },
        other => Error::Internal(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_bought_again_a_minute_before_it_expires() {
        let t0 = DateTime::parse_from_rfc3339("2026-03-02T10:00:00Z")
            .unwrap()
            .to_utc();
        let body = br#"{"access_token":"abc","expires_in":3600,"token_type":"Bearer"}"#;
        let b = token_of(body, &HeaderMap::new(), t0).unwrap();
        assert!(b.header.is_sensitive());
        assert_eq!(b.header.to_str().unwrap(), "Bearer abc");
        let t = Token {
            header: b.header,
            serial: 1,
            issued: b.issued,
            expires: b.expires,
            offset: TimeDelta::zero(),
            shared: false,
        };
        assert!(t.usable(t0 + TimeDelta::seconds(3539)));
        assert!(!t.usable(t0 + TimeDelta::seconds(3540)));
        assert_eq!(margin(TimeDelta::seconds(100)), TimeDelta::seconds(10));
    }

    #[test]
    fn token_bodies_that_are_not_the_documented_json_name_the_field_and_hide_the_text() {
        let now = Utc::now();
        let e = token_of(
            br#"{"access_token":"secret-token"}"#,
            &HeaderMap::new(),
            now,
        )
        .unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("expires_in") && !msg.contains("secret-token"),
            "{msg}"
        );
        let e = token_of(
            br#"{"access_token":"x","expires_in":-1}"#,
            &HeaderMap::new(),
            now,
        )
        .unwrap_err();
        assert!(e.to_string().contains("at `expires_in`"), "{e}");
        let e = token_of(
            br#"{"access_token":"x","expires_in":60,"token_type":"mac"}"#,
            &HeaderMap::new(),
            now,
        )
        .unwrap_err();
        assert!(e.to_string().contains("token_type"), "{e}");
    }

    #[test]
    fn oauth_error_bodies_give_their_code() {
        let e = token_error(
            401,
            br#"{"error":"invalid_client","error_description":"Invalid client credentials"}"#,
            None,
        );
        assert_eq!(e.error_code.as_deref(), Some("invalid_client"));
        assert_eq!(e.detail.as_deref(), Some("Invalid client credentials"));
    }
}
