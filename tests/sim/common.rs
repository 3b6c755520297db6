//! Helpers shared by the simulator's own tests: a tiny Digest signer on top of reqwest.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

use opsapi::auth::{digest_response, Challenge};
use opsapi::sim::{SimConfig, Simulator};

pub const PREFIX: &str = "/api/public/v1.0";

pub fn start(config: SimConfig) -> Simulator {
    Simulator::start(config).expect("simulator starts")
}

pub fn sim() -> Simulator {
    start(SimConfig::default())
}

/// The `Authorization` header for one request.
pub fn authorization(
    user: &str,
    pass: &str,
    method: &str,
    uri: &str,
    nonce: &str,
    nc: u32,
) -> String {
    let nc = format!("{nc:08x}");
    let cnonce = "0a4f113b";
    let response = digest_response(
        user,
        "MMS Public API",
        pass,
        method,
        uri,
        nonce,
        Some((&nc, cnonce)),
    );
    format!(
        "Digest username=\"{user}\", realm=\"MMS Public API\", nonce=\"{nonce}\", uri=\"{uri}\", algorithm=MD5, qop=auth, nc={nc}, cnonce=\"{cnonce}\", response=\"{response}\""
    )
}

pub struct Resp {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    }

    pub fn error_code(&self) -> String {
        self.json()["errorCode"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

/// A signing client: one nonce, increasing nc, re-challenged on 401 with a challenge.
pub struct Api {
    pub http: reqwest::Client,
    pub base: String,
    pub user: String,
    pub pass: String,
    pub nonce: Mutex<Option<String>>,
    pub nc: AtomicU32,
}

impl Api {
    pub fn owner(sim: &Simulator) -> Self {
        Self::new(sim, sim.public_key(), sim.private_key())
    }

    pub fn read_only(sim: &Simulator) -> Self {
        Self::new(sim, sim.read_only_public_key(), sim.read_only_private_key())
    }

    pub fn new(sim: &Simulator, user: &str, pass: &str) -> Self {
        Self {
            http: reqwest::Client::builder().no_proxy().build().unwrap(),
            base: sim.base_url(),
            user: user.into(),
            pass: pass.into(),
            nonce: Mutex::new(None),
            nc: AtomicU32::new(0),
        }
    }

    /// An unsigned request.
    pub async fn raw(
        &self,
        method: &str,
        uri: &str,
        auth: Option<String>,
        body: Option<&str>,
    ) -> Resp {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut req = self.http.request(m, format!("{}{}", self.base, uri));
        if let Some(a) = auth {
            req = req.header("authorization", a);
        }
        if let Some(b) = body {
            req = req
                .header("content-type", "application/json")
                .body(b.to_string());
        }
        let r = req.send().await.expect("request sent");
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let body = r.bytes().await.expect("body").to_vec();
        Resp {
            status,
            headers,
            body,
        }
    }

    /// Gets a fresh nonce from a 401 challenge.
    pub async fn challenge(&self) -> Challenge {
        let r = self
            .raw("GET", &format!("{PREFIX}/groups"), None, None)
            .await;
        assert_eq!(r.status, 401);
        Challenge::parse(&r.header("www-authenticate").unwrap()).unwrap()
    }

    /// A signed request, `uri` relative to the host (with the prefix), re-challenging once.
    pub async fn send(&self, method: &str, uri: &str, body: Option<&str>) -> Resp {
        for _ in 0..2 {
            let nonce = self.nonce.lock().unwrap().clone();
            let nonce = match nonce {
                Some(n) => n,
                None => {
                    let c = self.challenge().await;
                    *self.nonce.lock().unwrap() = Some(c.nonce.clone());
                    self.nc.store(0, Ordering::SeqCst);
                    c.nonce
                }
            };
            let nc = self.nc.fetch_add(1, Ordering::SeqCst) + 1;
            let auth = authorization(&self.user, &self.pass, method, uri, &nonce, nc);
            let r = self.raw(method, uri, Some(auth), body).await;
            if r.status == 401 {
                if let Some(h) = r.header("www-authenticate") {
                    let c = Challenge::parse(&h).unwrap();
                    *self.nonce.lock().unwrap() = Some(c.nonce);
                    self.nc.store(0, Ordering::SeqCst);
                    continue;
                }
            }
            return r;
        }
        panic!("still 401 after a fresh challenge: {method} {uri}");
    }

    pub async fn get(&self, path: &str) -> Resp {
        self.send("GET", &format!("{PREFIX}{path}"), None).await
    }

    pub async fn get_json(&self, path: &str) -> serde_json::Value {
        let r = self.get(path).await;
        assert_eq!(
            r.status,
            200,
            "{path}: {}",
            String::from_utf8_lossy(&r.body)
        );
        r.json()
    }
}
