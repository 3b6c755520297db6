//! HTTP Digest authentication (RFC 7616 with MD5 and `qop=auth`, as the service challenges),
//! and the credentials of Atlas service accounts (OAuth 2 client credentials; the client's
//! token cache is in `src/client/oauth.rs`).
//!
//! The client keeps the last challenge in a [`DigestSession`] and signs every request up front
//! with an increasing nonce count, so `N` sequential calls cost `N + 1` HTTP requests (the first
//! one collects the challenge) instead of `2N`. When the server answers 401 (an expired nonce,
//! `stale=true`, or a restarted server) the client takes the new challenge and retries once.
//!
//! The parsing and hashing here are shared with the built-in simulator, which verifies what
//! the client computes: one implementation of the protocol, exercised from both ends.

use std::fmt::Write as _;
use std::sync::Mutex;

use md5::{Digest as _, Md5};

/// A parsed `WWW-Authenticate: Digest ...` challenge.
#[derive(Clone, PartialEq, Eq)]
pub struct Challenge {
    /// The protection space (`realm="MMS Public API"`).
    pub realm: String,
    /// The server nonce.
    pub nonce: String,
    /// Opaque data to echo back, if the server sent any.
    pub opaque: Option<String>,
    /// Whether the server offered `qop=auth`. Without it the RFC 2069 form is used.
    pub qop_auth: bool,
    /// `stale=true`: the nonce expired but the credentials were right.
    pub stale: bool,
}

impl std::fmt::Debug for Challenge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Challenge")
            .field("realm", &self.realm)
            .field("qop_auth", &self.qop_auth)
            .field("stale", &self.stale)
            .finish_non_exhaustive()
    }
}

/// Why a challenge could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChallengeError {
    /// The header is not a Digest challenge (for example `Basic realm=...`).
    NotDigest,
    /// A required parameter is missing.
    Missing(&'static str),
    /// The algorithm is not MD5 (the only one the service uses).
    UnsupportedAlgorithm(String),
    /// `qop` is offered, but not `auth`.
    UnsupportedQop(String),
}

impl std::fmt::Display for ChallengeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotDigest => f.write_str("the WWW-Authenticate header is not a Digest challenge"),
            Self::Missing(p) => write!(f, "the Digest challenge has no `{p}` parameter"),
            Self::UnsupportedAlgorithm(a) => {
                write!(
                    f,
                    "the Digest challenge asks for algorithm `{a}`; only MD5 is supported"
                )
            }
            Self::UnsupportedQop(q) => {
                write!(
                    f,
                    "the Digest challenge offers qop `{q}`; only `auth` is supported"
                )
            }
        }
    }
}

impl std::error::Error for ChallengeError {}

/// Splits `Digest a=b, c="d, e", f=` into its scheme and `(name, value)` pairs.
///
/// Names are lower-cased; quoted values may contain commas and `\"` escapes. Anything that
/// does not parse as a pair is skipped rather than rejected, as browsers and curl do.
pub fn parse_auth_params(header: &str) -> (String, Vec<(String, String)>) {
    let header = header.trim();
    let (scheme, rest) = match header.find(char::is_whitespace) {
        Some(i) => (&header[..i], &header[i..]),
        None => (header, ""),
    };
    let mut params = Vec::new();
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && (bytes[i] == b',' || bytes[i].is_ascii_whitespace()) {
            i += 1;
        }
        let name_start = i;
        while i < bytes.len() && bytes[i] != b'=' && bytes[i] != b',' {
            i += 1;
        }
        let name = rest[name_start..i].trim().to_ascii_lowercase();
        if i >= bytes.len() || bytes[i] == b',' {
            continue;
        }
        i += 1; // '='
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if i < bytes.len() && bytes[i] == b'"' {
            i += 1;
            let mut chunk_start = i;
            while i < bytes.len() && bytes[i] != b'"' {
                if bytes[i] == b'\\' && i + 1 < bytes.len() {
                    value.push_str(&rest[chunk_start..i]);
                    i += 1;
                    chunk_start = i;
                }
                i += 1;
            }
            value.push_str(&rest[chunk_start..i.min(bytes.len())]);
            i += 1; // closing quote
        } else {
            let start = i;
            while i < bytes.len() && bytes[i] != b',' {
                i += 1;
            }
            value.push_str(rest[start..i].trim());
        }
        if !name.is_empty() {
            params.push((name, value));
        }
    }
    (scheme.to_string(), params)
}

fn param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

impl Challenge {
    /// Parses a `WWW-Authenticate` header value.
    ///
    /// Tolerates the quirks of the service's documented challenge: `op="auth"` for
    /// `qop="auth"`, an empty `domain`, and parameters this client does not know.
    ///
    /// ```
    /// use opsapi::auth::Challenge;
    /// let c = Challenge::parse(r#"Digest realm="MMS Public API", domain="", nonce="abc", algorithm=MD5, op="auth", stale=false"#).unwrap();
    /// assert_eq!(c.realm, "MMS Public API");
    /// assert!(c.qop_auth && !c.stale);
    /// ```
    pub fn parse(header: &str) -> Result<Self, ChallengeError> {
        let (scheme, params) = parse_auth_params(header);
        if !scheme.eq_ignore_ascii_case("digest") {
            return Err(ChallengeError::NotDigest);
        }
        let realm = param(&params, "realm").ok_or(ChallengeError::Missing("realm"))?;
        let nonce = param(&params, "nonce").ok_or(ChallengeError::Missing("nonce"))?;
        if let Some(alg) = param(&params, "algorithm") {
            if !alg.eq_ignore_ascii_case("md5") {
                return Err(ChallengeError::UnsupportedAlgorithm(alg.to_string()));
            }
        }
        let qop_auth = match param(&params, "qop").or_else(|| param(&params, "op")) {
            None => false,
            Some(q) => {
                if q.split(',').any(|t| t.trim().eq_ignore_ascii_case("auth")) {
                    true
                } else {
                    return Err(ChallengeError::UnsupportedQop(q.to_string()));
                }
            }
        };
        let stale = param(&params, "stale").is_some_and(|s| s.eq_ignore_ascii_case("true"));
        Ok(Self {
            realm: realm.to_string(),
            nonce: nonce.to_string(),
            opaque: param(&params, "opaque").map(str::to_string),
            qop_auth,
            stale,
        })
    }
}

/// Lower-case hex MD5 of the given parts joined by `:`.
pub fn md5_hex(parts: &[&str]) -> String {
    let mut h = Md5::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            h.update(b":");
        }
        h.update(p.as_bytes());
    }
    let mut out = String::with_capacity(32);
    for b in h.finalize() {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The `response` value of a Digest `Authorization` header (RFC 7616 section 3.4.1).
///
/// `qop_nc_cnonce` is `Some((nc, cnonce))` when `qop=auth` is in use.
pub fn digest_response(
    username: &str,
    realm: &str,
    password: &str,
    method: &str,
    uri: &str,
    nonce: &str,
    qop_nc_cnonce: Option<(&str, &str)>,
) -> String {
    let ha1 = md5_hex(&[username, realm, password]);
    let ha2 = md5_hex(&[method, uri]);
    match qop_nc_cnonce {
        Some((nc, cnonce)) => md5_hex(&[&ha1, nonce, nc, cnonce, "auth", &ha2]),
        None => md5_hex(&[&ha1, nonce, &ha2]),
    }
}

/// API key credentials: the public key is the Digest user name, the private key the password.
///
/// `Debug` shows the public key only.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    public_key: String,
    private_key: String,
}

impl Credentials {
    /// Creates credentials from an API key pair.
    pub fn new(public_key: impl Into<String>, private_key: impl Into<String>) -> Self {
        Self {
            public_key: public_key.into(),
            private_key: private_key.into(),
        }
    }

    /// The public key (the Digest user name).
    pub fn public_key(&self) -> &str {
        &self.public_key
    }

    pub(crate) fn private_key(&self) -> &str {
        &self.private_key
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("public_key", &self.public_key)
            .field("private_key", &"<redacted>")
            .finish()
    }
}

/// An Atlas service account: the OAuth 2 client credentials that buy access tokens at the
/// token endpoint (`POST /api/oauth/token`). `Debug` shows the client id only.
///
/// ```
/// let sa = opsapi::auth::ServiceAccount::new("mdb_sa_id_1", "mdb_sa_sk_2f0c");
/// assert_eq!(sa.client_id(), "mdb_sa_id_1");
/// assert!(!format!("{sa:?}").contains("mdb_sa_sk_2f0c"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ServiceAccount {
    client_id: String,
    client_secret: String,
}

impl ServiceAccount {
    /// A service account from its client id and secret.
    pub fn new(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: client_secret.into(),
        }
    }

    /// The client id.
    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    pub(crate) fn client_secret(&self) -> &str {
        &self.client_secret
    }
}

impl std::fmt::Debug for ServiceAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceAccount")
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .finish()
    }
}

struct SessionState {
    challenge: Challenge,
    nonce_count: u32,
}

/// The client side of a Digest session: the last challenge and its nonce count.
///
/// Shared by every request of a client (and its clones); signing takes a short lock, so
/// concurrent requests each get their own nonce count.
pub struct DigestSession {
    credentials: Credentials,
    state: Mutex<Option<SessionState>>,
}

impl std::fmt::Debug for DigestSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DigestSession")
            .field("credentials", &self.credentials)
            .finish_non_exhaustive()
    }
}

/// A signed `Authorization` header and the nonce it was computed with.
#[derive(Debug, Clone)]
pub struct Signed {
    /// The header value.
    pub header: String,
    /// The nonce used, so that a 401 can tell whether another request already renewed it.
    pub nonce: String,
}

impl DigestSession {
    /// A session with no challenge yet: the first request goes out unsigned.
    pub fn new(credentials: Credentials) -> Self {
        Self {
            credentials,
            state: Mutex::new(None),
        }
    }

    /// The credentials this session signs with.
    pub fn credentials(&self) -> &Credentials {
        &self.credentials
    }

    /// Whether a challenge is known, so that requests can be signed up front.
    pub fn has_challenge(&self) -> bool {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// Signs a request with the current challenge, or returns `None` when there is none yet.
    ///
    /// `uri` is the request target exactly as sent (path and query).
    pub fn sign(&self, method: &str, uri: &str) -> Option<Signed> {
        let (challenge, nc) = {
            let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let state = guard.as_mut()?;
            state.nonce_count = state.nonce_count.wrapping_add(1);
            (state.challenge.clone(), state.nonce_count)
        };
        Some(self.sign_with(&challenge, nc, method, uri))
    }

    fn sign_with(&self, c: &Challenge, nc: u32, method: &str, uri: &str) -> Signed {
        let user = self.credentials.public_key();
        let mut header = String::with_capacity(256);
        let _ = write!(
            header,
            "Digest username=\"{}\", realm=\"{}\", nonce=\"{}\", uri=\"{}\", algorithm=MD5",
            escape(user),
            escape(&c.realm),
            escape(&c.nonce),
            escape(uri)
        );
        // With qop=auth: the nonce count and a fresh client nonce, in the response and the header.
        let qop = c
            .qop_auth
            .then(|| (format!("{nc:08x}"), format!("{:016x}", fastrand::u64(..))));
        let response = digest_response(
            user,
            &c.realm,
            self.credentials.private_key(),
            method,
            uri,
            &c.nonce,
            qop.as_ref()
                .map(|(nc, cnonce)| (nc.as_str(), cnonce.as_str())),
        );
        if let Some((nc, cnonce)) = &qop {
            let _ = write!(header, ", qop=auth, nc={nc}, cnonce=\"{cnonce}\"");
        }
        let _ = write!(header, ", response=\"{response}\"");
        if let Some(opaque) = &c.opaque {
            let _ = write!(header, ", opaque=\"{}\"", escape(opaque));
        }
        Signed {
            header,
            nonce: c.nonce.clone(),
        }
    }

    /// Takes a new challenge from a 401 answer.
    ///
    /// A challenge the server has just issued is never older than the one held, so it always
    /// replaces it (unless it is the same nonce, whose count must keep increasing).
    pub fn update(&self, challenge: Challenge) {
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if guard
            .as_ref()
            .is_some_and(|s| s.challenge.nonce == challenge.nonce)
        {
            return;
        }
        *guard = Some(SessionState {
            challenge,
            nonce_count: 0,
        });
    }
}

fn escape(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(['"', '\\']) {
        s.replace('\\', "\\\\").replace('"', "\\\"").into()
    } else {
        s.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc2617_example_response() {
        // The worked example of RFC 2617 section 3.5.
        let r = digest_response(
            "Mufasa",
            "testrealm@host.com",
            "Circle Of Life",
            "GET",
            "/dir/index.html",
            "dcd98b7102dd2f0e8b11d0f600bfb0c093",
            Some(("00000001", "0a4f113b")),
        );
        assert_eq!(r, "6629fae49393a05397450978507c4ef1");
    }

    #[test]
    fn parses_the_documented_challenge_with_its_typo() {
        let c = Challenge::parse(
            r#"Digest realm="MMS Public API", domain="", nonce="OSlbvqs5Yz2m", algorithm=MD5, op="auth", stale=false"#,
        )
        .unwrap();
        assert_eq!(c.nonce, "OSlbvqs5Yz2m");
        assert!(c.qop_auth);
        assert!(!c.stale);
    }

    #[test]
    fn parses_quoted_commas_escapes_and_unknown_params() {
        let c = Challenge::parse(
            r#"Digest realm="a, \"b\"", qop="auth,auth-int", nonce=xyz, stale=TRUE, charset=UTF-8, opaque="o""#,
        )
        .unwrap();
        assert_eq!(c.realm, "a, \"b\"");
        assert_eq!(c.nonce, "xyz");
        assert!(c.qop_auth && c.stale);
        assert_eq!(c.opaque.as_deref(), Some("o"));
    }

    #[test]
    fn rejects_what_it_cannot_answer() {
        assert_eq!(
            Challenge::parse("Basic realm=\"x\""),
            Err(ChallengeError::NotDigest)
        );
        assert_eq!(
            Challenge::parse("Digest realm=\"x\""),
            Err(ChallengeError::Missing("nonce"))
        );
        assert!(matches!(
            Challenge::parse("Digest realm=\"x\", nonce=\"n\", algorithm=SHA-256"),
            Err(ChallengeError::UnsupportedAlgorithm(_))
        ));
        assert!(matches!(
            Challenge::parse("Digest realm=\"x\", nonce=\"n\", qop=\"auth-int\""),
            Err(ChallengeError::UnsupportedQop(_))
        ));
    }

    #[test]
    fn session_counts_nonces_and_signs_verifiably() {
        let s = DigestSession::new(Credentials::new("pub", "secret"));
        assert!(s.sign("GET", "/x").is_none());
        let c = Challenge::parse(r#"Digest realm="r", nonce="n1", qop="auth""#).unwrap();
        s.update(c);
        let a = s.sign("GET", "/x?y=1").unwrap();
        let b = s.sign("GET", "/x?y=1").unwrap();
        let (_, pa) = parse_auth_params(&a.header);
        let (_, pb) = parse_auth_params(&b.header);
        assert_eq!(param(&pa, "nc"), Some("00000001"));
        assert_eq!(param(&pb, "nc"), Some("00000002"));
        let expected = digest_response(
            "pub",
            "r",
            "secret",
            "GET",
            "/x?y=1",
            "n1",
            Some(("00000001", param(&pa, "cnonce").unwrap())),
        );
        assert_eq!(param(&pa, "response"), Some(expected.as_str()));
        assert!(!a.header.contains("secret"));
        assert!(!format!("{s:?}").contains("secret"));
    }

    #[test]
    fn a_new_challenge_restarts_the_count_and_the_same_one_does_not() {
        let s = DigestSession::new(Credentials::new("p", "k"));
        let c1 = Challenge::parse(r#"Digest realm="r", nonce="n1", qop="auth""#).unwrap();
        let c2 = Challenge::parse(r#"Digest realm="r", nonce="n2", qop="auth""#).unwrap();
        s.update(c1.clone());
        s.sign("GET", "/").unwrap();
        s.update(c1);
        assert!(s.sign("GET", "/").unwrap().header.contains("nc=00000002"));
        s.update(c2);
        let signed = s.sign("GET", "/").unwrap();
        assert_eq!(signed.nonce, "n2");
        assert!(signed.header.contains("nc=00000001"));
    }
}
